import type { Node } from "oxc-parser";
import { walk, type FunctionLike } from "../parse/module.js";

// A function passed to a function nabla specializes for it (`subscribe((v) => { sum += v })`)
// exists there only as the code it runs: the specialization calls it, or passes it on, but
// has no value of it to keep. One that keeps it in data (`this.listeners.push(l)`, `this.cb =
// l`, `handlers.set(k, l)`), to be called later by other code, would keep nothing, so the call
// is refused rather than run another function's code.

/** Array, Map and Set methods that keep their argument. */
const KEEPING = new Set(["push", "unshift", "splice", "set", "add", "fill"]);

/** How `fn` keeps its parameter `name` in data (`this.listeners.push(l)`), if it does. */
export function keptFunctionParameter(fn: FunctionLike, name: string): string | undefined {
  if (!fn.body) return undefined;
  const text = (n: Node) => n.type === "Identifier" && n.name === name;
  let kept: string | undefined;
  walk(fn.body as Node, (n) => {
    if (kept !== undefined) return false;
    if (
      n.type === "CallExpression" &&
      n.callee.type === "MemberExpression" &&
      !n.callee.computed &&
      n.callee.property.type === "Identifier" &&
      KEEPING.has(n.callee.property.name) &&
      n.arguments.some(text)
    )
      kept = `'.${n.callee.property.name}(…, ${name})'`;
    else if (
      n.type === "AssignmentExpression" &&
      n.left.type === "MemberExpression" &&
      text(n.right)
    )
      kept = `an assignment of '${name}' to a field or an element`;
    return undefined;
  });
  return kept;
}
