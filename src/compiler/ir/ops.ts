import type { Op, Opcode } from "./types.js";

// One row per opcode: what each pass needs to know about an op without knowing the op. A new
// opcode must get a row (the table is checked against the Opcode type), and every set the
// passes use is read off these columns instead of being listed by hand in each pass.

export interface OpInfo {
  /** What family it belongs to: the number families have rules in rules/arithmetic.ts. */
  readonly family:
    "arithmetic" | "comparison" | "logic" | "math" | "structure" | "memory" | "call" | "tape";
  /** A value computed from its operands alone: safe to reuse (CSE) and to move (LICM). */
  readonly computation: boolean;
  /** Ends a region. */
  readonly terminator: boolean;
  /** Has effects of its own: kept even when its results are unused. */
  readonly effects: boolean;
  /** May write memory: reads must not move across it. */
  readonly writesMemory: boolean;
  /**
   * The backward sweep may redo it from saved operands instead of taping its result (a
   * recurrence's next value; see differentiate/residuals.ts). Not `math`: redoing `Math.exp`
   * each backward iteration costs more than a tape load.
   */
  readonly recomputable: boolean;
  /**
   * Cheaper for the backward sweep to redo than to store on the tape and load: arithmetic, and
   * the comparisons that decide branches (`n === 0` is redone from a saved `n`).
   */
  readonly cheap: boolean;
  /** Its operands are all numbers (the verifier checks them). */
  readonly numberOperands: boolean;
  /**
   * As a tangent op, it may move out of a loop when only its last iteration's value is used:
   * a pure read, or arithmetic of one result (differentiate/last-write.ts).
   */
  readonly hoistableTangent: boolean;
  /**
   * Its transpose reads adjoints out of shadows or makes shadows, so a backward sweep holding
   * it is never skipped (differentiate/residuals.ts, `skippableAlone`).
   */
  readonly transposeTouchesShadows: boolean;
  /** Backward iterations holding it must run in the order the tape and the clears expect. */
  readonly ordered: boolean;
  /** How many operands it takes; `"any"` for a variable count (calls, literals, terminators). */
  readonly arity: number | "any";
}

const row = (
  family: OpInfo["family"],
  arity: OpInfo["arity"],
  flags: Partial<Omit<OpInfo, "family" | "arity">> = {},
): OpInfo => ({
  family,
  arity,
  computation: false,
  terminator: false,
  effects: false,
  writesMemory: false,
  recomputable: false,
  cheap: false,
  numberOperands: false,
  hoistableTangent: false,
  transposeTouchesShadows: false,
  ordered: false,
  ...flags,
});

const arithmetic = (arity: number, flags: Partial<OpInfo> = {}) =>
  row("arithmetic", arity, {
    computation: true,
    recomputable: true,
    numberOperands: true,
    hoistableTangent: true,
    ...flags,
  });
const comparison = (numbers: boolean) =>
  row("comparison", 2, {
    computation: true,
    recomputable: true,
    cheap: true,
    numberOperands: numbers,
  });
const logic = (arity: number) =>
  row("logic", arity, { computation: true, recomputable: true, cheap: true });
const terminator = row("structure", "any", { terminator: true });
const store = (arity: number, flags: Partial<OpInfo> = {}) =>
  row("memory", arity, { effects: true, writesMemory: true, ...flags });
const tape = (arity: number) => row("tape", arity, { effects: true, ordered: true });

