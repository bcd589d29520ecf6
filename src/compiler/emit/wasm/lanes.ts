import type { ArrayType, IRFunction, ObjectType, Op, Value } from "../../ir/types.js";
import { isArray, isIntegerArray, isObject, typeText } from "../../ir/type-system.js";
import { forEachOp } from "../../ir/walk.js";
import { f64Text } from "./float-text.js";
import { isAppend } from "./growing-arrays.js";

// A JVP along k directions at once (`f$jvps`, which `jacobian` runs: see emit/js/lanes.ts for
// the layout, the same here) as WebAssembly. Every tangent number is k numbers, its lanes: in
// wasm a block of k f64 cells (an array of length k), the value's local holding its address.
// A flat tangent array (of numbers) holds k lanes per element, element i's at i·k … i·k + k − 1.
// The function takes k last, as an f64 (`$kf`, what JavaScript passes), kept as an i32 (`$k`).
//
// Consecutive tangent operations run in one loop over the lanes (`$q`), two lanes at a time in
// f64x2 vectors and the last alone when k is odd (the same IEEE operations lane by lane, so the
// same bits), each lane's values in locals, as the JavaScript backend fuses its lane
// statements: a value is stored into its block only when something after the loop reads it.
// Operations on primal values between them are emitted before that loop: they neither read
// lanes nor write tangent memory. Blocks are allocated once per call, on entry (a value of a
// loop overwrites its block at each iteration, as it would reassign a local); values carried
// around loops or out of branches are copied lane by lane, as a parallel move. An object of
// tangents holds the address of a block per number field.

/** What lane code needs of the function emitter (function.ts). */
export interface LaneHost {
  readonly fn: IRFunction;
  line(text: string): void;
  /** A value's local (its address, for a lane value). */
  get(v: Value): string;
  /** A primal number as an f64 (an integer kept as i32 converted). */
  num(v: Value): string;
  /** A value's local, declared. */
  define(v: Value): string;
  /** A local of the function's own, declared once. */
  declareLocal(name: string, type: "i32" | "f64" | "v128"): string;
  isInt(v: Value): boolean;
  lengthOf(array: Value): string;
  fail(what: string): never;
  /** A new label number. */
  label(): number;
  /** Whether `array` is one the function appends to (allocated with room to grow). */
  isGrowing(array: Value): boolean;
  /**
   * Before appending an element of lanes to `array`, whose first cell is `first` (an i64,
   * the element's index times k): room for its k cells.
   */
  laneAppendRoom(array: Value, first: string): void;
}

/** Text for the loop over the lanes: two lanes in an f64x2 (`vector`), or one in an f64. */
type LaneText = (vector: boolean) => string;

/** A tangent operation waiting for the loop over the lanes. */
interface Pending {
  /** The op, or what reads the values a move copies (a yield), if anything. */
  op: Op | undefined;
  /** Its statements for lane `$q` (and `$q + 1`); `defines`: the lane value whose local they set. */
  text: LaneText[];
  /** What runs before the loop for it (index checks, addresses). */
  pre?: string[];
  defines?: Value;
}

/** Whether `v` is a tangent number of a function along k directions: k lanes. */
export function isLaneValue(fn: IRFunction, v: Value): boolean {
  return fn.lanes === true && v.type === "number" && v.tangent === true;
}

/** The positions of `fn`'s results that are lanes (a tangent number it returns). */
export function laneResults(fn: IRFunction): Set<number> {
  const found = new Set<number>();
  if (!fn.lanes) return found;
  forEachOp(fn.body, (op) => {
    if (op.opcode === "return") op.operands.forEach((v, i) => isLaneValue(fn, v) && found.add(i));
  });
  return found;
}

export class LaneCode {
  private pending: Pending[] = [];
  /** Lane values with a block allocated on entry. */
  private readonly blocks = new Set<number>();
  /** The ops using each value, by value id (terminators included). */
  private readonly uses = new Map<number, Op[]>();
  /** Lane values whose block is another's (a callee's result, a parameter): never written. */
  private readonly borrowed = new Set<number>();
  private accesses = 0;

