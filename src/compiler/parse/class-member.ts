import type { Class } from "oxc-parser";
import type { FunctionLike } from "./module.js";

// A method of a class declaration looked up by name, as lowering (calls of methods, getters
// and static methods) and the operators (`derivative(Act.softplus)`) find it.

export type MemberKind = "method" | "get" | "set" | "static";

/** The code of the member `name` of this kind, if the class declares one with a body. */
export function classMember(decl: Class, name: string, kind: MemberKind): FunctionLike | undefined {
  for (const m of decl.body.body) {
    if (
      m.type === "MethodDefinition" &&
      m.kind === (kind === "get" || kind === "set" ? kind : "method") &&
      m.static === (kind === "static") &&
      !m.computed &&
      m.key.type === "Identifier" &&
      m.key.name === name &&
      m.value.body
    ) {
      return m.value;
    }
    // `static add = (a: Vec, b: Vec) => …`: called as a static method is (its `this` is the
    // class either way).
    if (
      kind === "static" &&
      m.type === "PropertyDefinition" &&
      m.static &&
      !m.computed &&
      m.key.type === "Identifier" &&
      m.key.name === name &&
      (m.value?.type === "ArrowFunctionExpression" || m.value?.type === "FunctionExpression")
    ) {
      return m.value;
    }
  }
  return undefined;
}
