import { basename } from "node:path";
import type { Node } from "oxc-parser";
import { positionAt } from "../diagnostics/format.js";
import type { Value } from "../ir/types.js";
import { walk, type FunctionLike } from "../parse/module.js";
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
 * `length`, of anything.
 */
export function mayShortenArrays(callback: FunctionLike): boolean {
  let found = false;
  walk(callback.body as Node, (n) => {
    if (found) return false;
    if (
      n.type === "CallExpression" &&
      n.callee.type === "MemberExpression" &&
      !n.callee.computed &&
      n.callee.property.type === "Identifier" &&
      SHORTENING.has(n.callee.property.name)
    )
      found = true;
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
