import { forEachOp, someOp } from "../ir/walk.js";
import { ValueFactory } from "../ir/builder.js";
import { substituteValues } from "../ir/substitute.js";
import { definedInside, highestValueId } from "../ir/value-ids.js";
import { type IRFunction, type Op, type Region, type Type, type Value } from "../ir/types.js";
import { HOISTABLE_TANGENTS, WRITES_MEMORY } from "../ir/ops.js";
import { isLinear, isShadowBuilder } from "./tangent-values.js";

// Last writes (on the JVP: in reverse mode before it is unzipped; in forward mode only for
// tangents a pure call computes, see sinkLastCallWrites).
//
// A loop-carried tangent number that each iteration either keeps or replaces by a value
// computed afresh — `if (x[i] > max) max = x[i]`, whose tangent is `dmax = t ? dx[i] : dmax` —
// ends up as the fresh value of the last iteration that replaced it, or its initial value if
// none did. Transposed as it stands, the backward loop would pop one branch flag per
// iteration to hand the adjoint to the one element that won. Instead, the loop carries, next
// to the primal values, which replacement happened last (`which`: 0 for none, j for the j-th
// place in the loop that replaces it) and the primal numbers that replacement's tangent ops
// read (the index `i`), and the tangent ops themselves move after the loop, under an `if` on
// `which`. The loop then often has no tangent work left at all: no trip count, no flags, no
// backward loop; the backward sweep adds the adjoint into `dx[i]` once.
//
// The JVP computes the same tangents either way, so this is exact. It needs the tangent ops
// moved to read the same things after the loop as in the iteration that replaced: the primal
// numbers they read inside the loop are carried out, values from outside the loop are the
// same, and shadows read are unchanged because the loop writes no shadow (no tangent store,
// no call of a derivative, no shadow built).

/** A place in the loop's `after` region that yields a fresh value for the slot. */
interface Leaf {
  /** The value yielded (a tangent number). */
  value: Value;
  /** The region whose terminator yields it. */
  region: Region;
  /** The primal values defined inside the loop that computing it reads, carried out. */
  residuals: Value[];
}

/** How one carried tangent slot is chosen each iteration (see sinkLastWrites). */
interface Selection {
  slot: number;
  leaves: Leaf[];
  /** The `if` ops of the choice, each with the position of its result that carries it. */
  nodes: { op: Op; position: number }[];
}

/**
 * Rewrites the loops of a JVP (for reverse mode) whose carried tangents are last writes (see
 * above). Returns whether it changed anything; dead-code elimination then drops the old
 * carried tangents, which nothing reads any more.
 */
export function sinkLastWrites(fn: IRFunction): boolean {
  return sinkLastWritesOf(fn, false);
}

/**
 * Forward mode: only the last writes computed by a pure derivative call (see above), where
 * calling the function itself in the loop and its JVP once after it saves a JVP per
 * replacement; a carried choice among tangents computed in place costs as much as it saves.
 */
export function sinkLastCallWrites(fn: IRFunction): boolean {
  return sinkLastWritesOf(fn, true);
}

function sinkLastWritesOf(fn: IRFunction, callsOnly: boolean): boolean {
  const values = new ValueFactory(highestValueId(fn) + 1);
  let changed = false;

  const visit = (region: Region): void => {
    for (let index = 0; index < region.ops.length; index++) {
      const op = region.ops[index]!;
      op.regions.forEach(visit);
      if (op.opcode !== "loop") continue;
      for (const selection of selections(op, callsOnly)) {
        const added = rewrite(fn, region, op, selection, values);
        index += added;
        changed = true;
      }
    }
  };
  visit(fn.body);
  return changed;
}

/**
 * Whether a loop writes a shadow or could: a tangent store, a call of a derivative that may
 * write (a pure one does not: see OpAttrs.pure), a shadow built (reading a shadow's row or
 * field, `dcentroids[j]`, builds none).
 */
function writesShadows(loop: Op): boolean {
  return loop.regions.some((region) =>
    someOp(
      region,
      (o) =>
        o.tangent === true &&
        ((WRITES_MEMORY.has(o.opcode) && !isPureCall(o)) ||
          o.opcode === "adjust" ||
          (isShadowBuilder(o) && !REREADABLE.has(o.opcode))),
    ),
  );
}

/** Whether a loop may write memory at all: a store, or a call that is not pure. */
function writesMemory(loop: Op): boolean {
  return loop.regions.some((region) =>
    someOp(region, (o) => WRITES_MEMORY.has(o.opcode) && !isPureCall(o)),
  );
}

function isPureCall(op: Op): boolean {
  return op.opcode === "call" && op.attrs.pure === true;
}

/** Reads of memory that may be made again after a loop that writes none. */
const REREADABLE = new Set<Op["opcode"]>(["index", "field", "length"]);

