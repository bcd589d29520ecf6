import type { ArrayType, IRFunction, Op, SourceLoc, Value } from "../../ir/types.js";
import { isAggregate } from "../../ir/type-system.js";
import { lanesKey } from "../../ir/names.js";
import * as js from "./expression.js";
import type { Expr } from "./expression.js";
import { literalOf } from "./aggregates.js";
import { isFlatLanes } from "./lanes.js";
import type { EmitNames, EmitterState } from "./emitted.js";

// Emission of a JVP along k directions at once (`f$jvps`, see lanes.ts for the layout): each
// tangent number is k lanes in a buffer, and tangent statements run in loops over the lanes,
// consecutive ones fused into one loop. The function emitter (function.ts) hands the lane
// values and statements to this class and keeps emitting everything else.

/** What lane emission uses of the function emitter. */
export interface LaneHost extends EmitterState {
  readonly fn: IRFunction;
  readonly emitNames: EmitNames;
  /** The op defining each value. */
  readonly definitions: Map<number, Op>;
  primalLine(text: string, loc: SourceLoc | undefined): void;
  fresh(base: string): string;
  builtin(name: string): string;
}

export class LaneEmitter {
  k = "";

  q = "";

  /** Lane statements (`x[q] = …`) waiting to be emitted in one loop over the lanes. */
  pendingLanes: { text: string; loc: SourceLoc | undefined }[] = [];

  /** The lane buffers this function owns, allocated once per call at its start. */
  readonly laneBuffers: string[] = [];

  zeroLanes: string | undefined;

  /** Whether `v` is a tangent number of a function along k directions: k lanes. */
  isLane(v: Value): boolean {
    return v.type === "number" && v.tangent === true;
  }

  /** Whether an op computes or stores lanes (so its other operands are read in a lane loop). */
  isLaneOp(op: Op): boolean {
    if (!op.tangent) return false;
    if (op.opcode === "call" || op.regions.length > 0) return false;
    return op.results.some((r) => this.isLane(r)) || op.operands.some((v) => this.isLane(v));
  }

  /** Queues a statement for lane `q` (fused with its neighbours into one loop over the lanes). */
  laneLine(text: string, loc: SourceLoc | undefined): void {
    this.pendingLanes.push({ text, loc });
  }

  /** Emits the queued lane statements as one loop over the lanes. */
  flushLanes(): void {
    if (this.pendingLanes.length === 0) return;
    const pending = this.pendingLanes;
    this.pendingLanes = [];
    const head = `for (let ${this.q} = 0; ${this.q} < ${this.k}; ${this.q}++)`;
    if (pending.length === 1 && !pending[0]!.text.startsWith("const ")) {
      this.host.lines.push({
        text: `${head} ${pending[0]!.text}`,
        indent: this.host.indent,
        loc: pending[0]!.loc,
      });
      return;
    }
    this.host.lines.push({ text: `${head} {`, indent: this.host.indent, loc: pending[0]!.loc });
    for (const s of pending)
      this.host.lines.push({ text: s.text, indent: this.host.indent + 1, loc: s.loc });
    this.host.lines.push({ text: "}", indent: this.host.indent, loc: undefined });
  }

  /** A new lane buffer owned by this call, for `v`. */
  ownedBuffer(v: Value): string {
    const name = this.host.declare(v);
    this.laneBuffers.push(name);
    return name;
  }

  /** Lanes that stay zero (never written), for a zero tangent passed to a call. */
  zeroBuffer(): string {
    if (!this.zeroLanes) {
      this.zeroLanes = this.host.fresh("$zeros");
      this.laneBuffers.push(this.zeroLanes);
    }
    return this.zeroLanes;
  }

  /**
   * The name of a buffer holding the lanes of `v`: its own, or for an inlined expression a
   * buffer it is computed into now.
   */
  bufferOf(v: Value, loc: SourceLoc | undefined): string {
    const inline = this.host.inlined.get(v.id);
    if (!inline) return this.host.names.get(v.id)!;
    this.host.inlined.delete(v.id);
    this.host.pendingReads.delete(v.id);
    if (inline.text === "0") return this.zeroBuffer();
    const name = this.ownedBuffer(v);
    this.laneLine(`${name}[${this.q}] = ${inline.text};`, loc);
    return name;
  }

