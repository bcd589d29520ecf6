import type { Region, Type, Value } from "../ir/types.js";
import type { LowerContext, Slot } from "./context.js";

// Structured SSA construction. Each branch or loop region is lowered against a copy of the
// environment; variables whose value differs afterwards become results of the `if` or
// loop-carried values of the loop.

/**
 * Lowers a two-way branch. Each callback lowers one branch and returns extra values to yield
 * (e.g. the value of a ternary; both branches yield the same types); the merged variables
 * follow them in the op's results.
 */
export function lowerIf(
  ctx: LowerContext,
  cond: Value,
  branches: [() => Value[], () => Value[]],
  extraHints: string[] = [],
): Value[] {
  const before = ctx.env;
  const outcomes = branches.map((lowerBranch) => {
    ctx.env = new Map(before);
    const region: Region = { params: [], ops: [] };
    const extra = ctx.inScope(() => ctx.builder.inRegion(region, lowerBranch));
    return { region, env: ctx.env, extra };
  });
  const extraTypes: Type[] = outcomes[0]!.extra.map((v) => v.type);
  const merged = [...before.keys()].filter((slot) =>
    outcomes.some((o) => o.env.get(slot) !== before.get(slot)),
  );
  for (const o of outcomes) {
    const yielded = [...o.extra, ...merged.map((slot) => o.env.get(slot)!)];
    ctx.builder.inRegion(o.region, () => ctx.builder.emit("yield", yielded, []));
  }
  const op = ctx.builder.emit(
    "if",
    [cond],
    [...extraTypes, ...merged.map((s) => s.type)],
    {},
    outcomes.map((o) => o.region),
    [...extraHints, ...merged.map((s) => s.name)],
  );
  ctx.env = new Map(before);
  merged.forEach((slot, i) => ctx.env.set(slot, op.results[extraTypes.length + i]!));
  return op.results.slice(0, extraTypes.length);
}

/**
 * Lowers a loop in `scf.while` form. `lowerBefore` runs at the top of every iteration and
 * returns the continue condition; `lowerAfter` is the rest of the iteration. `carried` must
 * contain every variable either callback assigns (found by a syntactic pre-scan).
 */
export function lowerLoop(
  ctx: LowerContext,
  carried: Slot[],
  lowerBefore: () => Value,
  lowerAfter: () => void,
): void {
  // A variable held in a cell is memory, not a value the loop carries.
  carried = carried.filter((slot) => !ctx.cells.has(slot));
  const outer = ctx.env;
  const enter = (params: Value[]) => {
    ctx.env = new Map(outer);
    carried.forEach((slot, i) => ctx.env.set(slot, params[i]!));
  };
  const paramsFor = () => carried.map((s) => ctx.builder.newValue(s.type, s.name));

  const before: Region = { params: paramsFor(), ops: [] };
  enter(before.params);
  ctx.builder.inRegion(before, () => {
    const cond = ctx.inScope(lowerBefore);
    ctx.builder.emit("condition", [cond, ...carried.map((s) => ctx.value(s))], []);
  });
  checkNothingEscaped(ctx, outer, carried);

  const after: Region = { params: paramsFor(), ops: [] };
  enter(after.params);
  ctx.builder.inRegion(after, () => {
    ctx.inScope(lowerAfter);
    ctx.builder.emit(
      "yield",
      carried.map((s) => ctx.value(s)),
      [],
    );
  });
  checkNothingEscaped(ctx, outer, carried);

  const inits = carried.map((s) => outer.get(s)!);
  const op = ctx.builder.emit(
    "loop",
    inits,
    carried.map((s) => s.type),
    {},
    [before, after],
    carried.map((s) => s.name),
  );
  ctx.env = new Map(outer);
  carried.forEach((slot, i) => ctx.env.set(slot, op.results[i]!));
}

/** A variable assigned in a loop but not carried would silently lose its update: refuse. */
function checkNothingEscaped(ctx: LowerContext, outer: Map<Slot, Value>, carried: Slot[]): void {
  for (const [slot, value] of outer) {
    if (!carried.includes(slot) && ctx.env.get(slot) !== value) {
      throw new Error(`internal: loop assigns '${slot.name}' which was not found by the pre-scan`);
    }
  }
}
