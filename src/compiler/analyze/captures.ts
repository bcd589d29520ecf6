import type { Node } from "oxc-parser";
import type { Type } from "../ir/types.js";
import { walk, type FunctionLike } from "../parse/module.js";
import { annotationType } from "../lower/signature.js";
import { inferType } from "./infer-type.js";

// Variables of enclosing functions that a lambda given to an operator reads, as in
// `derivative((E: number) => residual(E, e, M))`. They are constants for differentiation: the
// lambda's derivative takes them as extra parameters and the call site passes their values.

export interface Capture {
  name: string;
  /** The declared or inferred type; undefined when it needs an annotation. */
  type: Type | undefined;
  /** The declaration, for diagnostics. */
  node: Node;
  /** Whether it holds a function (a local arrow or function), which cannot be captured yet. */
  isFunction: boolean;
}

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

interface Declaration {
  node: Node;
  annotation: Type | undefined;
  init: Node | null;
}

/** Parameters and variables declared directly in `fn` (not in functions nested in it). */
function declarationsOf(fn: FunctionLike): Map<string, Declaration> {
  const found = new Map<string, Declaration>();
  for (const p of fn.params) {
    if (p.type === "Identifier")
      found.set(p.name, { node: p, annotation: annotationType(p.typeAnnotation), init: null });
  }
  if (!fn.body) return found;
  walk(fn.body, (n) => {
    if (n !== fn.body && FUNCTIONS.has(n.type)) return false;
    if (n.type === "VariableDeclarator" && n.id.type === "Identifier" && !found.has(n.id.name)) {
      found.set(n.id.name, {
        node: n,
        annotation: annotationType(n.id.typeAnnotation),
        init: n.init,
      });
    }
    return true;
  });
  return found;
}

/** Names read in `fn` that it does not declare itself, in order of first use. */
function freeNames(fn: FunctionLike): string[] {
  const own = declarationsOf(fn);
  const names: string[] = [];
  walk(fn, (n, ancestors) => {
    if (n.type !== "Identifier") return true;
    const parent = ancestors[ancestors.length - 1];
    const isProperty =
      parent?.type === "MemberExpression" && parent.property === n && !parent.computed;
    const isLabel =
      parent?.type === "LabeledStatement" ||
      parent?.type === "BreakStatement" ||
      parent?.type === "ContinueStatement";
    if (!isProperty && !isLabel && !own.has(n.name) && !names.includes(n.name)) names.push(n.name);
    return true;
  });
  return names;
}

/** The variables of enclosing functions (innermost first in `ancestors`' reverse) `lambda` reads. */
export function findCaptures(lambda: FunctionLike, ancestors: readonly Node[]): Capture[] {
  const scopes = ancestors
    .filter((a): a is FunctionLike => FUNCTIONS.has(a.type) && a !== lambda)
    .reverse()
    .map(declarationsOf);
  const lookupDeclaration = (name: string) => scopes.find((s) => s.has(name))?.get(name);
  const typeOf = (name: string, seen: Set<string>): Type | undefined => {
    const decl = lookupDeclaration(name);
    if (!decl || seen.has(name)) return undefined;
    seen.add(name);
    return decl.annotation ?? inferType(decl.init, (n) => typeOf(n, seen));
  };
  return freeNames(lambda).flatMap((name) => {
    const decl = lookupDeclaration(name);
    if (!decl) return [];
    const init = decl.init?.type;
    const isFunction = init === "ArrowFunctionExpression" || init === "FunctionExpression";
    return [{ name, type: typeOf(name, new Set()), node: decl.node, isFunction }];
  });
}