  constructor(private readonly host: LaneHost) {
    forEachOp(host.fn.body, (op) => {
      for (const v of op.operands) {
        let list = this.uses.get(v.id);
        if (!list) this.uses.set(v.id, (list = []));
        list.push(op);
      }
    });
    for (const p of host.fn.params) if (this.isLane(p)) this.borrowed.add(p.id);
    host.declareLocal("$k", "i32");
    host.declareLocal("$q", "i32");
    host.declareLocal("$q8", "i32");
  }

  isLane(v: Value): boolean {
    return isLaneValue(this.host.fn, v);
  }

  /** Whether `op` computes lanes or stores them (it joins the loop over the lanes). */
  isLaneOp(op: Op): boolean {
    if (!op.tangent || op.regions.length > 0) return false;
    if (op.opcode === "call" || op.opcode === "return" || op.opcode === "yield") return false;
    if (op.opcode === "condition") return false;
    return op.results.some((r) => this.isLane(r)) || op.operands.some((v) => this.isLane(v));
  }

  /**
   * Whether the non-lane op `op` must wait for the pending lane statements: it reads lanes,
   * has regions (whose code may read or write them), calls, returns, or writes tangent memory.
   */
  mustFlushBefore(op: Op): boolean {
    if (this.pending.length === 0) return false;
    if (op.regions.length > 0 || op.opcode === "call" || op.opcode === "return") return true;
    if (op.operands.some((v) => this.isLane(v))) return true;
    return op.tangent === true && WRITES.has(op.opcode);
  }

  /** The prologue: k as an i32 and every block this call owns. */
  prologue(): string[] {
    const lines = ["(local.set $k (i32.trunc_sat_f64_u (local.get $kf)))"];
    for (const id of this.blocks)
      lines.push(`(local.set $v${id} (call $allocCells (local.get $k)))`);
    return lines;
  }

  /** A lane value that gets a block of its own on entry (a loop's or a branch's carried value). */
  own(v: Value): void {
    this.host.define(v);
    this.blocks.add(v.id);
  }

  /** A lane value whose local is an address given to it (a callee's result): no block of its own. */
  borrow(v: Value): void {
    this.host.define(v);
    this.borrowed.add(v.id);
  }

  /** Queues lane op `op` for the loop over the lanes. */
  op(op: Op): void {
    const r = op.results[0];
    const [a, b, c] = op.operands;
    const read = (v: Value) => this.read(v);
    const define = (expr: LaneText, pre?: string[]) => {
      const set = this.setLane(r!);
      this.pending.push({ op, ...(pre ? { pre } : {}), text: [set(expr)], defines: r! });
    };
    switch (op.opcode) {
      case "const": {
        if (typeof op.attrs.value !== "number") break;
        const value = `(f64.const ${f64Text(op.attrs.value)})`;
        return define((w) => (w ? `(f64x2.splat ${value})` : value));
      }
      case "add":
      case "sub":
      case "mul":
      case "div": {
        const [x, y] = [read(a!), read(b!)];
        return define((w) => `(${w ? "f64x2" : "f64"}.${op.opcode} ${x(w)} ${y(w)})`);
      }
      case "neg": {
        const x = read(a!);
        return define((w) => `(${w ? "f64x2" : "f64"}.neg ${x(w)})`);
      }
      case "select": {
        const [x, y, test] = [read(b!), read(c!), this.host.get(a!)];
        // A vector's mask: all ones where the test holds.
        const mask = `(i64x2.splat (i64.sub (i64.const 0) (i64.extend_i32_u ${test})))`;
        return define((w) =>
          w ? `(v128.bitselect ${x(w)} ${y(w)} ${mask})` : `(select ${x(w)} ${y(w)} ${test})`,
        );
      }
      case "detach":
      case "withDerivative":
        return define(read(a!));
      case "index": {
        const pre: string[] = [];
        const base = this.laneBase(a!, b!, (text) => pre.push(text));
        return define(this.load(`(i32.add (local.get ${base}) (local.get $q8))`), pre);
      }
      case "setIndex":
      case "addIndex": {
        const [array, i, v] = op.operands as [Value, Value, Value];
        // The array may move to a larger block: what waits for the loop stores into it first.
        const pre: string[] = [];
        if (isAppend(op)) this.flush();
        const emit = isAppend(op)
          ? (text: string) => this.host.line(text)
          : (text: string) => pre.push(text);
        const base = this.laneBase(array, i, emit, isAppend(op));
        const address = `(i32.add (local.get ${base}) (local.get $q8))`;
        const stored = read(v);
        const old = this.load(address);
        const sum: LaneText =
          op.opcode === "addIndex"
            ? (w) => `(${w ? "f64x2" : "f64"}.add ${old(w)} ${stored(w)})`
            : stored;
        const storage = (array.type as ArrayType).storage;
        // Integer arrays hold no derivative (their stores here would be nabla's mistake).
        if (isIntegerArray(array.type)) this.host.fail(`a derivative stored into an ${storage}`);
        const value = storage === "Float32Array" ? toFloat32(sum) : sum;
        this.pending.push({ op, pre, text: [store(address, value)] });
        if (op.opcode === "setIndex" && !isAppend(op)) this.guardAccumulation(op);
        return;
      }
      case "field": {
        const pre: string[] = [];
        const block = this.fieldBlock(a!, op.attrs.field!, pre);
        return define(this.load(`(i32.add (local.get ${block}) (local.get $q8))`), pre);
      }
      case "setField":
      case "addField": {
        const [object, v] = op.operands as [Value, Value];
        const pre: string[] = [];
        const block = this.fieldBlock(object, op.attrs.field!, pre);
        const address = `(i32.add (local.get ${block}) (local.get $q8))`;
        const stored = read(v);
        const old = this.load(address);
        const value: LaneText =
          op.opcode === "addField"
            ? (w) => `(${w ? "f64x2" : "f64"}.add ${old(w)} ${stored(w)})`
            : stored;
        this.pending.push({ op, pre, text: [store(address, value)] });
        if (op.opcode === "setField") this.guardAccumulation(op);
        return;
      }
      case "literal":
        return this.literal(op);
      case "zeros":
        if (r && this.isLane(r))
          return define((w) => (w ? "(f64x2.splat (f64.const 0))" : "(f64.const 0)"));
        break;
    }
    this.host.fail(
      `${op.opcode} of a tangent ${typeText(r?.type ?? a?.type ?? "void")} along several directions`,
    );
  }

