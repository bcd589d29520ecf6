import { arrowFieldInstaller, writtenFunction } from "./written-function.js";
import {
  type IRFunction,
  type Op,
  type Region,
  type SourceLoc,
  type Type,
  type Value,
} from "../../ir/types.js";
import * as js from "./expression.js";
import { MAX_INLINE_DEPTH } from "./expression.js";
import { isAggregate, isArray, isKeyed, isMap, isObject, isSet } from "../../ir/type-system.js";
import { allocation, clearing, literalOf, tangentAllocation, zerosLike } from "./aggregates.js";
import type { Expr } from "./expression.js";
import { isFlatLanes, laneAllocation, laneZerosLike } from "./lanes.js";
import { LaneEmitter, type LaneHost } from "./lane-emitter.js";
import { emitIf, emitLoop, type FlowHost } from "./control-flow.js";
import type { EmitNames, EmittedLine } from "./emitted.js";
export type { EmitNames, EmittedLine } from "./emitted.js";
import type { Builtins } from "./module-names.js";
import { isPure, WRITES_MEMORY } from "../../ir/ops.js";
import { forEachOp } from "../../ir/walk.js";

// IR function → readable JavaScript. Values used once in the region that defines them are
// inlined into their use as expressions; the others become `const`s named after the source
// variable they hold. `if` results and loop-carried values become `let`s. Extra results of a
// function (a derivative's value after its tangent) travel in the runtime's `out` register.

const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else export extends false finally for function if " +
    "import in instanceof new null return super switch this throw true try typeof var void while with yield let static " +
    "enum await implements package protected interface private public arguments eval undefined NaN Infinity " +
    // The platform's globals generated code reads: no local may hide them.
    "Math Array Float64Array Float32Array Int32Array Uint32Array Int16Array Uint16Array Int8Array Uint8Array Uint8ClampedArray Map Set Number String Object TypeError Error RangeError isNaN isFinite " +
    "parseFloat parseInt console globalThis"
  ).split(" "),
);

const BINARY_TEXT: Record<string, string> = {
  add: "+",
  sub: "-",
  mul: "*",
  div: "/",
  rem: "%",
  pow: "**",
  lt: "<",
  le: "<=",
  gt: ">",
  ge: ">=",
  eq: "===",
  ne: "!==",
  and: "&&",
  or: "||",
};

/**
 * The arrows given to `withDerivative` that `fns` call, as module-level function declarations
 * (hoisted, so derivatives computed while the module loads find them): name → JavaScript.
 */
export function hoistedAdjustments(
  fns: IRFunction[],
  nameOf: (name: string) => string,
  param: string,
  sourceText: (file: string) => string,
): EmittedLine[][] {
  const found = new Map<string, Op>();
  const comparators = new Map<string, Op>();
  for (const fn of fns)
    forEachOp(fn.body, (op) => {
      if (op.opcode === "adjust" && op.attrs.written) found.set(op.attrs.callee!, op);
      if (op.attrs.comparator && op.attrs.written) comparators.set(op.attrs.comparator, op);
    });
  const line = (op: Op, text: string) => [{ text, indent: 0, loc: op.loc }];
  return [
    ...[...found].map(([name, op]) =>
      line(
        op,
        `function ${nameOf(name)}(${param}) { return (${writtenFunction(op, sourceText)})(${param}); }`,
      ),
    ),
    // A sort's comparator written at the call (lower/array-sort.ts), which the engine's sort calls.
    // A function of the local variables it reads, making the comparator.
    ...[...comparators].map(([name, op]) =>
      line(
        op,
        `function ${nameOf(name)}(${(op.attrs.reads ?? []).join(", ")}) { return ${writtenFunction(op, sourceText)}; }`,
      ),
    ),
  ];
}

/** A derivative nabla could not build for an optional demand (IRFunction.stub): it throws. */
export function emitUnavailable(fn: IRFunction, builtin: Builtins): EmittedLine[] {
  return [
    { text: `export function ${fn.name}() {`, indent: 0, loc: fn.loc },
    {
      text: `throw new ${builtin("TypeError")}(${JSON.stringify(fn.stub)});`,
      indent: 1,
      loc: fn.loc,
    },
    { text: "}", indent: 0, loc: undefined },
  ];
}

