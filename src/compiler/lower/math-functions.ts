import type { Node } from "oxc-parser";
import { NUMBER_CONSTANTS } from "../rules/math.js";
import { isPlatformGlobal } from "../types/globals.js";
import type { LowerContext } from "./context.js";

// `Math.f` as written (and the constants of `Number`): called (`Math.sin(x)`, lowered in
// calls.ts) or handed to an array method as its callback (`pre.map(Math.tanh)`,
// builtin-callbacks.ts).

/** The name of the platform's Math function `node` names (`Math.sin`), if it names one. */
export function mathMember(ctx: LowerContext, node: Node): string | undefined {
  if (node.type !== "MemberExpression" || node.computed || node.property.type !== "Identifier")
    return undefined;
  const object = node.object;
  // `Math.sin`, or `globalThis.Math.sin` where the program has a `Math` of its own.
  const platform =
    object.type === "Identifier"
      ? object.name === "Math" && isPlatformGlobal(ctx.module, "Math", ctx.scope)
      : object.type === "MemberExpression" &&
        !object.computed &&
        object.object.type === "Identifier" &&
        object.object.name === "globalThis" &&
        object.property.type === "Identifier" &&
        object.property.name === "Math" &&
        isPlatformGlobal(ctx.module, "globalThis", ctx.scope);
  return platform ? node.property.name : undefined;
}

/** `Number.EPSILON` and the other constants of the platform's `Number`; undefined otherwise. */
export function numberConstant(ctx: LowerContext, node: Node): number | undefined {
  if (node.type !== "MemberExpression" || node.computed || node.property.type !== "Identifier")
    return undefined;
  const object = node.object;
  if (object.type !== "Identifier" || object.name !== "Number") return undefined;
  if (!isPlatformGlobal(ctx.module, "Number", ctx.scope)) return undefined;
  return NUMBER_CONSTANTS.get(node.property.name);
}
