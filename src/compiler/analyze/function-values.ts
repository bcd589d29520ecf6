import type { Node } from "oxc-parser";
import { walk } from "../parse/module.js";
import type { FunctionSymbol, ProgramGraph } from "../parse/program.js";
import { declaredLocally } from "./captures.js";
import { nablaOperatorOf } from "./requests.js";

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
      if (n.type !== "Identifier") return true;
      const parent = ancestors[ancestors.length - 1];
      if (!parent || !isValuePosition(n, parent)) return true;
      // Arguments of nabla's own functions (`gradient(f)`) are compiled, not held as values.
      if (parent.type === "CallExpression" && nablaOperatorOf(mod, parent.callee)) return true;
      if (declaredLocally(n.name, ancestors)) return true;
      const symbol = program.resolveLocalFunction(mod, n.name);
      if (symbol && !symbol.thisType && !found.has(symbol.node)) found.set(symbol.node, symbol);
      return true;
    });
  }
  const list = [...found.values()];
  cache.set(program, { modules: modules.length, found: list });
  return list;
}

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