export function emitFunction(fn: IRFunction, names: EmitNames, exported: boolean): EmittedLine[] {
  return new FunctionEmitter(fn, names).emit(exported);
}

class FunctionEmitter implements LaneHost, FlowHost {
  readonly lines: EmittedLine[] = [];
  private readonly taken = new Set<string>(RESERVED);
  /** Per base name, the suffix to try next (see `take`). */
  private readonly suffixes = new Map<string, number>();
  readonly names = new Map<number, string>();
  readonly inlined = new Map<number, Expr>();
  /** How deeply each inlined expression nests others (see MAX_INLINE_DEPTH). */
  readonly depths = new Map<number, number>();
  readonly useCount = new Map<number, number>();
  readonly useRegion = new Map<number, Region>();
  /**
   * Inlined values not used yet whose expression reads arrays or objects: a write must not
   * happen between the read and its use, so they become `const`s before any write.
   */
  readonly pendingReads = new Map<number, Value>();
  indent = 0;

  /** Whether the function pushes to or pops from the reverse-mode tape. */
  private pushes = false;
  private usesTape = false;

  /** A JVP along k directions at once: how its lanes are emitted (see lane-emitter.ts). */
  readonly lanes: LaneEmitter | undefined;
  /** Values lane statements read (primal coefficients, indices, shadows): never inlined. */
  private readonly feedsLanes = new Set<number>();
  /** The op defining each value. */
  readonly definitions = new Map<number, Op>();
  /** Locals holding the reverse-mode tape's buffer and height, in a function that uses it. */
  private tape = "";
  private top = "";

  constructor(
    readonly fn: IRFunction,
    readonly emitNames: EmitNames,
  ) {
    this.lanes = fn.lanes === true ? new LaneEmitter(this) : undefined;
    this.taken.add(emitNames.runtime);
    this.countUses(fn.body);
    if (this.usesTape) {
      // Fresh like any local: a function of the program may be named `$tape`.
      this.tape = this.fresh("$tape");
      this.top = this.fresh("$top");
    }
  }

  emit(exported: boolean): EmittedLine[] {
    const params = this.fn.params.map((p) => this.declare(p));
    if (this.lanes) params.push(this.lanes.nameLanes());
    this.line(
      `${exported ? "export " : ""}function ${this.fn.name}(${params.join(", ")}) {`,
      this.fn.loc,
    );
    this.indent++;
    const buffersAt = this.lines.length;
    if (this.usesTape) {
      // The tape's buffer and height live in locals (registers) while this function runs; the
      // shared `tape` object is brought up to date around derivative calls and on return.
      this.line(
        `let ${this.tape} = ${this.tapeObject}.buffer, ${this.top} = ${this.tapeObject}.top;`,
        undefined,
      );
    }
    this.region(this.fn.body);
    this.lanes?.flushLanes();
    this.lanes?.declareBuffers(buffersAt);
    this.indent--;
    this.line("}", undefined);
    return this.lines;
  }

  /** A fresh name that no value takes. */
  fresh(base: string): string {
    return this.take(base, base);
  }

  /**
   * `candidate`, or the first `${base}_${i}` not taken. Names are never released, so the
   * search for a base goes on from where it last stopped (a function with thousands of `t`s).
   */
  private take(base: string, candidate: string): string {
    if (this.taken.has(candidate)) {
      let i = this.suffixes.get(base) ?? 1;
      while (this.taken.has(`${base}_${i}`)) i++;
      this.suffixes.set(base, i + 1);
      candidate = `${base}_${i}`;
    }
    this.taken.add(candidate);
    return candidate;
  }

  /** Whether `v` is a tangent number of a function along k directions: k lanes. */
  isLane(v: Value): boolean {
    return this.lanes?.isLane(v) ?? false;
  }

  /** A module-level constant, or a user function as a value. */
  private globalName(op: Op): string {
    return op.attrs.function
      ? this.emitNames.functionValue(op.attrs.function)
      : this.emitNames.global(op.attrs.callee!);
  }

  /** An outside function; `nabla:name` is a function of nabla's runtime. */
  private externName(op: Op): string {
    const callee = op.attrs.callee!;
    return callee.startsWith("nabla:")
      ? `${this.emitNames.runtime}.${callee.slice("nabla:".length)}`
      : this.platformPath(callee);
  }

