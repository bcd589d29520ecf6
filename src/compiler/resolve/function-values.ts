import type { Node } from "oxc-parser";
import { walk } from "../parse/module.js";
import type { FunctionSymbol, ProgramGraph } from "../parse/program.js";
import type { SourceModule } from "../parse/module.js";
import { declaredLocally } from "./captures.js";
import { isPlatformGlobal } from "../types/globals.js";
import { nablaOperatorOf } from "./operator-call.js";
import { typeResolver } from "../types/resolver.js";
import { checkedTypes } from "../types/checked-types.js";
import { isArray, isKeyed, isObject } from "../ir/type-system.js";
import type { Type } from "../ir/types.js";

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
  const list = [...found.values(), ...functionsInModuleData(program, modules)];
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
 * Functions written in module-level `const` data — fields of object literals
 * (`export const stepScenario = { setpoint: (t) => …, … }`, a `Record<string, …>` too) and
 * elements of array literals (`const schedule = [(t) => t, …]`), nested too — named by their
 * path (`stepScenario.setpoint`, `schedule[1]`, `layers[0].act`), which is how differentiated
 * code refers to them. A call through a function value compares it with that path's value and
 * calls the compiled function: so a path some code may make hold another function is not one
 * (see `writes`).
 */
function functionsInModuleData(program: ProgramGraph, modules: SourceModule[]): FunctionSymbol[] {
  const written = writes(program, modules);
  if (written === "any") return [];
  const { names: assigned, roots } = written;
  const found: FunctionSymbol[] = [];
  for (const mod of modules) {
    for (const statement of mod.program.body) {
      const declaration =
        statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
      if (declaration?.type !== "VariableDeclaration" || declaration.kind !== "const") continue;
      for (const d of declaration.declarations) {
        if (d.id.type !== "Identifier" || !d.init || assigned.has(d.id.name)) continue;
        if (roots.has(d.id.name)) continue;
        const visit = (value: Node, path: string): void => {
          value = unwrapped(value);
          if (
            (value.type === "ArrowFunctionExpression" || value.type === "FunctionExpression") &&
            !value.async &&
            !value.generator
          ) {
            found.push({ module: mod, name: path, node: value });
          } else if (value.type === "ObjectExpression") {
            for (const p of value.properties) {
              if (p.type !== "Property" || p.computed || p.kind !== "init") continue;
              const key =
                p.key.type === "Identifier"
                  ? p.key.name
                  : p.key.type === "Literal" && typeof p.key.value === "string"
                    ? p.key.value
                    : undefined;
              if (key === undefined || assigned.has(key)) continue;
              // `activations["leaky-relu"]` for a key that is no identifier.
              const identifier = /^[A-Za-z_$][\w$]*$/.test(key);
              visit(p.value, identifier ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);
            }
          } else if (value.type === "ArrayExpression") {
            // `xs.length = 0` empties it; `xs[1] = g` replaces an element.
            if (assigned.has("length")) return;
            value.elements.forEach((e, i) => {
              if (e && e.type !== "SpreadElement" && !assigned.has(String(i)))
                visit(e, `${path}[${i}]`);
            });
          }
        };
        const init = unwrapped(d.init);
        if (init.type === "ObjectExpression" || init.type === "ArrayExpression")
          visit(init, d.id.name);
      }
    }
  }
  return found;
}

/**
 * An expression without the type assertions, non-null assertions and parentheses around it
 * (`[…] as const`, `{…} satisfies T`, `curve!`).
 */
export function unwrapped(n: Node): Node {
  while (TRANSPARENT.has(n.type)) n = (n as Node & { expression: Node }).expression;
  return n;
}

/** Methods that change the array (or map) they are called on. */
const MUTATING_METHODS = new Set([
  "push",
  "pop",
  "shift",
  "unshift",
  "splice",
  "sort",
  "reverse",
  "fill",
  "copyWithin",
  "set",
  "delete",
  "clear",
]);

/**
 * What code anywhere may write of module data: the field names it assigns (`o.k = …`,
 * `o["k"] = …`, `delete o.k`) and the indices (`xs[1] = …`); the variables whose data it writes
 * by a key chosen at run time or changes by a method (`table[k] = …`, `xs.push(g)`,
 * `xs.sort()`); or "any" if it cannot tell which data: `Object.assign` into an existing
 * object, or such a write through another name (a parameter, an alias) into data whose type
 * may hold functions — it may be module data passed there.
 */