/** The carried tangent slots of a loop that are last writes, with how each is chosen. */
function selections(loop: Op, callsOnly: boolean): Selection[] {
  const [before, after] = loop.regions as [Region, Region];
  const condition = before.ops[before.ops.length - 1]!;
  const yielded = after.ops[after.ops.length - 1]!;
  if (!before.params.some(isLinear) || writesShadows(loop)) return [];
  const inside = definedInside(loop);
  const definitions = new Map<number, Op>();
  const regionOf = new Map<Op, Region>();
  const uses = new Map<number, number>();
  for (const region of loop.regions) {
    forEachOp(region, (o, holder) => {
      regionOf.set(o, holder);
      for (const v of o.operands) uses.set(v.id, (uses.get(v.id) ?? 0) + 1);
      for (const r of o.results) definitions.set(r.id, o);
    });
  }
  const useCount = (v: Value) => uses.get(v.id) ?? 0;
  const rereadable = !writesMemory(loop);
  /** Whether computing tangent `v` inside the loop calls a pure derivative. */
  const computedByCall = (v: Value, depth: number): boolean => {
    const def = definitions.get(v.id);
    if (!def || !def.tangent || depth > 16) return false;
    return isPureCall(def) || def.operands.some((o) => computedByCall(o, depth + 1));
  };

  /**
   * The primal values defined inside the loop that computing `v` reads (pushed onto
   * `residuals`), or false if it cannot be computed after the loop.
   */
  const movable = (v: Value, residuals: Value[], depth: number): boolean => {
    if (!inside.has(v.id)) return true;
    if (depth > 16) return false;
    const def = definitions.get(v.id);
    if (!v.tangent) {
      // A constant is built again after the loop.
      if (def?.opcode === "const" || def?.opcode === "global") return true;
      if (v.type !== "number" && v.type !== "boolean") {
        // An array or object read from memory the loop does not change (`centroids[j]`) is
        // read again after it, from the carried index.
        if (!rereadable || !def || !REREADABLE.has(def.opcode)) return false;
        return def.operands.every((o) => movable(o, residuals, depth + 1));
      }
      if (!residuals.includes(v)) residuals.push(v);
      return true;
    }
    if (!def || !def.tangent) return false;
    // The tangent a pure derivative call returns (`squaredDistance`'s JVP at the winner): the
    // call is made again after the loop, with what the winning iteration passed.
    if (isPureCall(def)) {
      if (def.results[0] !== v || !rereadable) return false;
      return def.operands.every((o) => movable(o, residuals, depth + 1));
    }
    // A tangent parameter of a region (a carried tangent) or a tangent op of another kind.
    if (!HOISTABLE_TANGENTS.has(def.opcode) || def.results.length !== 1) return false;
    return def.operands.every((o) => movable(o, residuals, depth + 1));
  };

  const found: Selection[] = [];
  before.params.forEach((p, k) => {
    if (!isLinear(p)) return;
    const q = after.params[k]!;
    if (condition.operands[k + 1] !== p || useCount(p) !== 1) return;
    const selection: Selection = { slot: k, leaves: [], nodes: [] };
    let keeps = 0;
    // `v`, yielded by the terminator of `region`: the slot's value for the rest of the
    // iteration's choices below it.
    const choose = (v: Value, region: Region): boolean => {
      if (v === q) {
        keeps++;
        return true;
      }
      const def = definitions.get(v.id);
      if (def?.opcode === "if" && inside.has(v.id)) {
        if (useCount(v) !== 1 || v.type !== "number") return false;
        const position = def.results.indexOf(v);
        selection.nodes.push({ op: def, position });
        return def.regions.every((r) => choose(r.ops[r.ops.length - 1]!.operands[position]!, r));
      }
      if (v.type !== "number") return false;
      const residuals: Value[] = [];
      if (!movable(v, residuals, 0)) return false;
      selection.leaves.push({ value: v, region, residuals });
      return true;
    };
    const y = yielded.operands[k]!;
    if (y !== q && inside.has(y.id) && useCount(y) !== 1) return;
    if (!choose(y, after) || keeps !== useCount(q)) return;
    // Nothing to gain if the slot is never replaced (it is the initial value throughout).
    if (selection.leaves.length === 0) return;
    if (callsOnly && !selection.leaves.some((l) => computedByCall(l.value, 0))) return;
    found.push(selection);
  });
  return found;
}

/**
 * Carries the choice of `selection` through `loop` (in `region`) and computes the slot's
 * tangent after it. Returns how many ops it inserted before the loop.
 */
