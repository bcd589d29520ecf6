import type { Node } from "oxc-parser";
import { walk } from "../parse/module.js";
import type { FunctionSymbol, ProgramGraph } from "../parse/program.js";
import type { SourceModule } from "../parse/module.js";
import { declaredLocally } from "./captures.js";
import { isPlatformGlobal } from "../types/globals.js";
import { nablaOperatorOf } from "./operator-call.js";

// The functions a `Differentiable` value may hold at run time: the top-level functions of the
// program that some code uses as a value (`xs.map(relu)`, `{ act: tanh }`, `c ? relu : tanh`),
// not only calls. Differentiated code that calls such a value tests it against each of them
// that fits the call (see lower/function-values.ts).

const cache = new WeakMap<ProgramGraph, { modules: number; found: FunctionSymbol[] }>();

export function functionsUsedAsValues(program: ProgramGraph): FunctionSymbol[] {
  const modules = program.loadedModules();
  const cached = cache.get(program);
  if (cached && cached.modules === modules.length) return cached.found;
  const found = new Map<FunctionSymbol["node"], FunctionSymbol>();
  for (const mod of modules) {
    walk(mod.program, (n, ancestors) => {
      const symbol = functionNamed(program, mod, n, ancestors);
      if (!symbol) return true;
      // `act as Differentiable<…>`, `act!`, `(act)`: the value of what they wrap.
      let at = ancestors.length - 1;
      let child: Node = n;
      while (at >= 0 && TRANSPARENT.has(ancestors[at]!.type)) child = ancestors[at--]!;
      const parent = ancestors[at];
      if (!parent || !isValuePosition(child, parent)) return true;
      if (parent.type === "CallExpression" && !mayKeep(program, mod, parent.callee)) return true;
      if (!symbol.thisType && !found.has(symbol.node)) found.set(symbol.node, symbol);
      return n.type !== "MemberExpression";
    });
  }
  const list = [...found.values()];
  cache.set(program, { modules: modules.length, found: list });
  return list;
}

/** Expressions whose value is the value of the expression they wrap. */
const TRANSPARENT = new Set([
  "TSAsExpression",
  "TSSatisfiesExpression",
  "TSNonNullExpression",
  "ParenthesizedExpression",
]);

/** The top-level function `n` names: `f`, or `ns.f` through a namespace import. */
function functionNamed(
  program: ProgramGraph,
  mod: SourceModule,
  n: Node,
  ancestors: readonly Node[],
): FunctionSymbol | undefined {
  if (n.type === "Identifier") {
    if (declaredLocally(n.name, ancestors)) return undefined;
    return program.resolveLocalFunction(mod, n.name);
  }
  if (
    n.type !== "MemberExpression" ||
    n.computed ||
    n.object.type !== "Identifier" ||
    n.property.type !== "Identifier"
  )
    return undefined;
  if (declaredLocally(n.object.name, ancestors)) return undefined;
  const target = program.namespaceModule(mod, n.object.name);
  return target && program.resolveExport(target, n.property.name);
}

/**
 * Whether a function passed to this callee may end up held somewhere: yes, unless the callee
 * is one of nabla's operators (compiled, not held), an array method that calls it at once
 * (`[1.5].map(roundDown)`) or a timer of the platform — so a helper used only that way is not
 * a candidate, and need not be differentiable.
 */
function mayKeep(program: ProgramGraph, mod: SourceModule, callee: Node): boolean {
  if (nablaOperatorOf(mod, callee)) return false;
  if (callee.type === "Identifier") {
    if (program.resolveLocalFunction(mod, callee.name)) return true;
    return !(CALLING_GLOBALS.has(callee.name) && isPlatformGlobal(mod, callee.name));
  }
  if (callee.type !== "MemberExpression" || callee.computed) return false;
  const method = callee.property.type === "Identifier" ? callee.property.name : "";
  return (
    !CALLING_METHODS.has(method) &&
    !(
      callee.object.type === "Identifier" &&
      GLOBALS.has(callee.object.name) &&
      isPlatformGlobal(mod, callee.object.name)
    )
  );
}

/** Methods of arrays and promises that call the function they are given and let it go. */
const CALLING_METHODS = new Set([
  "map",
  "forEach",
  "filter",
  "reduce",
  "reduceRight",
  "some",
  "every",
  "find",
  "findIndex",
  "findLast",
  "findLastIndex",
  "flatMap",
  "sort",
  "toSorted",
  "then",
  "catch",
  "finally",
  "from",
]);

/** Functions of the platform that call the function they are given and let it go. */
const CALLING_GLOBALS = new Set([
  "setTimeout",
  "setInterval",
  "setImmediate",
  "queueMicrotask",
  "requestAnimationFrame",
]);

/** Objects of the platform whose methods are not the program's. */
const GLOBALS = new Set(["console", "Math", "Array", "Object", "JSON", "Promise", "process"]);

/** Whether an identifier with this parent reads a value (not a callee, key, type or declaration). */
function isValuePosition(n: Node, parent: Node): boolean {
  switch (parent.type) {
    case "CallExpression":
    case "NewExpression":
      return parent.callee !== n;
    case "MemberExpression":
      return parent.object === n || (parent.computed && parent.property === n);
    case "Property":
      return parent.value === n;
    case "VariableDeclarator":
      return parent.init === n;
    case "AssignmentExpression":
      return parent.right === n;
    case "ArrayExpression":
    case "ConditionalExpression":
    case "ReturnStatement":
    case "LogicalExpression":
    case "SpreadElement":
    case "ArrowFunctionExpression":
      return parent.type !== "ArrowFunctionExpression" || (parent as { body: Node }).body === n;
    default:
      return false;
  }
}
