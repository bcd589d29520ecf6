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
}

const row = (family: OpInfo["family"], flags: Partial<Omit<OpInfo, "family">> = {}): OpInfo => ({
  family,
  computation: false,
  terminator: false,
  effects: false,
  writesMemory: false,
  recomputable: false,
  ...flags,
});

const arithmetic = row("arithmetic", { computation: true, recomputable: true });
const comparison = row("comparison", { computation: true, recomputable: true });
const logic = row("logic", { computation: true, recomputable: true });
const terminator = row("structure", { terminator: true });
const store = row("memory", { effects: true, writesMemory: true });

export const OPS = {
  const: row("structure", { computation: true, recomputable: true }),
  add: arithmetic,
  sub: arithmetic,
  mul: arithmetic,
  div: arithmetic,
  rem: arithmetic,
  pow: arithmetic,
  neg: arithmetic,
  lt: comparison,
  le: comparison,
  gt: comparison,
  ge: comparison,
  eq: comparison,
  ne: comparison,
  not: logic,
  truthy: logic,
  and: logic,
  or: logic,
  // `v == null`: not a logic opcode, so the backward sweep never recomputes it from a taped
  // `v` (the tape stores undefined as NaN): the branch it decides is taped instead.
  nullish: row("structure", { computation: true }),
  select: row("structure", { computation: true, recomputable: true }),
  detach: row("structure"),
  withDerivative: row("structure"),
  adjust: row("structure"),
  nondiff: row("structure"),
  // `Math.random` is a `math` op too: passes that reuse or move ops leave it alone.
  math: row("math", { computation: true }),
  call: row("call", { effects: true, writesMemory: true }),
  extern: row("call", { effects: true, writesMemory: true }),
  global: row("structure", { computation: true, recomputable: true }),
  if: row("structure"),
  loop: row("structure"),
  yield: terminator,
  condition: terminator,
  return: terminator,
  field: row("memory"),
  index: row("memory"),
  length: row("memory"),
  setField: store,
  setIndex: store,
  addField: store,
  addIndex: store,
  alloc: row("memory"),
  literal: row("memory"),
  zeros: row("memory"),
  clear: store,
  push: row("tape", { effects: true }),
  reserve: row("tape", { effects: true }),
  pop: row("tape", { effects: true }),
  peak: row("tape", { effects: true }),
  closure: row("structure"),
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

/**
 * Ops with no side effects of their own: they may be removed when their results are unused.
 * User calls are kept, since a callee may log.
 */
export function isPure(op: Op): boolean {
  const info = OPS[op.opcode];
  return !info.effects && !info.terminator;
}