function rewrite(
  fn: IRFunction,
  region: Region,
  loop: Op,
  selection: Selection,
  values: ValueFactory,
): number {
  const [before, after] = loop.regions as [Region, Region];
  const condition = before.ops[before.ops.length - 1]!;
  const yielded = after.ops[after.ops.length - 1]!;
  const k = selection.slot;
  const loc = loop.loc;
  const constant = (value: number | boolean, type: Type, hint = ""): Op => ({
    opcode: "const",
    operands: [],
    results: [values.make(type, hint)],
    regions: [],
    attrs: { value },
    loc,
  });
  // The new carried slots: `which`, then each leaf's residuals.
  const types: Type[] = ["number"];
  const hints = ["which"];
  const offsets: number[] = [];
  for (const leaf of selection.leaves) {
    offsets.push(types.length);
    for (const r of leaf.residuals) {
      types.push(r.type);
      hints.push(r.hint);
    }
  }
  const inits = types.map((t) => constant(t === "boolean" ? false : 0, t));
  const at = region.ops.indexOf(loop);
  region.ops.splice(at, 0, ...inits);
  const fresh = () => types.map((t, i) => values.make(t, hints[i]));
  const beforeParams = fresh();
  const afterParams = fresh();
  const results = fresh();
  loop.operands.push(...inits.map((o) => o.results[0]!));
  before.params.push(...beforeParams);
  condition.operands.push(...beforeParams);
  after.params.push(...afterParams);
  loop.results.push(...results);

  // What the new slots hold for the choice `v` yielded at the end of `region`.
  const q = after.params[k]!;
  const nodeResults = new Map<Op, Value[]>();
  const carried = (v: Value, where: Region): Value[] => {
    if (v === q) return afterParams;
    const def = selection.nodes.find((n) => n.op.results[n.position] === v);
    if (def) return nodeResults.get(def.op)!;
    const j = selection.leaves.findIndex((l) => l.value === v && l.region === where);
    const leaf = selection.leaves[j]!;
    const which = constant(j + 1, "number", "which");
    where.ops.splice(where.ops.length - 1, 0, which);
    const slots = [...afterParams];
    slots[0] = which.results[0]!;
    leaf.residuals.forEach((r, i) => (slots[offsets[j]! + i] = r));
    return slots;
  };
  // Inner choices first: a node's branches may yield another node's result.
  const ordered = [...selection.nodes].reverse();
  for (const { op } of ordered) nodeResults.set(op, fresh());
  for (const { op, position } of ordered) {
    for (const r of op.regions) {
      const end = r.ops[r.ops.length - 1]!;
      end.operands.push(...carried(end.operands[position]!, r));
    }
    op.results.push(...nodeResults.get(op)!);
  }
  yielded.operands.push(...carried(yielded.operands[k]!, after));

  // After the loop: the slot's tangent is the last replacement's, recomputed from what it
  // read, or the initial tangent if no iteration replaced it.
  const old = loop.results[k]!;
  const ops: Op[] = [];
  const choose = (j: number, into: Op[]): Value => {
    if (j === selection.leaves.length) return loop.operands[k]!;
    const index = constant(j + 1, "number");
    const test: Op = {
      opcode: "eq",
      operands: [results[0]!, index.results[0]!],
      results: [values.make("boolean")],
      regions: [],
      attrs: {},
      loc,
    };
    const then: Region = { params: [], ops: [] };
    const leaf = selection.leaves[j]!;
    const map = new Map<number, Value>();
    leaf.residuals.forEach((r, i) => map.set(r.id, results[offsets[j]! + i]!));
    const inside = definedInside(loop);
    const copy = (v: Value): Value => {
      const known = map.get(v.id);
      if (known) return known;
      if (!inside.has(v.id)) return v;
      const def = findDefinition(loop, v)!;
      // A call gives its tangent and its value: both are made again.
      const clone: Op = {
        ...def,
        operands: def.operands.map(copy),
        results: def.results.map((r) => ({ ...r, id: values.make(r.type).id })),
        regions: [],
        attrs: { ...def.attrs },
      };
      then.ops.push(clone);
      def.results.forEach((r, i) => map.set(r.id, clone.results[i]!));
      return map.get(v.id)!;
    };
    const value = copy(leaf.value);
    then.ops.push(yieldOf([value], loc));
    const otherwise: Region = { params: [], ops: [] };
    const rest = choose(j + 1, otherwise.ops);
    otherwise.ops.push(yieldOf([rest], loc));
    const result: Value = { ...values.make("number", old.hint), tangent: true };
    into.push(index, test, {
      opcode: "if",
      operands: [test.results[0]!],
      results: [result],
      regions: [then, otherwise],
      attrs: {},
      loc,
    });
    return result;
  };
  const value = choose(0, ops);
  region.ops.splice(region.ops.indexOf(loop) + 1, 0, ...ops);
  substituteValues(fn.body, new Map([[old.id, value]]));
  return inits.length;
}

function yieldOf(operands: Value[], loc: Op["loc"]): Op {
  return { opcode: "yield", operands, results: [], regions: [], attrs: {}, loc };
}

/** The op inside `loop` that defines `v`. */
function findDefinition(loop: Op, v: Value): Op | undefined {
  const visit = (region: Region): Op | undefined => {
    for (const o of region.ops) {
      if (o.results.includes(v)) return o;
      for (const r of o.regions) {
        const found = visit(r);
        if (found) return found;
      }
    }
    return undefined;
  };
  for (const r of loop.regions) {
    const found = visit(r);
    if (found) return found;
  }
  return undefined;
}