  /**
   * For a store `d[i] = d[i] + e · s` or `d[i] − e · s` (or `o.f = o.f + e · s`) just queued,
   * with `s` a primal number: its lanes computed and stored only where s ≠ 0, in a loop of
   * their own, as the JavaScript backend does (emit/js/lane-emitter.ts, guardedLanes), so both
   * give the same results even where a lane of e is infinite or NaN. With sparse coefficients
   * this skips most of the work: GradBench's hand model skins each vertex with 2 of its 22
   * bones' weights non-zero. What the stored value alone reads goes with it; the rest of the
   * pending statements run first (what the update reads of them, from their blocks). Not done
   * when another pending statement stores (moving reads past it could change them).
   */
  private guardAccumulation(store: Op): void {
    const entries = new Map<number, Pending>();
    for (const p of this.pending) if (p.defines) entries.set(p.defines.id, p);
    const defining = (v: Value) => entries.get(v.id)?.op;
    // `d[i] = d[i] + …` or `o.f = o.f + …`: the stored value, and a read of the same place.
    const stored = store.operands[store.operands.length - 1]!;
    const sum = defining(stored);
    if (!sum || (sum.opcode !== "add" && sum.opcode !== "sub")) return;
    const samePlace = (v: Value) => {
      const read = defining(v);
      const reads = store.opcode === "setIndex" ? "index" : "field";
      return (
        read?.opcode === reads &&
        read.attrs.field === store.attrs.field &&
        read.operands.every((o, i) => o === store.operands[i])
      );
    };
    const scaledBy = (v: Value) => {
      const mul = defining(v);
      if (mul?.opcode !== "mul") return undefined;
      const [m, n] = mul.operands as [Value, Value];
      if (this.isLane(m) && !this.isLane(n)) return n;
      if (this.isLane(n) && !this.isLane(m)) return m;
      return undefined;
    };
    const [a, b] = sum.operands as [Value, Value];
    const s = samePlace(a)
      ? scaledBy(b)
      : sum.opcode === "add" && samePlace(b)
        ? scaledBy(a)
        : undefined;
    if (!s) return;
    // The statements only the stored value reads, back from it.
    const cone = new Set<Op>([store]);
    const inCone = (p: Pending) => p.op !== undefined && cone.has(p.op);
    for (const p of [...this.pending].reverse()) {
      if (!p.defines || !p.op) continue;
      const uses = this.uses.get(p.defines.id) ?? [];
      if (uses.length > 0 && uses.every((use) => cone.has(use))) cone.add(p.op);
    }
    // As the JavaScript backend's, which skips only where the sum, the read and the product are
    // written into the store (used by it alone): a product also used elsewhere is not skipped.
    const [x, y] = sum.operands as [Value, Value];
    const read = samePlace(x) ? x : y;
    const product = read === x ? y : x;
    if (![sum, defining(read), defining(product)].every((o) => o !== undefined && cone.has(o)))
      return;
    const rest = this.pending.filter((p) => !inCone(p));
    if (rest.some((p) => !p.defines)) return;
    // What the cone reads of the rest goes into blocks, read back in the cone's own loop.
    const guarded = this.pending.filter(inCone);
    this.pending = rest;
    this.flush();
    this.host.line(`(if (f64.ne ${this.host.num(s)} (f64.const 0)) (then`);
    this.pending = guarded;
    this.flush();
    this.host.line("))");
  }