function writes(
  program: ProgramGraph,
  modules: SourceModule[],
): { names: Set<string>; roots: Set<string> } | "any" {
  const names = new Set<string>();
  const roots = new Set<string>();
  // Module-level variables that name data of their own (a literal, `new Map(…)`): a write
  // through one of them writes that data only; another (`const alias = schedule`) may be any.
  const constants = new Set(
    modules.flatMap((m) =>
      [...m.constants.values()]
        .filter((c) => {
          const init = c.node.init && unwrapped(c.node.init);
          return (
            init?.type === "ObjectExpression" ||
            init?.type === "ArrayExpression" ||
            init?.type === "NewExpression"
          );
        })
        .map((c) => c.name),
    ),
  );
  let any = false;
  // A write by key or by a method through `target`: of the module-level data it names, else of
  // unknown data, which matters only if its type may hold functions.
  const written = (mod: SourceModule, target: Node, ancestors: readonly Node[]): void => {
    // `new Array(n).fill(g)`, `[...xs].sort()`: data made right there, never module data.
    const made = unwrapped(target).type;
    if (made === "NewExpression" || made === "ArrayExpression" || made === "ObjectExpression")
      return;
    const root = rootName(target);
    if (root !== "" && constants.has(root) && !declaredLocally(root, ancestors)) roots.add(root);
    else if (root !== "" && ownsFreshData(root, ancestors)) return;
    else if (mayHoldFunctions(program, mod, target)) any = true;
  };
  for (const mod of modules) {
    walk(mod.program, (n, ancestors) => {
      if (any) return false;
      // `this.input = …` in a class's code writes an instance of the class, never the object
      // literal of module data.
      if (
        n.type === "AssignmentExpression" &&
        n.left.type === "MemberExpression" &&
        n.left.object.type === "ThisExpression" &&
        ancestors.some((a) => a.type === "ClassBody")
      )
        return true;
      const target = writeTarget(n);
      if (target?.type === "MemberExpression") {
        const name = fieldNamed(target);
        if (name !== undefined) names.add(name);
        else written(mod, target.object, ancestors);
      }
      if (
        n.type === "CallExpression" &&
        n.callee.type === "MemberExpression" &&
        !n.callee.computed &&
        n.callee.property.type === "Identifier" &&
        MUTATING_METHODS.has(n.callee.property.name) &&
        !(n.callee.object.type === "Identifier" && GLOBALS.has(n.callee.object.name))
      )
        written(mod, n.callee.object, ancestors);
      const assigned = objectAssignOf(n);
      if (assigned) {
        // `Object.assign(p, { a: 1 })`: as `p.a = 1`; a source of unknown fields, as a write
        // of `p` by keys chosen at run time.
        if (assigned.names) for (const name of assigned.names) names.add(name);
        else written(mod, assigned.target, ancestors);
      } else if (writesAnyField(n)) any = true;
      return true;
    });
  }
  return any ? "any" : { names, roots };
}

/**
 * `Object.assign(target, …sources)` onto an existing object (not a literal): its target, and
 * the names of the fields it writes when every source is an object literal of named fields.
 */
function objectAssignOf(n: Node): { target: Node; names: string[] | undefined } | undefined {
  if (
    n.type !== "CallExpression" ||
    n.callee.type !== "MemberExpression" ||
    n.callee.object.type !== "Identifier" ||
    n.callee.object.name !== "Object" ||
    n.callee.computed ||
    n.callee.property.type !== "Identifier" ||
    n.callee.property.name !== "assign"
  )
    return undefined;
  const [target, ...sources] = n.arguments;
  if (!target || target.type === "ObjectExpression" || target.type === "SpreadElement")
    return undefined;
  const names: string[] = [];
  for (const source of sources) {
    if (source.type !== "ObjectExpression") return { target, names: undefined };
    for (const p of source.properties) {
      if (p.type !== "Property" || p.computed) return { target, names: undefined };
      if (p.key.type === "Identifier") names.push(p.key.name);
      else if (p.key.type === "Literal") names.push(String(p.key.value));
      else return { target, names: undefined };
    }
  }
  return { target, names };
}

/** What `n` assigns, increments or deletes (`o.k = …`, `xs[i]++`, `delete o.k`), if anything. */
function writeTarget(n: Node): Node | undefined {
  return n.type === "AssignmentExpression"
    ? n.left
    : n.type === "UpdateExpression"
      ? n.argument
      : n.type === "UnaryExpression" && n.operator === "delete"
        ? n.argument
        : undefined;
}

/** The field `o.k` or `o["k"]` names; undefined for a key chosen at run time. */
function fieldNamed(target: Node & { type: "MemberExpression" }): string | undefined {
  if (!target.computed && target.property.type === "Identifier") return target.property.name;
  return target.property.type === "Literal" ? String(target.property.value) : undefined;
}