  /** `k · i + q`: where lane q of element i of a flat tangent array is. */
  laneIndex(i: Expr): Expr {
    const q = js.name(this.q);
    if (i.text === "0") return q;
    const k = js.name(this.k);
    return js.binary("+", i.text === "1" ? k : js.binary("*", i, k), q);
  }

  /**
   * Targets receive values as if simultaneously, lane by lane (a parallel move per lane, as
   * `assign` does for locals), in the pending lane loop.
   */
  laneAssign(targets: string[], values: Expr[], loc: SourceLoc | undefined): void {
    const at = (t: string) => `${t}[${this.q}]`;
    let pending = targets
      .map((t, i) => ({ target: t, value: values[i]! }))
      .filter((a) => a.value.text !== at(a.target));
    while (pending.length > 0) {
      const free = pending.find((a) =>
        pending.every((other) => other === a || !other.value.refs.has(a.target)),
      );
      if (free) {
        this.laneLine(`${at(free.target)} = ${free.value.text};`, loc);
        pending = pending.filter((a) => a !== free);
        continue;
      }
      const blocked = pending[0]!;
      const temp = this.host.fresh(`${blocked.target}_next`);
      this.laneLine(`const ${temp} = ${blocked.value.text};`, loc);
      blocked.value = js.name(temp);
    }
  }

  /** `d[i] = v` / `d.f = v` of lanes: lane q of the value into lane q of the place. */
  emitLaneStore(op: Op): void {
    const stored = op.operands[op.operands.length - 1]!;
    // `d[i] = d[i] + e · s`: the same place, read by an op like this store's.
    const samePlace = (x: Value) => {
      const read = this.host.definitions.get(x.id);
      return (
        read !== undefined &&
        this.host.inlined.has(x.id) &&
        read.opcode === (op.opcode === "setIndex" ? "index" : "field") &&
        read.attrs.field === op.attrs.field &&
        read.operands.every((v, i) => v === op.operands[i])
      );
    };
    const coefficient = this.accumulation(stored, samePlace);
    const [target, ...rest] = op.operands.map((v) => this.host.ref(v));
    const value = rest[rest.length - 1]!;
    const type = op.operands[0]!.type;
    const place =
      op.opcode === "setField"
        ? js.element(js.member(target!, op.attrs.field!), js.name(this.q))
        : isFlatLanes(type)
          ? js.element(target!, this.laneIndex(rest[0]!))
          : js.element(js.element(target!, rest[0]!), js.name(this.q));
    this.guardedLanes(coefficient, () => this.laneLine(`${place.text} = ${value.text};`, op.loc));
  }

  /**
   * For a lane value `v` computed (inlined) as `p + e · s` or `p − e · s`, where `isRead`
   * accepts `p` (the place `v` is stored to) and `s` is a primal number: `s`. Where `s` is zero at run time the update
   * adds nothing and is skipped (see guardedLanes).
   */
  accumulation(v: Value, isRead: (x: Value) => boolean): Value | undefined {
    const def = this.host.definitions.get(v.id);
    if (!def || !this.host.inlined.has(v.id) || (def.opcode !== "add" && def.opcode !== "sub"))
      return undefined;
    const [a, b] = def.operands as [Value, Value];
    const scaledBy = (x: Value) => {
      const mul = this.host.definitions.get(x.id);
      if (!mul || mul.opcode !== "mul" || !this.host.inlined.has(x.id)) return undefined;
      const [m, n] = mul.operands as [Value, Value];
      if (this.isLane(m) && !this.isLane(n)) return n;
      if (this.isLane(n) && !this.isLane(m)) return m;
      return undefined;
    };
    if (isRead(a)) return scaledBy(b);
    if (def.opcode === "add" && isRead(b)) return scaledBy(a);
    return undefined;
  }

  /**
   * Runs `emit` (lane statements) under `if (s !== 0)` when `s` is given: an update
   * `d += e · s` with s = 0 leaves d as it is. (It also skips `e · 0` where a lane of e is
   * infinite or NaN, which would give NaN: the Jacobian then has 0 there, the derivative of
   * `e · s` for a constant s = 0.) Sparse weights make this pay: GradBench's hand model
   * skins each vertex with 2 of its 22 bones' weights non-zero.
   */
  guardedLanes(s: Value | undefined, emit: () => void): void {
    if (!s) return emit();
    this.flushLanes();
    this.host.line(`if (${js.binary("!==", this.host.ref(s), js.literal(0)).text}) {`, undefined);
    this.host.indent++;
    emit();
    this.flushLanes();
    this.host.indent--;
    this.host.line("}", undefined);
  }

