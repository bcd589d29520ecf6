import type { Op, Region, Value } from "./types.js";

// Loop counters: a number a loop carries and steps by a constant each iteration (`j++`,
// `i -= 2`), so in iteration t (from 0) it holds `init + t * step`. Reverse mode recomputes
// them instead of taping them (differentiate/loop-facts.ts); code motion uses them to tell a
// store's index apart from a read's (licm.ts).

export interface LoopCounter {
  /** The loop's operand it starts from. */
  init: Value;
  step: number;
}

/** The op defining a value, or undefined for a parameter. */
export type Definitions = (id: number) => Op | undefined;

/** The value of a `const` op defining `v`, if it is a number. */
export function constantNumber(v: Value, definitionOf: Definitions): number | undefined {
  const def = definitionOf(v.id);
  return def?.opcode === "const" && typeof def.attrs.value === "number"
    ? def.attrs.value
    : undefined;
}

/**
 * A loop's primal counters, by the ids of their parameters in both regions: the `before`
 * region's parameter, forwarded unchanged to the `after` region, whose yield is that
 * parameter plus or minus a constant.
 */
export function loopCounters(loop: Op, definitionOf: Definitions): Map<number, LoopCounter> {
  const counters = new Map<number, LoopCounter>();
  const [before, after] = loop.regions as [Region, Region];
  const forwarded = before.ops[before.ops.length - 1]!.operands.slice(1);
  const yielded = after.ops[after.ops.length - 1]!.operands;
  before.params.forEach((p, k) => {
    const q = after.params[k]!;
    if (p.type !== "number" || p.tangent || forwarded[k] !== p) return;
    const def = definitionOf(yielded[k]!.id);
    if (!def || def.tangent || (def.opcode !== "add" && def.opcode !== "sub")) return;
    const [a, c] = def.operands as [Value, Value];
    let step: number | undefined;
    if (a === q) step = constantNumber(c, definitionOf);
    else if (c === q && def.opcode === "add") step = constantNumber(a, definitionOf);
    if (step === undefined || !Number.isFinite(step)) return;
    if (def.opcode === "sub" && a === q) step = -step;
    const counter = { init: loop.operands[k]!, step };
    counters.set(p.id, counter);
    counters.set(q.id, counter);
  });
  return counters;
}
