import { type IRFunction, type Op, type Region, type Value } from "./types.js";
import { COMPUTATIONS, WRITES_MEMORY } from "./ops.js";

// Common-subexpression elimination within each region: a pure op identical to an earlier one
// (same opcode, attributes and operands) reuses its result. Reads of memory are reused only
// until an op that may write what they read: a store into an element does not change a field
// (`ds.vy` stays valid across `dvy[i] += …`), a store into a field does not change elements,
// and calls change anything. Besides the work saved, reverse mode then saves one residual
// where the source wrote `y[i] * y[i]`.

const REUSABLE: ReadonlySet<Op["opcode"]> = new Set<Op["opcode"]>([
  ...COMPUTATIONS,
  "field",
  "index",
  "length",
]);

/** Which reads each kind of write may change. */
const INVALIDATES: Partial<Record<Op["opcode"], "fields" | "elements">> = {
  setField: "fields",
  addField: "fields",
  setIndex: "elements",
  addIndex: "elements",
};

export function eliminateCommonSubexpressions(fn: IRFunction): void {
  const replacement = new Map<number, Value>();
  const visit = (region: Region) => {
    const seen = new Map<string, Value>();
    const fields = new Map<string, Value>();
    const elements = new Map<string, Value>();
    const kept: Op[] = [];
    for (const op of region.ops) {
      op.operands = op.operands.map((v) => replacement.get(v.id) ?? v);
      op.regions.forEach(visit);
      if (op.opcode === "if") mergeIfResults(op, replacement);
      const kind = INVALIDATES[op.opcode];
      if (kind !== "elements" && (WRITES_MEMORY.has(op.opcode) || op.regions.length > 0))
        fields.clear();
      if (kind !== "fields" && (WRITES_MEMORY.has(op.opcode) || op.regions.length > 0))
        elements.clear();
      const random = op.opcode === "math" && op.attrs.callee === "random";
      if (!REUSABLE.has(op.opcode) || op.results.length !== 1 || op.tangent || random) {
        kept.push(op);
        continue;
      }
      const key = `${op.opcode}|${attributesKey(op)}|${op.operands.map((v) => v.id).join(",")}`;
      const table =
        op.opcode === "field"
          ? fields
          : op.opcode === "index" || op.opcode === "length"
            ? elements
            : seen;
      const earlier = table.get(key);
      if (earlier && earlier.type === op.results[0]!.type) {
        replacement.set(op.results[0]!.id, earlier);
        continue;
      }
      table.set(key, op.results[0]!);
      kept.push(op);
    }
    region.ops = kept;
  };
  visit(fn.body);
}

/** The attributes as text; numbers keep NaN, ±Infinity and -0 apart (JSON would not). */
function attributesKey(op: Op): string {
  const { value, callee, field, isNull } = op.attrs;
  const number =
    typeof value === "number" ? (Object.is(value, -0) ? "-0" : String(value)) : undefined;
  const shown = isNull ? "null" : (number ?? String(value));
  return `${typeof value}:${shown}|${callee ?? ""}|${field ?? ""}`;
}

/**
 * Two results of an `if` that every branch yields the same value for are one: the second's
 * uses take the first (DCE then drops it). Reverse mode's closures lift a branch's residuals
 * as results, and two residuals can be one value once the branch's own duplicates are merged.
 */
function mergeIfResults(op: Op, replacement: Map<number, Value>): void {
  const yields = op.regions.map((r) => r.ops[r.ops.length - 1]!.operands);
  op.results.forEach((r, i) => {
    if (replacement.has(r.id)) return;
    const j = op.results.findIndex(
      (other, k) =>
        k < i &&
        !replacement.has(other.id) &&
        other.type === r.type &&
        yields.every((y) => y[k] === y[i]),
    );
    if (j >= 0) replacement.set(r.id, op.results[j]!);
  });
}