export const OPS = {
  const: row("structure", 0, { computation: true, recomputable: true, hoistableTangent: true }),
  add: arithmetic(2, { cheap: true }),
  sub: arithmetic(2, { cheap: true }),
  mul: arithmetic(2, { cheap: true }),
  div: arithmetic(2),
  rem: arithmetic(2),
  pow: arithmetic(2),
  neg: arithmetic(1, { cheap: true }),
  lt: comparison(true),
  le: comparison(true),
  gt: comparison(true),
  ge: comparison(true),
  // also of booleans and strings
  eq: comparison(false),
  ne: comparison(false),
  not: logic(1),
  truthy: logic(1),
  and: logic(2),
  or: logic(2),
  // `v == null`: not a logic opcode, so the backward sweep never recomputes it from a taped
  // `v` (the tape stores undefined as NaN): the branch it decides is taped instead.
  nullish: row("structure", 1, { computation: true }),
  select: row("structure", 3, { computation: true, recomputable: true, hoistableTangent: true }),
  detach: row("structure", 1),
  withDerivative: row("structure", 1),
  adjust: row("structure", 1, { transposeTouchesShadows: true }),
  nondiff: row("structure", "any"),
  // `Math.random` is a `math` op too: passes that reuse or move ops leave it alone.
  math: row("math", "any", { computation: true }),
  call: row("call", "any", { effects: true, writesMemory: true, ordered: true }),
  extern: row("call", "any", { effects: true, writesMemory: true, ordered: true }),
  global: row("structure", 0, { computation: true, recomputable: true }),
  if: row("structure", 1),
  loop: row("structure", "any"),
  yield: terminator,
  condition: terminator,
  return: terminator,
  field: row("memory", 1, { hoistableTangent: true }),
  index: row("memory", 2, { hoistableTangent: true }),
  length: row("memory", 1),
  setField: store(2, { transposeTouchesShadows: true, ordered: true }),
  setIndex: store(3, { transposeTouchesShadows: true, ordered: true }),
  addField: store(2),
  addIndex: store(3),
  // Its transpose does nothing: the shadow keeps its length (see BackwardSweep).
  truncate: store(2, { ordered: true }),
  alloc: row("memory", 1, { transposeTouchesShadows: true }),
  literal: row("memory", "any", { transposeTouchesShadows: true }),
  zeros: row("memory", 1, { transposeTouchesShadows: true }),
  clear: store(1, { ordered: true }),
  push: tape(1),
  reserve: row("tape", 1, { effects: true }),
  pop: tape(0),
  peak: tape(0),
  closure: row("structure", 0),
} as const satisfies Record<Opcode, OpInfo>;

/** The opcodes whose row says `test`. */
export function opcodesWhere(test: (info: OpInfo) => boolean): ReadonlySet<Opcode> {
  return new Set((Object.keys(OPS) as Opcode[]).filter((o) => test(OPS[o])));
}

/** Arithmetic on numbers. */
export const ARITHMETIC_OPCODES = opcodesWhere((o) => o.family === "arithmetic");

/** Comparisons (`eq` and `ne` also of booleans and strings). */
export const COMPARISON_OPCODES = opcodesWhere((o) => o.family === "comparison");

/** Boolean logic on already-evaluated booleans. */
export const LOGIC_OPCODES = opcodesWhere((o) => o.family === "logic");

/** Ops that compute a value from their operands alone (no memory, no effects). */
export const COMPUTATIONS = opcodesWhere((o) => o.computation);

export const TERMINATORS = opcodesWhere((o) => o.terminator);

/** Ops that write memory: reads must not move across them. */
export const WRITES_MEMORY = opcodesWhere((o) => o.writesMemory);

/** Ops the backward sweep may redo instead of taping (see OpInfo.recomputable). */
export const RECOMPUTABLE = opcodesWhere((o) => o.recomputable);

/** Ops cheaper to redo in the backward sweep than a tape store and load (OpInfo.cheap). */
export const CHEAP = opcodesWhere((o) => o.cheap);

/** Ops whose operands are all numbers. */
export const NUMBER_OPERANDS = opcodesWhere((o) => o.numberOperands);

/** Tangent ops that may move out of a loop (OpInfo.hoistableTangent). */
export const HOISTABLE_TANGENTS = opcodesWhere((o) => o.hoistableTangent);

/** Tangent ops whose transposes touch shadows (OpInfo.transposeTouchesShadows). */
export const TRANSPOSE_TOUCHES_SHADOWS = opcodesWhere((o) => o.transposeTouchesShadows);

/** Ops whose backward iterations run in order (OpInfo.ordered). */
export const ORDERED = opcodesWhere((o) => o.ordered);

/**
 * Ops with no side effects of their own: they may be removed when their results are unused.
 * User calls are kept, since a callee may log.
 */
export function isPure(op: Op): boolean {
  const info = OPS[op.opcode];
  return !info.effects && !info.terminator;
}