  /** The function an `adjust` op calls: a module-level function, or a hoisted arrow. */
  private adjustment(op: Op): string {
    return op.attrs.written
      ? this.emitNames.hoisted(op.attrs.callee!)
      : this.emitNames.global(op.attrs.callee!);
  }

  /** How this module reads the platform's global `name`. */
  builtin(name: string): string {
    return this.emitNames.builtin(name);
  }

  /** A dotted path of the platform (`Math.floor`, `console.log`, `String`), read as such. */
  private platformPath(path: string): string {
    const dot = path.indexOf(".");
    return dot < 0 ? this.builtin(path) : this.builtin(path.slice(0, dot)) + path.slice(dot);
  }

  private countUses(region: Region): void {
    for (const op of region.ops) {
      for (const r of op.results) this.definitions.set(r.id, op);
      // A guarded store names its place twice (the test, the store): never inlined there.
      op.operands.forEach((v, k) => {
        const uses = op.attrs.ifExists && k < 2 ? 2 : 1;
        this.useCount.set(v.id, (this.useCount.get(v.id) ?? 0) + uses);
        this.useRegion.set(v.id, region);
      });
      // A lane loop would compute an inlined coefficient, index or shadow once per lane.
      if (this.lanes?.isLaneOp(op))
        for (const v of op.operands) if (!this.isLane(v)) this.feedsLanes.add(v.id);
      // Locals must not shadow the outside names the function refers to.
      if (op.opcode === "extern") this.taken.add(this.externName(op).split(".")[0]!);
      if (op.opcode === "global") this.taken.add(this.globalName(op));
      // `schedule[1](…)`, `scenario.load(…)`: a function in module data, read through its object.
      if (op.opcode === "call") this.taken.add(this.emitNames.callee(op).split(/[.[]/)[0]!);
      if (op.opcode === "adjust") this.taken.add(this.adjustment(op));
      if (op.opcode === "literal" && op.attrs.arrowFields && op.attrs.instanceOf)
        this.taken.add(this.emitNames.hoisted(arrowFieldInstaller(op)));
      if (op.opcode === "push" || op.opcode === "reserve") this.pushes = this.usesTape = true;
      if (op.opcode === "pop") this.usesTape = true;
      op.regions.forEach((r) => this.countUses(r));
    }
  }

  line(text: string, loc: SourceLoc | undefined): void {
    this.lanes?.flushLanes();
    this.lines.push({ text, indent: this.indent, loc });
  }

  /**
   * A line that is no call, return or assignment of a variable: a `const`, or a write of
   * memory other than lanes (primal memory, or an array or object into a tangent array or
   * object). Lane statements waiting for their loop read neither what it defines (they come
   * before it) nor such memory (they read lanes, through names bound before), so it goes
   * before them, and they stay in one loop with the lane statements after it.
   */
  primalLine(text: string, loc: SourceLoc | undefined): void {
    this.lines.push({ text, indent: this.indent, loc });
  }

  /** Picks a fresh JavaScript name for a value, from its source hint. */
  declare(v: Value, preferred?: string): string {
    const base = (preferred ?? v.hint).replace(/[^A-Za-z0-9_$]/g, "_") || "t";
    const candidate = this.take(base, /^[0-9]/.test(base) ? `_${base}` : base);
    this.names.set(v.id, candidate);
    return candidate;
  }

  alias(v: Value, existing: string): void {
    this.names.set(v.id, existing);
  }

  ref(v: Value): Expr {
    const inline = this.inlined.get(v.id);
    if (inline) {
      this.pendingReads.delete(v.id);
      return inline;
    }
    const n = this.names.get(v.id);
    if (n === undefined)
      throw new Error(`internal: emit found no name for %${v.id} in ${this.fn.name}`);
    // A lane value reads its lane q, inside a loop over the lanes.
    if (this.isLane(v)) return js.element(js.name(n), js.name(this.lanes!.q));
    return js.name(n);
  }

  region(region: Region): void {
    for (const op of region.ops) this.op(op, region);
  }

  private shouldInline(op: Op, region: Region): boolean {
    if (op.results.length !== 1 || op.regions.length > 0 || !isPure(op)) return false;
    const r = op.results[0]!;
    if (op.opcode === "const" || op.opcode === "global") return true;
    if (this.inlineDepth(op.operands) > MAX_INLINE_DEPTH) return false;
    if (this.feedsLanes.has(r.id)) return false;
    // A literal of lanes is built by lane statements after it is allocated.
    if (this.lanes && op.opcode === "literal" && op.operands.some((v) => this.isLane(v)))
      return false;
    return this.useCount.get(r.id) === 1 && this.useRegion.get(r.id) === region;
  }

  /** How deeply an expression of `operands` nests the inlined expressions among them. */
  inlineDepth(operands: Value[]): number {
    let depth = 0;
    for (const v of operands)
      if (this.inlined.has(v.id)) depth = Math.max(depth, this.depths.get(v.id) ?? 1);
    return depth + 1;
  }

  /** Gives the pending memory reads their own `const`s, in order, before a write. */
  private settleReads(writer?: Op): void {
    for (const [id, v] of this.pendingReads) {
      // Generated code keeps primal and tangent memory apart (shadows are its own arrays, and
      // the tangents callers pass are copies): in a JVP along k directions, where every read
      // of lanes that waits costs a copy, a write of one does not settle reads of the other.
      if (this.lanes && writer && writer.opcode !== "call" && writer.regions.length === 0) {
        if (!writer.tangent !== !this.tangentReads.has(id)) continue;
        // `d[i] = d[i] + …` reads before it stores.
        if (writer.operands.some((o) => o.id === id)) continue;
      }
      const expr = this.inlined.get(id)!;
      this.inlined.delete(id);
      this.pendingReads.delete(id);
      if (this.isLane(v))
        this.lanes!.laneLine(
          `${this.lanes!.ownedBuffer(v)}[${this.lanes!.q}] = ${expr.text};`,
          undefined,
        );
      else this.primalLine(`const ${this.declare(v)} = ${expr.text};`, undefined);
    }
  }

  private readsMemory(op: Op): boolean {
    return (
      op.opcode === "field" ||
      op.opcode === "index" ||
      op.opcode === "length" ||
      // A platform function of its operands (`m.has(k)`, `Object.keys(r)`) reads them when it
      // runs: inlined past `m.set(k, v)`, it would see the write.
      op.opcode === "nondiff" ||
      op.operands.some((v) => this.memoryReads.has(v.id))
    );
  }

  readonly memoryReads = new Set<number>();
  /** Inlined reads of tangent memory (shadows). */
  private readonly tangentReads = new Set<number>();

  private op(op: Op, region: Region): void {
    if (WRITES_MEMORY.has(op.opcode) || op.regions.length > 0) this.settleReads(op);
    // Lane statements before an `if` or a loop go before it, at this indentation.
    if (op.regions.length > 0) this.lanes?.flushLanes();
    switch (op.opcode) {
      case "if":
        return emitIf(this, op, region);
      case "closure":
        return this.emitClosure(op);
      case "loop":
        return emitLoop(this, op);
      case "yield":
      case "condition":
        return; // handled by the owner of the region
      case "return":
        return this.emitReturn(op);
      case "extern":
        this.line(`${this.expression(op).text};`, op.loc);
        return;
      case "push":
        return this.emitPush(op, region);
      case "reserve": {
        const count = this.ref(op.operands[0]!);
        const full = js.binary(
          ">",
          js.binary("+", js.name(this.top), count),
          js.member(js.name(this.tape), "length"),
        );
        this.line(
          `if (${full.text}) ${this.tape} = ${this.emitNames.runtime}.growTape(${this.top}, ${count.text});`,
          op.loc,
        );
        return;
      }
      case "setField":
      case "setIndex":
      case "addField":
      case "addIndex":
        return this.emitStore(op);
      case "truncate":
        return this.emitTruncate(op);
      case "clear":
        this.line(
          `${clearing(op.operands[0]!.type, this.ref(op.operands[0]!), this.emitNames.runtime)};`,
          op.loc,
        );
        return;
      case "peak":
        if (this.pushes)
          this.line(
            `if (${this.top} > ${this.tapeObject}.peak) ${this.tapeObject}.peak = ${this.top};`,
            op.loc,
          );
        return;
      case "call":
        // Any callee may use the tape (a derivative, or a helper that takes a gradient itself).
        if (this.usesTape && !op.attrs.tapeless) return this.emitTapeCall(op, region);
        if (op.results.length > 1) return this.emitMultiResultCall(op);
        break;
    }
    this.emitCallStatement(op, region);
  }

  /**
   * `xs.length = n` (`pop`, `shift`, `splice`). A flat tangent array of k directions holds k
   * lanes per element; its lane statements run first, or they would write past the end.
   */
  private emitTruncate(op: Op): void {
    const [array, length] = op.operands.map((v) => this.ref(v)) as [Expr, Expr];
    const lanes = this.lanes && op.tangent && isFlatLanes(op.operands[0]!.type);
    const kept = lanes ? js.binary("*", length, js.name(this.lanes!.k)) : length;
    const text = `${js.member(array, "length").text} = ${kept.text};`;
    if (op.tangent) this.line(text, op.loc);
    else this.primalLine(text, op.loc);
  }

  private emitStore(op: Op): void {
    if (this.isLane(op.operands[op.operands.length - 1]!)) return this.lanes!.emitLaneStore(op);
    const [target, ...rest] = op.operands.map((v) => this.ref(v));
    const value = rest[rest.length - 1]!;
    if (op.attrs.undoesStore) {
      // A pullback run again redoes it first (runtime/store-journal.ts).
      const key = op.opcode === "setField" ? js.literal(op.attrs.field!) : rest[0]!;
      const call = `${this.emitNames.runtime}.undoStore(${target!.text}, ${key.text}, ${value.text});`;
      return this.primalLine(call, op.loc);
    }
    if (isKeyed(op.operands[0]!.type)) return this.emitKeyedStore(op, target!, rest[0]!, value);
    // An object literal leading the statement would open a block: `({ v: 0 }).next = …` (a
    // write to a tangent object nothing reads afterwards, inlined where it is used once).
    const base = target!.text.startsWith("{")
      ? js.raw(`(${target!.text})`, js.PREC.primary, [target!])
      : target!;
    const place =
      op.opcode === "setField" || op.opcode === "addField"
        ? js.member(base, op.attrs.field!)
        : js.element(base, rest[0]!);
    const assign = op.opcode === "addField" || op.opcode === "addIndex" ? "+=" : "=";
    // Its array and index are never inlined (countUses), so the test evaluates nothing twice.
    const guard = op.attrs.ifExists ? `if (${place.text} !== undefined) ` : "";
    this.primalLine(`${guard}${place.text} ${assign} ${value.text};`, op.loc);
  }

  /**
   * `r[k] = v`, `m.set(k, v)`. An adjoint adds to what the key holds, zero when the shadow
   * lacks the key (a key the primal gained where no derivative code ran, e.g. a checkpoint).
   */
  private emitKeyedStore(op: Op, target: Expr, key: Expr, value: Expr): void {
    // A set stores keys only: `s.add(k)`.
    if (isSet(op.operands[0]!.type)) {
      const method = op.attrs.deletes ? "delete" : "add";
      return this.primalLine(`${js.member(target, method).text}(${key.text});`, op.loc);
    }
    const map = isMap(op.operands[0]!.type);
    if (op.attrs.deletes) {
      const gone = map
        ? `${js.member(target, "delete").text}(${key.text})`
        : `delete ${js.element(target, key).text}`;
      return this.primalLine(`${gone};`, op.loc);
    }
    const current = map ? js.call(js.member(target, "get").text, [key]) : js.element(target, key);
    const stored =
      op.opcode === "addIndex"
        ? js.binary("+", js.raw(`(${current.text} ?? 0)`, js.PREC.primary, [current]), value)
        : value;
    const guard = op.attrs.ifExists ? `if (${current.text} !== undefined) ` : "";
    const store = map
      ? `${js.member(target, "set").text}(${key.text}, ${stored.text})`
      : `${current.text} = ${stored.text}`;
    this.primalLine(`${guard}${store};`, op.loc);
  }

  /** An op that is a statement or a `const` (calls and other single-result ops). */
  private emitCallStatement(op: Op, region: Region): void {
    if (this.lanes && op.opcode === "literal" && op.operands.some((v) => this.isLane(v)))
      return this.lanes!.emitLaneLiteral(op);
    const expr = this.expression(op);
    if (this.shouldInline(op, region)) {
      const id = op.results[0]!.id;
      this.inlined.set(id, expr);
      this.depths.set(id, this.inlineDepth(op.operands));
      if (this.readsMemory(op)) {
        this.memoryReads.add(id);
        this.pendingReads.set(id, op.results[0]!);
        if (op.tangent) this.tangentReads.add(id);
      }
      return;
    }
    const result = op.results[0];
    const emit = (text: string) =>
      op.opcode === "call" || op.opcode === "extern"
        ? this.line(text, op.loc)
        : this.primalLine(text, op.loc);
    if (!result || (this.useCount.get(result.id) ?? 0) === 0) {
      emit(`${expr.text};`);
      return;
    }
    if (this.isLane(result) && op.opcode !== "call") {
      this.lanes!.laneLine(
        `${this.lanes!.ownedBuffer(result)}[${this.lanes!.q}] = ${expr.text};`,
        op.loc,
      );
      return;
    }
    emit(`const ${this.declare(result)} = ${expr.text};`);
  }

  /** A constant; `undefined`, `NaN` and `Infinity` are globals a module may hide. */
  /** A value no code assigned: a `const` without a value (it reads as undefined). */
  private isAbsent(v: Value): boolean {
    const op = this.definitions.get(v.id);
    return op?.opcode === "const" && op.attrs.value === undefined && !op.attrs.isNull;
  }

  private constant(value: number | boolean | string | undefined): Expr {
    if (value === undefined) return js.name(this.builtin("undefined"));
    if (typeof value !== "number" || Number.isFinite(value)) return js.literal(value);
    const name = js.name(this.builtin(Number.isNaN(value) ? "NaN" : "Infinity"));
    return value < 0 ? js.unary("-", name) : name;
  }

  private expression(op: Op): Expr {
    if (this.lanes && op.opcode === "call" && op.attrs.primal) return this.lanes!.laneCall(op);
    const args = op.operands.map((v) => this.ref(v));
    const [a, b] = args as [Expr, Expr];
    const laneResult = op.results.length === 1 && this.isLane(op.results[0]!);
    const tangentLanes = this.lanes && op.tangent === true;
    switch (op.opcode) {
      case "const":
        return op.attrs.isNull ? js.name("null") : this.constant(op.attrs.value);
      case "field":
        if (laneResult) return js.element(js.member(a, op.attrs.field!), js.name(this.lanes!.q));
        return js.member(a, op.attrs.field!);
      case "index":
        if (laneResult)
          return isFlatLanes(op.operands[0]!.type)
            ? js.element(a, this.lanes!.laneIndex(b))
            : js.element(js.element(a, b), js.name(this.lanes!.q));
        if (isMap(op.operands[0]!.type)) return js.call(js.member(a, "get").text, [b]);
        if (isSet(op.operands[0]!.type)) return js.call(js.member(a, "has").text, [b]);
        return js.element(a, b);
      case "length":
        return js.member(a, "length");
      case "alloc": {
        const type = op.results[0]!.type;
        if (tangentLanes) return laneAllocation(type, a, this.lanes!.k, this.emitNames.builtin);
        return op.tangent && isArray(type) && type.storage !== "Array"
          ? tangentAllocation(type.storage, a, this.emitNames.runtime)
          : allocation(type, a, this.emitNames.builtin, op.attrs.holes && !op.tangent);
      }
      case "literal": {
        const type = op.results[0]!.type;
        if (!isObject(type)) return literalOf(type, args, this.emitNames.builtin);
        // An optional field nothing was written to is left out, as the source left it out:
        // `"f" in o` and spreads then see it missing. A key written undefined is kept.
        const omittable = op.attrs.omittable;
        const written = type.fields.flatMap((f, i): [string, Expr][] =>
          this.isAbsent(op.operands[i]!) && (!omittable || omittable.includes(f.name))
            ? []
            : [[f.name, args[i]!]],
        );
        if (!op.attrs.instanceOf) return js.objectLiteral(written);
        // A constructor's instance: an object of its class, so the class's methods run on it.
        const proto = js.name(`${op.attrs.instanceOf}.prototype`);
        const created = js.call(`${this.builtin("Object")}.create`, [proto]);
        const instance = js.call(`${this.builtin("Object")}.assign`, [
          created,
          js.objectLiteral(written),
        ]);
        // Its arrow-function fields, which its constructor's IR does not build (see
        // hoistedArrowFields).
        if (!op.attrs.arrowFields) return instance;
        return js.call(`${this.emitNames.hoisted(arrowFieldInstaller(op))}.call`, [instance]);
      }
      case "zeros":
        if (tangentLanes)
          return laneZerosLike(op.results[0]!.type, a, this.lanes!.k, this.emitNames.builtin);
        return zerosLike(op.results[0]!.type, a, this.emitNames.runtime, this.emitNames.builtin);
      case "detach":
      case "withDerivative":
        return a;
      case "adjust":
        // A module-level function, or an arrow written at the call hoisted to one (see
        // hoistedAdjustments), so no generated local can shadow what it reads.
        return js.call(this.adjustment(op), args);
      case "neg":
        return js.unary("-", a);
      case "not":
        return js.unary("!", a);
      case "truthy":
        return js.unary("!!", a);
      case "nullish":
        return js.raw(`${js.operand(a, js.PREC.relational)} == null`, js.PREC.equality, [a]);
      case "select":
        return js.conditional(a, b, args[2]!);
      case "math":
        return js.call(`${this.builtin("Math")}.${op.attrs.callee}`, args);
      case "global":
        // `() => x` read in a try: a `const` not yet initialized throws a ReferenceError.
        return op.attrs.mayBeUninitialized
          ? js.call(`${this.emitNames.runtime}.readIfInitialized`, [
              js.raw(`() => ${this.globalName(op)}`, js.PREC.conditional, []),
            ])
          : js.name(this.globalName(op));
      case "extern":
        return js.call(this.externName(op), args);
      case "call":
        if (op.attrs.method && op.attrs.superOf && !op.attrs.primal) {
          // `super.m(…)`: the base's method on this object, not the object's own override.
          const home = js.member(
            js.name(`${this.emitNames.global(op.attrs.superOf)}.prototype`),
            op.attrs.method,
          );
          if (op.attrs.getter)
            return js.call(`${this.builtin("Reflect")}.get`, [
              js.name(`${this.emitNames.global(op.attrs.superOf)}.prototype`),
              js.literal(op.attrs.method),
              a,
            ]);
          return js.call(`${home.text}.call`, args);
        }
        if (op.attrs.method && !op.attrs.primal) {
          const member = js.member(a, op.attrs.method);
          if (this.emitNames.spreadsRest(op))
            return js.call(member.text, [...args.slice(1, -1), spread(args[args.length - 1]!)]);
          if (op.attrs.setter)
            return js.raw(
              `${member.text} = ${js.operand(args[1]!, js.PREC.conditional)}`,
              js.PREC.conditional,
              args,
            );
          return op.attrs.getter ? member : js.call(member.text, args.slice(1));
        }
        if (this.emitNames.spreadsRest(op))
          return js.call(this.emitNames.callee(op), [
            ...args.slice(0, -1),
            spread(args[args.length - 1]!),
          ]);
        return js.call(this.emitNames.callee(op), args);
      case "pop": {
        if (onObjectStack(op.results[0]!.type))
          return js.call(`${this.tapeObject}.objects.pop`, []);
        const popped: Expr = {
          text: `${this.tape}[--${this.top}]`,
          prec: js.PREC.primary,
          refs: new Set([this.tape, this.top]),
        };
        if (op.attrs.value === "int") return js.binary("|", popped, js.literal(0));
        return op.results[0]!.type === "boolean" ? js.binary("!==", popped, js.literal(0)) : popped;
      }
      case "nondiff": {
        const callee = op.attrs.callee!;
        if (op.attrs.comparator) {
          const compare = op.attrs.written
            ? js.call(this.emitNames.hoisted(op.attrs.comparator), args.slice(1))
            : js.name(this.emitNames.global(op.attrs.comparator));
          return js.call(`${this.emitNames.runtime}.sortOrder`, [a, compare]);
        }
        if (callee === "~") return js.unary("~", a);
        if (callee === "typeof") return js.unary("typeof ", a);
        if (
          /^[|&^<>]/.test(callee) ||
          callee === "===" ||
          callee === "in" ||
          callee === "+" ||
          callee === "instanceof"
        )
          return js.binary(callee, a, b);
        if (callee === ".length") return js.member(a, "length");
        // `s[i]`: a character of a text (lower/members.ts).
        if (callee === "[]") return js.element(a, b);
        // `.toFixed`: a method of the first operand (a number's text).
        if (callee.startsWith("."))
          return js.call(js.member(a, callee.slice(1)).text, args.slice(1));
        return js.call(this.platformPath(callee), args);
      }
      default: {
        const text = BINARY_TEXT[op.opcode];
        if (!text) throw new Error(`internal: cannot emit ${op.opcode}`);
        return js.binary(text, a, b);
      }
    }
  }

  private emitMultiResultCall(op: Op): void {
    const [first, ...rest] = op.results;
    this.line(`const ${this.declare(first!)} = ${this.expression(op).text};`, op.loc);
    rest.forEach((r, i) =>
      this.line(`const ${this.declare(r)} = ${this.emitNames.runtime}.out.v${i + 1};`, op.loc),
    );
  }

  /**
   * A run of pushes checks the tape's capacity once, then stores without checks (none at all
   * when a `reserve` before their loop made room for every iteration's).
   */
  private emitPush(op: Op, region: Region): void {
    const index = region.ops.indexOf(op);
    if (region.ops[index - 1]?.opcode !== "push" && !op.attrs.reserved) {
      let count = 0;
      while (region.ops[index + count]?.opcode === "push") count++;
      this.line(
        `if (${this.top} + ${count} > ${this.tape}.length) ${this.tape} = ${this.emitNames.runtime}.growTape(${this.top}, ${count});`,
        op.loc,
      );
    }
    const v = this.ref(op.operands[0]!);
    if (onObjectStack(op.operands[0]!.type)) {
      // Arrays and objects (shadows, arrays read later) and text (a key) go on the tape's
      // object stack: the number tape would turn text into NaN.
      this.line(`${this.tapeObject}.objects.push(${v.text});`, op.loc);
      return;
    }
    const saved =
      op.operands[0]!.type === "boolean" ? js.conditional(v, js.literal(1), js.literal(0)) : v;
    this.line(`${this.tape}[${this.top}++] = ${saved.text};`, op.loc);
  }

  /** A call from a function that uses the tape: hand over the tape's height and take it back. */
  private emitTapeCall(op: Op, region: Region): void {
    this.line(`${this.tapeObject}.top = ${this.top};`, op.loc);
    if (op.results.length > 1) this.emitMultiResultCall(op);
    else this.emitCallStatement(op, region);
    this.line(`${this.tape} = ${this.tapeObject}.buffer;`, op.loc);
    this.line(`${this.top} = ${this.tapeObject}.top;`, op.loc);
  }

  private get tapeObject(): string {
    return `${this.emitNames.runtime}.tape`;
  }

  private emitReturn(op: Op): void {
    if (this.usesTape) this.line(`${this.tapeObject}.top = ${this.top};`, op.loc);
    if (op.operands[0] && this.isLane(op.operands[0])) return this.lanes!.emitLaneReturn(op);
    const [first, ...rest] = op.operands.map((v) => this.ref(v));
    rest.forEach((e, i) =>
      this.line(`${this.emitNames.runtime}.out.v${i + 1} = ${e.text};`, op.loc),
    );
    this.line(first ? `return ${first.text};` : "return;", op.loc);
  }

  /** `const f = (params) => { … };`: the region's `return` returns from the arrow. */
  private emitClosure(op: Op): void {
    const body = op.regions[0]!;
    const params = body.params.map((p) => this.declare(p));
    const name = this.declare(op.results[0]!);
    this.line(`const ${name} = (${params.join(", ")}) => {`, op.loc);
    this.indent++;
    this.region(body);
    this.indent--;
    this.line("};", undefined);
  }
}

/** Values the tape keeps on its object stack rather than in its numbers. */
function onObjectStack(type: Type): boolean {
  return isAggregate(type) || type === "string" || type === "opaque";
}

/** `...xs`: an argument spread into a call. */
function spread(e: Expr): Expr {
  return js.raw(`...${js.operand(e, js.PREC.conditional)}`, js.PREC.conditional, [e]);
}
