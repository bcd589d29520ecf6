import type { Node } from "oxc-parser";
import { walk } from "../parse/module.js";
import type { FunctionSymbol, ProgramGraph } from "../parse/program.js";
import type { SourceModule } from "../parse/module.js";
import { declaredLocally } from "./captures.js";
import { isPlatformGlobal } from "../types/globals.js";
import { nablaOperatorOf } from "./operator-call.js";

// The functions a function value may hold at run time: the top-level functions of the program
// that some code uses as a value (`xs.map(relu)`, `{ act: tanh }`, `c ? relu : tanh`), not only
// calls; the functions written in module-level data (`const scenario = { load: (t) => … }`);
// and the platform's Math functions used as values (`{ sin: Math.sin }`). Differentiated code
// that calls such a value tests it against each of them that fits the call (see
// lower/function-values.ts), and throws if it holds none of them.

const cache = new WeakMap<ProgramGraph, { modules: number; found: FunctionSymbol[] }>();
const mathCache = new WeakMap<ProgramGraph, { modules: number; found: string[] }>();

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
  const list = [...found.values(), ...functionsInModuleData(modules)];
  cache.set(program, { modules: modules.length, found: list });
  return list;
}

/** The platform's Math functions the program uses as values (`{ sin: Math.sin }`), by name. */
export function mathFunctionsUsedAsValues(program: ProgramGraph): string[] {
  const modules = program.loadedModules();
  const cached = mathCache.get(program);
  if (cached && cached.modules === modules.length) return cached.found;
  const found = new Set<string>();
  for (const mod of modules) {
    walk(mod.program, (n, ancestors) => {
      const parent = ancestors[ancestors.length - 1];
      if (
        n.type === "MemberExpression" &&
        !n.computed &&
        n.object.type === "Identifier" &&
        n.object.name === "Math" &&
        n.property.type === "Identifier" &&
        parent &&
        isValuePosition(n, parent) &&
        !(parent.type === "CallExpression" && !mayKeep(program, mod, parent.callee)) &&
        isPlatformGlobal(mod, "Math")
      )
        found.add(n.property.name);
      return true;
    });
  }
  const list = [...found];
  mathCache.set(program, { modules: modules.length, found: list });
  return list;
}

/**
 * Functions written as fields of module-level `const` object literals
 * (`export const stepScenario = { setpoint: (t) => …, … }`), named by their path
 * (`stepScenario.setpoint`), which is how differentiated code refers to them. A call through
 * a function value compares it with that path's value and calls the compiled function: so a
 * field some code may assign (`x.setpoint = …` anywhere, or any `Object.assign`) is not one.
 */
function functionsInModuleData(modules: SourceModule[]): FunctionSymbol[] {
  const assigned = assignedFieldNames(modules);
  if (assigned === "any") return [];
  const found: FunctionSymbol[] = [];
  for (const mod of modules) {
    for (const statement of mod.program.body) {
      const declaration =
        statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
      if (declaration?.type !== "VariableDeclaration" || declaration.kind !== "const") continue;
      for (const d of declaration.declarations) {
        if (d.id.type !== "Identifier" || !d.init || assigned.has(d.id.name)) continue;
        const visit = (object: Node, path: string): void => {
          if (object.type !== "ObjectExpression") return;
          for (const p of object.properties) {
            if (p.type !== "Property" || p.computed || p.kind !== "init") continue;
            const key =
              p.key.type === "Identifier"
                ? p.key.name
                : p.key.type === "Literal" && typeof p.key.value === "string"
                  ? p.key.value
                  : undefined;
            if (key === undefined || !/^[A-Za-z_$][\w$]*$/.test(key) || assigned.has(key)) continue;
            const value = p.value;
            if (
              (value.type === "ArrowFunctionExpression" || value.type === "FunctionExpression") &&
              !value.async &&
              !value.generator
            )
              found.push({ module: mod, name: `${path}.${key}`, node: value });
            else visit(value, `${path}.${key}`);
          }
        };
        visit(d.init, d.id.name);
      }
    }
  }
  return found;
}

/** The field names some code of the program assigns, `this.k = …` in classes included. */
export function fieldNamesAssigned(program: ProgramGraph): Set<string> | "any" {
  const modules = program.loadedModules();
  const cached = assignedCache.get(program);
  if (cached && cached.modules === modules.length) return cached.found;
  const found = assignedFieldNames(modules, true);
  assignedCache.set(program, { modules: modules.length, found });
  return found;
}

const assignedCache = new WeakMap<ProgramGraph, { modules: number; found: Set<string> | "any" }>();

/**
 * The field names some code assigns (`o.k = …`, `o["k"] = …`), plus the names of objects it
 * writes by a computed key (`table[k] = …`); or "any" if it cannot tell (`Object.assign` into
 * an existing object). `instances`: writes through `this` in classes count too.
 */
function assignedFieldNames(modules: SourceModule[], instances = false): Set<string> | "any" {
  const names = new Set<string>();
  let any = false;
  for (const mod of modules) {
    walk(mod.program, (n, ancestors) => {
      if (any) return false;
      // `this.input = …` in a class's code writes an instance of the class, never the object
      // literal of module data.
      if (
        !instances &&
        n.type === "AssignmentExpression" &&
        n.left.type === "MemberExpression" &&
        n.left.object.type === "ThisExpression" &&
        ancestors.some((a) => a.type === "ClassBody")
      )
        return true;
      const target =
        n.type === "AssignmentExpression"
          ? n.left
          : n.type === "UpdateExpression"
            ? n.argument
            : undefined;
      if (target?.type === "MemberExpression") {
        if (!target.computed && target.property.type === "Identifier")
          names.add(target.property.name);
        else if (target.property.type === "Literal") names.add(String(target.property.value));
        else names.add(rootName(target.object));
      }
      if (
        n.type === "CallExpression" &&
        n.callee.type === "MemberExpression" &&
        n.callee.object.type === "Identifier" &&
        (n.callee.object.name === "Object" || n.callee.object.name === "Reflect") &&
        n.callee.property.type === "Identifier" &&
        /^(assign|defineProperty|defineProperties|set|setPrototypeOf)$/.test(
          n.callee.property.name,
        ) &&
        n.arguments[0]?.type !== "ObjectExpression"
      )
        any = true;
      return true;
    });
  }
  return any ? "any" : names;
}

/** The variable an access path starts from (`a` of `a.b[c]`), or "" for anything else. */
function rootName(n: Node): string {
  while (n.type === "MemberExpression") n = n.object;
  return n.type === "Identifier" ? n.name : "";
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
    case "PropertyDefinition": // a class field's initializer
      return parent.value === n;
    case "VariableDeclarator":
      return parent.init === n;
    case "AssignmentExpression":
    case "AssignmentPattern": // a parameter's default, `act = Math.tanh`
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