  /** Emits the pending lane statements as one loop over the lanes. */
  flush(): void {
    if (this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    const inLoop = new Set(pending.flatMap((p) => (p.op ? [p.op] : [])));
    this.inThisLoop = new Set(pending.flatMap((p) => (p.defines ? [p.defines.id] : [])));
    for (const p of pending) for (const text of p.pre ?? []) this.host.line(text);
    const body: LaneText[] = [];
    for (const p of pending) {
      body.push(...p.text);
      const v = p.defines;
      if (!v) continue;
      // Read after the loop: into its block.
      if ((this.uses.get(v.id) ?? []).some((use) => !inLoop.has(use))) {
        this.host.define(v);
        this.blocks.add(v.id);
        body.push(store(`(i32.add (local.get $v${v.id}) (local.get $q8))`, this.read(v)));
      }
    }
    this.loopOverLanes(body);
    this.current.clear();
  }

  /**
   * `targets[i] = values[i]` for lane values, all at once (each lane of every value read, then
   * written: a target may be among the values), in the loop of the pending statements, then
   * run; `user`: the op reading the values (a yield), if any.
   */
  move(targets: Value[], values: Value[], user: Op | undefined): void {
    const pairs = targets.map((t, i) => ({ t, v: values[i]! })).filter(({ t, v }) => t !== v);
    if (pairs.length > 0) {
      const temp = (i: number, w: boolean) =>
        this.host.declareLocal(`$mv${i}${w ? "x2" : ""}`, w ? "v128" : "f64");
      const text: LaneText[] = [
        ...pairs.map(({ v }, i): LaneText => {
          const value = this.read(v);
          return (w) => `(local.set ${temp(i, w)} ${value(w)})`;
        }),
        ...pairs.map(({ t }, i) =>
          store(
            `(i32.add (local.get $v${t.id}) (local.get $q8))`,
            (w) => `(local.get ${temp(i, w)})`,
          ),
        ),
      ];
      for (const { t } of pairs) this.own(t);
      this.pending.push({ op: user, text });
    }
    this.flush();
  }

  /**
   * A lane value returned: its address, or for a block the caller owns (a parameter's) a copy,
   * which the caller may keep while it changes its own.
   */
  returned(v: Value): string {
    if (!this.borrowed.has(v.id) || !this.host.fn.params.includes(v)) return this.host.get(v);
    const copy = this.host.declareLocal("$returned", "i32");
    this.host.line(`(local.set ${copy} (call $allocCells (local.get $k)))`);
    this.host.line(
      `(memory.copy (i32.add (local.get ${copy}) (i32.const 8)) (i32.add ${this.host.get(v)} (i32.const 8)) (i32.shl (local.get $k) (i32.const 3)))`,
    );
    return `(local.get ${copy})`;
  }

  /** Lane values computed in pending statements, whose lanes are in their locals. */
  private readonly current = new Set<number>();
  /** The lane values the loop being emitted computes (others are read from their blocks). */
  private inThisLoop = new Set<number>();

  /** Sets the locals of `v`'s lanes to `expr`, in the pending loop. */
  private setLane(v: Value): (expr: LaneText) => LaneText {
    this.current.add(v.id);
    const scalar = this.host.declareLocal(`$l${v.id}`, "f64");
    const vector = this.host.declareLocal(`$l${v.id}x2`, "v128");
    return (expr) => (w) => `(local.set ${w ? vector : scalar} ${expr(w)})`;
  }

  /** Lane `$q` of `v`: a lane value's, or a primal number's (the same in every lane). */
  private read(v: Value): LaneText {
    if (!this.isLane(v)) {
      if (v.type !== "number" && v.type !== "boolean")
        this.host.fail(`a ${typeText(v.type)} in a tangent operation along several directions`);
      const value = this.host.num(v);
      return (w) => (w ? `(f64x2.splat ${value})` : value);
    }
    const load = this.load(`(i32.add ${this.host.get(v)} (local.get $q8))`);
    if (!this.current.has(v.id)) return load;
    // Computed by a pending statement: in its locals if that runs in the same loop (a guarded
    // update runs in a loop of its own: guardAccumulation), else from its block.
    return (w) => (this.inThisLoop.has(v.id) ? `(local.get $l${v.id}${w ? "x2" : ""})` : load(w));
  }

  /** The lane at `address` (less the 8 bytes of a header), or two from there. */
  private load(address: string): LaneText {
    return (w) => `(${w ? "v128" : "f64"}.load offset=8 ${address})`;
  }

  /**
   * The address of element `i`'s first lane in flat tangent array `array`, less the header's 8
   * bytes, in a local of its own, after checking that `i` is an integer and its k lanes are in
   * the array (it traps otherwise, and the call runs as JavaScript); `emit` takes the lines
   * that compute it. For an append (`append`), room for the element is made first.
   */
  private laneBase(array: Value, i: Value, emit: (text: string) => void, append = false): string {
    const type = array.type;
    if (!isArray(type) || isObject(type) || type.element !== "number")
      this.host.fail(`lanes of an element of a ${typeText(type)}`);
    if (i.type !== "number") this.host.fail("an element read by a key that is not a number");
    const base = this.host.declareLocal(`$la${this.accesses++}`, "i32");
    if (this.host.isInt(i)) {
      emit(`(local.set ${base} ${this.host.get(i)})`);
    } else {
      emit(`(local.set ${base} (i32.trunc_sat_f64_u ${this.host.get(i)}))`);
      emit(
        `(if (f64.ne (f64.convert_i32_u (local.get ${base})) ${this.host.get(i)}) (then unreachable))`,
      );
    }
    // Its first cell, i·k, and its k cells within the length (as i64: no overflow, and a
    // negative i, unsigned, is out of range too).
    const first = `(i64.mul (i64.extend_i32_u (local.get ${base})) (i64.extend_i32_u (local.get $k)))`;
    if (append) this.host.laneAppendRoom(array, first);
    emit(
      `(if (i64.gt_u (i64.add ${first} (i64.extend_i32_u (local.get $k))) (i64.extend_i32_u ${this.host.lengthOf(array)})) (then unreachable))`,
    );
    emit(
      `(local.set ${base} (i32.add ${this.host.get(array)} (i32.shl (i32.mul (local.get ${base}) (local.get $k)) (i32.const 3))))`,
    );
    return base;
  }

  /** A flat literal of lanes (`[dx, dy]`): a new array of n·k cells, each lane written. */
  private literal(op: Op): void {
    const r = op.results[0]!;
    const type = r.type;
    if (isObject(type)) return this.objectLiteral(op, type);
    if (!isArray(type) || type.element !== "number")
      this.host.fail(`an array of tangents along several directions (${typeText(type)})`);
    const n = op.operands.length;
    const allocate = this.host.isGrowing(r) ? "$allocGrowable" : "$allocCells";
    this.host.line(
      `(local.set ${this.host.define(r)} (call ${allocate} (i32.mul (i32.const ${n}) (local.get $k))))`,
    );
    const text = op.operands.map((v, i) =>
      store(
        `(i32.add ${this.host.get(r)} (i32.shl (i32.add (i32.mul (i32.const ${i}) (local.get $k)) (local.get $q)) (i32.const 3)))`,
        this.read(v),
      ),
    );
    this.pending.push({ op, text });
  }

  /**
   * The block of lanes of number field `name` of tangent object `object`, its address into a
   * local by `pre`'s lines (a field not yet written, address 0, traps).
   */
  private fieldBlock(object: Value, name: string, pre: string[]): string {
    const type = object.type;
    if (!isObject(type)) return this.host.fail(`the field '${name}' of a ${typeText(type)}`);
    const k = type.fields.findIndex((f) => f.name === name);
    const field = type.fields[k];
    if (!field || field.type !== "number" || field.optional)
      this.host.fail(`the field '${name}' of ${typeText(type)} along several directions`);
    const block = this.host.declareLocal(`$la${this.accesses++}`, "i32");
    pre.push(`(local.set ${block} (i32.load offset=${8 + 8 * k} ${this.host.get(object)}))`);
    pre.push(`(if (i32.eqz (local.get ${block})) (then unreachable))`);
    return block;
  }

  /**
   * An object of tangents (`{ x: dx, y: dy }`): a block of its fields, each number field the
   * address of a new block of k lanes, which the loop over the lanes fills; other fields
   * (arrays, objects) hold their addresses, as elsewhere.
   */
  private objectLiteral(op: Op, type: ObjectType): void {
    const r = op.results[0]!;
    const object = this.host.define(r);
    this.host.line(`(local.set ${object} (call $allocCells (i32.const ${type.fields.length})))`);
    const text: LaneText[] = [];
    type.fields.forEach((f, k) => {
      const v = op.operands[k]!;
      if (f.optional) this.host.fail(`an object of tangents with an optional field '${f.name}'`);
      const cell = `offset=${8 + 8 * k} (local.get ${object})`;
      if (f.type !== "number") {
        this.host.line(`(i32.store ${cell} ${this.host.get(v)})`);
        return;
      }
      const block = this.host.declareLocal(`$la${this.accesses++}`, "i32");
      this.host.line(`(local.set ${block} (call $allocCells (local.get $k)))`);
      this.host.line(`(i32.store ${cell} (local.get ${block}))`);
      text.push(store(`(i32.add (local.get ${block}) (local.get $q8))`, this.read(v)));
    });
    this.pending.push({ op, text });
  }

  /** The loop over the lanes: two at a time, then the last one alone when k is odd. */
  private loopOverLanes(body: LaneText[]): void {
    const n = this.host.label();
    const line = (text: string) => this.host.line(text);
    line("(local.set $q (i32.const 0))");
    line("(local.set $q8 (i32.const 0))");
    line(`(block $lanes_done${n}`);
    line(`  (loop $lanes_next${n}`);
    line(
      `    (br_if $lanes_done${n} (i32.gt_u (i32.add (local.get $q) (i32.const 2)) (local.get $k)))`,
    );
    for (const text of body) line(`    ${text(true)}`);
    line("    (local.set $q (i32.add (local.get $q) (i32.const 2)))");
    line("    (local.set $q8 (i32.add (local.get $q8) (i32.const 16)))");
    line(`    (br $lanes_next${n})))`);
    line("(if (i32.lt_u (local.get $q) (local.get $k)) (then");
    for (const text of body) line(`  ${text(false)}`);
    line("))");
  }
}

/** Stores lane `$q` (or two) of `value` at `address` (less the 8 bytes of a header). */
function store(address: string, value: LaneText): LaneText {
  return (w) => `(${w ? "v128" : "f64"}.store offset=8 ${address} ${value(w)})`;
}

/** Rounded to float32 and back, as a store into a Float32Array rounds. */
function toFloat32(value: LaneText): LaneText {
  return (w) =>
    w
      ? `(f64x2.promote_low_f32x4 (f32x4.demote_f64x2_zero ${value(w)}))`
      : `(f64.promote_f32 (f32.demote_f64 ${value(w)}))`;
}

/** Ops that write memory (a tangent one, waiting lane statements may read it). */
const WRITES = new Set([
  "setIndex",
  "addIndex",
  "setField",
  "addField",
  "clear",
  "truncate",
  "push",
]);
