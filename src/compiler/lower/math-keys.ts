import type { CallExpression, Expression, Node } from "oxc-parser";
import { MATH_FUNCTIONS, NON_DIFFERENTIABLE_MATH } from "../rules/math.js";
import type { LowerContext } from "./context.js";
import { mathMember } from "./math-functions.js";

// `Math[this.fn](x)` where `fn: "sin" | "exp"`: the Math function a key names, one of those
// TypeScript's type of the key allows, read as the choice it makes at run time
// (`this.fn === "sin" ? Math.sin(x) : Math.exp(x)`). The key is read once per test, so only a
// key whose reading does nothing (a name, `this.fn`, `o.fn`) is accepted.

/** The choice `node` makes when it is `Math[key](…)` of a key typed as Math functions' names. */
export function mathByKeyAsChoice(ctx: LowerContext, node: CallExpression): Expression | undefined {
  const callee = node.callee;
  if (callee.type !== "MemberExpression" || !callee.computed || callee.optional) return undefined;
  const key = callee.property;
  const position = inertKeyPosition(key);
  if (position === undefined) return undefined;
  const at = { start: callee.start, end: callee.end };
  const member = (name: string) =>
    ({
      ...callee,
      computed: false,
      property: { type: "Identifier", name, start: key.start, end: key.end },
    }) as Node;
  // `Math` is the platform's (not a local of that name).
  if (mathMember(ctx, member("abs")) === undefined) return undefined;
  const names = ctx.types.inferred?.literalsAt(position);
  const known = (n: string | number): n is string =>
    typeof n === "string" && (MATH_FUNCTIONS.has(n) || NON_DIFFERENTIABLE_MATH.has(n));
  if (!names || names.length === 0 || !names.every(known)) return undefined;
  const call = (name: string) => ({ ...node, callee: member(name) });
  const last = names.at(-1)!;
  return names.slice(0, -1).reduceRight<unknown>(
    (otherwise, name) => ({
      type: "ConditionalExpression",
      test: {
        type: "BinaryExpression",
        operator: "===",
        left: key,
        right: { type: "Literal", value: name, raw: JSON.stringify(name), ...at },
        ...at,
      },
      consequent: call(name),
      alternate: otherwise,
      ...at,
    }),
    call(last),
  ) as Expression;
}

/** Where the checker names the key's type, if reading the key does nothing. */
function inertKeyPosition(key: Node): number | undefined {
  if (key.type === "Identifier") return key.start;
  if (
    key.type === "MemberExpression" &&
    !key.computed &&
    !key.optional &&
    (key.object.type === "Identifier" || key.object.type === "ThisExpression")
  )
    return key.property.start;
  return undefined;
}