/** `Object.assign(o, …)`, `Reflect.set(o, …)`…: writes fields of an existing object by name. */
function writesAnyField(n: Node): boolean {
  return (
    n.type === "CallExpression" &&
    n.callee.type === "MemberExpression" &&
    n.callee.object.type === "Identifier" &&
    (n.callee.object.name === "Object" || n.callee.object.name === "Reflect") &&
    n.callee.property.type === "Identifier" &&
    /^(assign|defineProperty|defineProperties|set|setPrototypeOf|deleteProperty)$/.test(
      n.callee.property.name,
    ) &&
    n.arguments[0]?.type !== "ObjectExpression"
  );
}

/**
 * The field names some code of the program assigns by name (`o.k = …`, `this.k = …`, `delete
 * o.k`, `o["k"] = …`), or "any" when it writes fields of an existing object it cannot name
 * (`Object.assign(o, …)`): an arrow-function class field is a method only if none assigns it.
 */
export function fieldNamesAssigned(program: ProgramGraph): Set<string> | "any" {
  const modules = program.loadedModules();
  const cached = assignedCache.get(program);
  if (cached && cached.modules === modules.length) return cached.found;
  const names = new Set<string>();
  let any = false;
  for (const mod of modules) {
    walk(mod.program, (n) => {
      const target = writeTarget(n);
      const name = target?.type === "MemberExpression" ? fieldNamed(target) : undefined;
      if (name !== undefined) names.add(name);
      const assigned = objectAssignOf(n);
      if (assigned?.names) for (const field of assigned.names) names.add(field);
      // A source of unknown fields writes any field of its target, which matters only if
      // the target may hold functions.
      any ||= assigned
        ? !assigned.names && mayHoldFunctions(program, mod, assigned.target)
        : writesAnyField(n);
      // `inst[k] = fn`: a field chosen at run time, of data that may hold functions.
      any ||=
        target?.type === "MemberExpression" &&
        name === undefined &&
        mayHoldFunctions(program, mod, target.object);
      return !any;
    });
  }
  const found = any ? "any" : names;
  assignedCache.set(program, { modules: modules.length, found });
  return found;
}

const assignedCache = new WeakMap<ProgramGraph, { modules: number; found: Set<string> | "any" }>();

/**
 * Whether the data `target` evaluates to may hold functions, by TypeScript's type of it (an
 * array of numbers may not); yes when there is no type to tell.
 */
function mayHoldFunctions(program: ProgramGraph, mod: SourceModule, target: Node): boolean {
  const resolver = typeResolver(program, mod);
  const type = resolver.inferred?.expectedTypeOf(target.start, target.end);
  if (type !== undefined) return holdsOpaque(type, new Set());
  // A type nabla has no IR type for (`number[] | Float64Array`): what TypeScript's says.
  if (!resolver.inferred) return true;
  return checkedTypes(program).mayHoldFunctionsAt(mod.file, target.start, target.end) ?? true;
}

function holdsOpaque(type: Type, seen: Set<Type>): boolean {
  if (type === "opaque") return true;
  if (seen.has(type)) return false;
  seen.add(type);
  if (isArray(type))
    return [type.element, ...(type.elements ?? [])].some((t) => holdsOpaque(t, seen));
  if (isKeyed(type)) return holdsOpaque(type.value, seen);
  if (isObject(type)) return type.fields.some((f) => f.callable || holdsOpaque(f.type, seen));
  return false;
}

/**
 * Whether `name`, where `ancestors` lead, is a local `const` made of data of its own
 * (`const rows = []`, `{}`, `new Map()`): writing it never writes module data.
 */
function ownsFreshData(name: string, ancestors: readonly Node[]): boolean {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const a = ancestors[i]!;
    // A block's statements, or a function body's (a `BlockStatement` in TS-ESTree).
    if (a.type !== "BlockStatement") continue;
    for (const statement of a.body) {
      if (statement.type !== "VariableDeclaration") continue;
      const decl = statement.declarations.find(
        (d) => d.id.type === "Identifier" && d.id.name === name,
      );
      if (!decl) continue;
      const init = decl.init && unwrapped(decl.init);
      return (
        statement.kind === "const" &&
        (init?.type === "ArrayExpression" ||
          init?.type === "ObjectExpression" ||
          init?.type === "NewExpression")
      );
    }
  }
  return false;
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
export const CALLING_METHODS: ReadonlySet<string> = new Set([
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