  /**
   * A literal of tangents holding lanes: allocated (lanes of numbers in a `Float64Array` of
   * their own, or flat), then each lane of each number written.
   */
  emitLaneLiteral(op: Op): void {
    const type = op.results[0]!.type;
    const name = this.host.declare(op.results[0]!);
    const k = this.k;
    const parts = op.operands.map((v) => ({ v, lane: this.isLane(v), expr: this.host.ref(v) }));
    if (isFlatLanes(type)) {
      const length = `${op.operands.length} * ${k}`;
      const storage = (type as ArrayType).storage;
      this.host.primalLine(
        storage === "Array"
          ? `const ${name} = new ${this.host.builtin("Array")}(${length}).fill(0);`
          : `const ${name} = new ${storage}(${length});`,
        op.loc,
      );
      parts.forEach((p, i) => {
        if (p.expr.text === "0") return;
        const at = js.element(js.name(name), this.laneIndex(js.literal(i)));
        this.laneLine(`${at.text} = ${p.expr.text};`, op.loc);
      });
      return;
    }
    const slot = js.raw(`new ${this.host.builtin("Array")}(${k}).fill(0)`, js.PREC.primary, [
      js.name(k),
    ]);
    const items = parts.map((p) => (p.lane ? slot : p.expr));
    this.host.primalLine(
      `const ${name} = ${literalOf(type, items, (n) => this.host.builtin(n)).text};`,
      op.loc,
    );
    const fields = isAggregate(type) && type.kind === "object" ? type.fields : undefined;
    parts.forEach((p, i) => {
      if (!p.lane || p.expr.text === "0") return;
      const at = fields
        ? js.member(js.name(name), fields[i]!.name)
        : js.element(js.name(name), js.literal(i));
      this.laneLine(`${at.text}[${this.q}] = ${p.expr.text};`, op.loc);
    });
  }

  /**
   * A call of a callee's JVP from a JVP along k directions: its own along the same directions,
   * given buffers of lanes for tangent numbers and the lane count last.
   */
  laneCall(op: Op): Expr {
    const arity = op.operands.length - op.attrs.wrt!.length;
    const args = op.operands.map((v, i) =>
      i >= arity && this.isLane(v) ? js.name(this.bufferOf(v, op.loc)) : this.host.ref(v),
    );
    const callee = this.host.emitNames.callee({
      ...op,
      attrs: { ...op.attrs, callee: lanesKey(op.attrs.primal!, op.attrs.wrt!) },
    });
    return js.call(callee, [...args, js.name(this.k)]);
  }

  /**
   * Returns lanes: a buffer of this call's own (allocated per call, so the caller may keep
   * it), a copy of a parameter's (the caller's), or a new one for zeros.
   */
  emitLaneReturn(op: Op): void {
    const v = op.operands[0]!;
    const rest = op.operands.slice(1).map((r) => this.host.ref(r));
    let returned: string;
    const inline = this.host.inlined.get(v.id);
    if (inline && inline.text === "0") {
      this.host.inlined.delete(v.id);
      returned = `new ${this.host.builtin("Array")}(${this.k}).fill(0)`;
    } else {
      const name = this.bufferOf(v, op.loc);
      returned = this.host.fn.params.includes(v) ? `${name}.slice()` : name;
    }
    rest.forEach((e, i) =>
      this.host.line(`${this.host.emitNames.runtime}.out.v${i + 1} = ${e.text};`, op.loc),
    );
    this.host.line(`return ${returned};`, op.loc);
  }

  /** Names the lane count (returned: the function's last parameter) and the lane index. */
  nameLanes(): string {
    this.k = this.host.fresh("$k");
    this.q = this.host.fresh("$q");
    return this.k;
  }

  /**
   * Declares every lane buffer at `at` in the function's lines: each is allocated once per
   * call, also those of values in loops (each iteration overwrites its values' lanes, as it
   * would reassign a local).
   */
  declareBuffers(at: number): void {
    if (this.laneBuffers.length === 0) return;
    const declarations = this.laneBuffers.map((b) => ({
      text: `const ${b} = new ${this.host.builtin("Array")}(${this.k}).fill(0);`,
      indent: this.host.indent,
      loc: undefined,
    }));
    this.host.lines.splice(at, 0, ...declarations);
  }

  constructor(private readonly host: LaneHost) {}
}
