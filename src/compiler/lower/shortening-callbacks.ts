import { basename } from "node:path";
import type { Node } from "oxc-parser";
import { positionAt } from "../diagnostics/format.js";
import type { Value } from "../ir/types.js";
import { walk, type FunctionLike, type SourceModule } from "../parse/module.js";
import type { LowerContext } from "./context.js";

// `xs.forEach((v, i, arr) => { …; arr.pop(); })`: JavaScript visits only the indices the array
// still has when their turn comes, so a callback that shortens the array it iterates skips the
// elements it removed. Such callbacks get that test before each visit (methods.ts); the test is
// left out of the others, which cannot shorten an array. `map` leaves a hole in its result for
// each element skipped: its result is made of holes and looked after as `new Array(n)` is
// (hole-checks.ts), so reading such a hole is a RangeError naming the map, never NaN.

const SHORTENING = new Set(["pop", "shift", "splice"]);

/**
 * Whether `callback` may shorten an array: it calls `pop`, `shift` or `splice`, or assigns a
 * `length`, of anything, itself or in a function it calls (`dropLast(arr)`, `q.drop(arr)`): a
 * function of the program it names, a local function, or any method of the program's of that
 * name. `module` is the one `callback` is written in.
 */
export function mayShortenArrays(
  ctx: LowerContext,
  callback: FunctionLike,
  module: SourceModule = ctx.module,
  seen: Set<Node> = new Set(),
): boolean {
  if (seen.has(callback)) return false;
  // Names are looked up in the scope lowered only in the code written there (the arrow).
  const local = seen.size === 0 && module === ctx.module;
  seen.add(callback);
  let found = false;
  const calls = (fn: FunctionLike, where: SourceModule) => mayShortenArrays(ctx, fn, where, seen);
  walk(callback.body as Node, (n) => {
    if (found) return false;
    if (n.type === "CallExpression" && n.callee.type === "MemberExpression" && !n.callee.computed) {
      const name = n.callee.property.type === "Identifier" ? n.callee.property.name : "";
      if (SHORTENING.has(name)) found = true;
      else if (methodsNamed(ctx, name).some(([fn, where]) => calls(fn, where))) found = true;
    }
    if (n.type === "CallExpression" && n.callee.type === "Identifier") {
      const fn = functionNamed(ctx, module, n.callee.name, local);
      if (fn && calls(fn[0], fn[1])) found = true;
    }
    if (
      n.type === "AssignmentExpression" &&
      n.left.type === "MemberExpression" &&
      !n.left.computed &&
      n.left.property.type === "Identifier" &&
      n.left.property.name === "length"
    )
      found = true;
    return undefined;
  });
  return found;
}

/** The function `name` calls in `module`: a local function of the code lowered, or the program's. */
function functionNamed(
  ctx: LowerContext,
  module: SourceModule,
  name: string,
  local: boolean,
): [FunctionLike, SourceModule] | undefined {
  if (local) {
    const slot = ctx.scope.lookup(name);
    const closure = slot && ctx.closures.get(slot);
    if (closure) return [closure.node, module];
    if (slot) return undefined;
  }
  const symbol = ctx.program.resolveLocalFunction(module, name);
  return symbol && [symbol.node, symbol.module];
}

/** The methods and arrow fields of the classes and object literals of the program, by name. */
const methodsOf = new WeakMap<object, { modules: number; byName: Map<string, Method[]> }>();
type Method = [FunctionLike, SourceModule];

/** The methods and arrow fields named `name` of the classes and object literals of the program. */
function methodsNamed(ctx: LowerContext, name: string): Method[] {
  const modules = ctx.program.loadedModules();
  let known = methodsOf.get(ctx.program);
  if (!known || known.modules !== modules.length) {
    const byName = new Map<string, Method[]>();
    for (const module of modules) {
      walk(module.program as Node, (n) => {
        if (
          (n.type === "MethodDefinition" ||
            n.type === "PropertyDefinition" ||
            n.type === "Property") &&
          !n.computed &&
          n.key.type === "Identifier" &&
          n.value &&
          (n.value.type === "FunctionExpression" || n.value.type === "ArrowFunctionExpression")
        )
          byName.set(n.key.name, [...(byName.get(n.key.name) ?? []), [n.value, module]]);
        return undefined;
      });
    }
    known = { modules: modules.length, byName };
    methodsOf.set(ctx.program, known);
  }
  return known.byName.get(name) ?? [];
}

/** Registers `result`, of the `map` call `node` whose callback may shorten its array, as holed. */
export function mapWithHoles(ctx: LowerContext, node: Node, result: Value): void {
  const { line, column } = positionAt(ctx.module.text, node.start);
  ctx.mapsWithHoles.push({
    array: result,
    at: node.start,
    made:
      `'.map' at ${basename(ctx.module.file)}:${line}:${column}, whose callback shortens the ` +
      `array it maps: JavaScript leaves a hole in its result for each element removed before ` +
      `its turn`,
  });
}
