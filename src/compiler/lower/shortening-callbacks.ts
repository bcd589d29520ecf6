import type { Node } from "oxc-parser";
import { walk, type FunctionLike } from "../parse/module.js";

// `xs.forEach((v, i, arr) => { …; arr.pop(); })`: JavaScript visits only the indices the array
// still has when their turn comes, so a callback that shortens the array it iterates skips the
// elements it removed. Such callbacks get that test before each visit (methods.ts); the test is
// left out of the others, which cannot shorten an array.

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
