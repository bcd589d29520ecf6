import type { Node } from "oxc-parser";
import { walk, type FunctionLike } from "../parse/module.js";
import type { StaticFunction } from "../resolve/targets.js";
import { freeNames } from "../resolve/captures.js";

// A function passed to a function nabla specializes for it (`subscribe((v) => { sum += v })`)
// exists there only as the code it runs: the specialization calls it, or passes it on, but
// has no value of it to keep. One that keeps it in data (`this.listeners.push(l)`, `this.cb =
// l`, `handlers.set(k, l)`, a constructor's `private act: …` parameter), to be called later by
// other code, would keep nothing, so the call is refused rather than run another function's
// code. A function of the program by name or a Math function is a value, and may be kept.

/** Array, Map and Set methods that keep their argument. */
const KEEPING = new Set(["push", "unshift", "splice", "set", "add", "fill"]);

/** Whether a function given as an argument exists only as code (a closure written there). */
export function withoutValue(fn: StaticFunction): boolean {
  if (fn.kind === "lambda") return true;
  return fn.kind === "choice" && fn.options.some(withoutValue);
}

/**
 * How `fn` keeps its parameter `name` in data (`this.listeners.push(l)`, `push({ fn: l })`,
 * `this.cb = l ?? noop`, `this.all = [...this.all, l]`, `this.cb = (v) => l(v)`, a
 * constructor's parameter property), if it does.
 */
export function keptFunctionParameter(fn: FunctionLike, name: string): string | undefined {
  // `constructor(private act: …)`: a field assigned the parameter.
  const property = fn.params.find(
    (p) =>
      p.type === "TSParameterProperty" &&
      p.parameter.type === "Identifier" &&
      p.parameter.name === name,
  );
  if (property) return `the parameter property '${name}', a field of the instance`;
  if (!fn.body) return undefined;
  const holds = (n: Node) => holdsName(n, name);
  let kept: string | undefined;
  walk(fn.body as Node, (n) => {
    if (kept !== undefined) return false;
    if (
      n.type === "CallExpression" &&
      n.callee.type === "MemberExpression" &&
      !n.callee.computed &&
      n.callee.property.type === "Identifier" &&
      KEEPING.has(n.callee.property.name) &&
      n.arguments.some(holds)
    )
      kept = `'.${n.callee.property.name}(…, ${name})'`;
    else if (
      n.type === "AssignmentExpression" &&
      n.left.type === "MemberExpression" &&
      holds(n.right)
    )
      kept = `an assignment of '${name}' to a field or an element`;
    return undefined;
  });
  return kept;
}

/**
 * Whether the value of `node` is, or holds, the function `name`: the name itself (through
 * `as`, `!` and parentheses), an object or array literal holding it, a choice or `??` that may
 * give it, or a function written there that calls it. A call's result is not counted (a
 * number it computes with the function, as `integrate(f, 0, 1)` gives).
 */
function holdsName(node: Node, name: string): boolean {
  switch (node.type) {
    case "Identifier":
      return node.name === name;
    case "ParenthesizedExpression":
    case "TSAsExpression":
    case "TSSatisfiesExpression":
    case "TSNonNullExpression":
    case "TSTypeAssertion":
      return holdsName(node.expression, name);
    case "SpreadElement":
      return holdsName(node.argument, name);
    case "ArrayExpression":
      return node.elements.some((e) => e !== null && holdsName(e, name));
    case "ObjectExpression":
      return node.properties.some((p) =>
        p.type === "SpreadElement" ? holdsName(p.argument, name) : holdsName(p.value, name),
      );
    case "ConditionalExpression":
      return holdsName(node.consequent, name) || holdsName(node.alternate, name);
    case "LogicalExpression":
      return holdsName(node.left, name) || holdsName(node.right, name);
    case "ArrowFunctionExpression":
    case "FunctionExpression":
      return freeNames(node).includes(name);
    default:
      return false;
  }
}
