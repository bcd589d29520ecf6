import { releasesHeap } from "./iteration-heap.js";
import type {
  ArrayType,
  FunctionKey,
  IRFunction,
  ObjectType,
  Op,
  Region,
  Type,
  Value,
} from "../../ir/types.js";
import { isAggregate, isArray, isObject, isRecursiveType, typeText } from "../../ir/type-system.js";
import type { WasmKind } from "../../../api/wasm-entry.js";
import { isPure } from "../../ir/ops.js";
import { forEachOp, someOp, terminator } from "../../ir/walk.js";
import { f64Text } from "./float-text.js";
import {
  holdsNumbers,
  kindOf,
  opaqueField,
  presenceBit,
  sameLayout,
  wasmType,
  type WasmValueType,
} from "./kinds.js";
import { integerValues } from "./integers.js";
import { convertsStores, storedValue } from "./typed-array-stores.js";
import { bitOperation, isBitOperation, isSignedBitOperation, toInt32 } from "./int32.js";
import {
  absentValues,
  NUMERIC_USES,
  type AbsentArguments,
  type AbsentValues,
  type ElementRead,
  type ElementTest,
} from "./absent-values.js";
import { integerBounds, type IntegerBounds } from "./integer-bounds.js";
import { loopPrechecks, type LoopPrechecks } from "./loop-prechecks.js";
import { promotableSlots, type SlotPromotion } from "./promoted-slots.js";
import { pairedIterations, type PairedIterations } from "./paired-iterations.js";
import { armValue, elementwisePairs, type ElementwisePairs } from "./elementwise-pairs.js";
import {
  EXP_LOCALS,
  EXP_PAIR_LOCALS,
  expPairConstants,
  expPairStatements,
  inlineExp,
} from "./exp.js";
import { FOLDED_INSTRUCTIONS, importableMath, UNARY_INSTRUCTIONS } from "./math.js";
import { NotForWasm } from "./not-for-wasm.js";
import { growingArrays, isAppend, type GrowingArrays } from "./growing-arrays.js";
import { isLaneValue, LaneCode, laneResults, type LaneHost } from "./lanes.js";
import { functionLabel, lanesKey } from "../../ir/names.js";

// IR function → one WAT function. Every SSA value is a wasm local (the engine allocates
// registers); `if` becomes `if`, `loop` a `block` around a `loop` whose carried values are
// locals set as a parallel move through the operand stack. Array reads and writes check the
// index (an integer within the length) and trap otherwise: the runtime then reruns the call
// as JavaScript, which gives JavaScript's answer (undefined, NaN, a hole) for it. Appends
// (`push`) make room first (growing-arrays.ts).
// Objects are blocks of memory too (kinds.ts): a field read is a load at the field's offset.

/** What a function's emission asks of the module it is part of (module.ts). */
export interface WatModuleHost {
  /**
   * The wasm name of user function `key`, which the module then holds too; with `absent`, of
   * its copy for calls that leave those arguments out (or pass null).
   */
  functionName(key: FunctionKey, absent?: AbsentArguments): string;
  /** User function `key` (NotForWasm when nabla does not have its code). */
  need(key: FunctionKey): IRFunction;
  /** The import of `Math[name]` taking `arity` numbers. */
  mathImport(name: string, arity: number): string;
  /**
   * The import of Math.exp, for the module's own exp (exp.ts), which the module then exports
   * with the global that says whether it agrees with the engine's.
   */
  ownExp(): string;
  /** The function computing Math.sin or Math.cos, the module's own where it agrees (trig.ts). */
  ownTrig(name: "sin" | "cos"): string;
  /** The id of string constant `text` (WasmEntrySpec.strings). */
  stringId(text: string): number;
  /** The import of JavaScript's `%` on numbers (wasm has no f64 remainder). */
  remainder(): string;
  /**
   * The wasm global holding module-level value `name`, set per call: a number or a boolean,
   * or (`copied`) the address of an array or object the runtime copies in with the arguments.
   */
  moduleGlobal(name: string, type: "f64" | "i32", copied?: WasmKind): string;
}

/** Traps and overflows (module.ts defines `$overflow`): which region ran out. */
export const OVERFLOW = { heap: 1, tape: 2, objects: 3 } as const;

const ARITHMETIC: Readonly<Record<string, string>> = {
  add: "f64.add",
  sub: "f64.sub",
  mul: "f64.mul",
  div: "f64.div",
};

/** Comparisons of f64s, and of i32s when both sides are integers (integers.ts). */
const COMPARISONS: Readonly<Record<string, [string, string]>> = {
  lt: ["f64.lt", "i32.lt_s"],
  le: ["f64.le", "i32.le_s"],
  gt: ["f64.gt", "i32.gt_s"],
  ge: ["f64.ge", "i32.ge_s"],
  eq: ["f64.eq", "i32.eq"],
  ne: ["f64.ne", "i32.ne"],
};

export function watFunction(
  fn: IRFunction,
  name: string,
  host: WatModuleHost,
  absent?: AbsentArguments,
): string {
  return new WatFunctionEmitter(fn, name, host, absent).emit();
}

/** The name of the function `fn` is a derivative of (or its own), for messages. */
export function sourceName(fn: IRFunction): string {
  return fn.name.split("$")[0] || fn.name;
}

/**
 * The fewest iterations for which a loop's accesses are checked on entry rather than at each
 * iteration: the check on entry costs about as much as four iterations' checks (measured on
 * gmm's gradient, whose inner loops run 1 to d - 1 times).
 */
const PRECHECKED_TRIPS = 4;

class WatFunctionEmitter implements LaneHost {
  private readonly body: string[] = [];
  private readonly locals = new Map<number, WasmValueType>();
  private readonly params = new Set<number>();
  private indent = 2;
  private labels = 0;
  /** Numbers kept as i32 (see integers.ts). */
  private readonly ints: Set<number>;
  /** Indices known in range and sums known not to overflow (integer-bounds.ts). */
  private readonly bounds: IntegerBounds;
  /**
   * The index checks made so far (`array[index]` by value ids), per region being emitted,
   * innermost last: a check made there holds in what follows it and in the regions it holds.
   */
  private readonly checked: Set<string>[] = [];
  /** What is undefined or null, and the tests for it that are settled (absent-values.ts). */
  private readonly absent: AbsentValues;
  /** Index sums known within bounds by a check before their loop (loop-prechecks.ts). */
  private readonly prechecked = new Set<number>();
  /** Each value's defining op, by value id (region parameters have none). */
  private readonly definitions = new Map<number, Op>();
  /** The locals holding arrays' lengths, by array value id (see keepLength). */
  private readonly lengths = new Map<number, string>();
  /** The integer constants defined so far, by value id. */
  private readonly constants = new Map<number, number>();
  /** The number (f64) constants defined so far, by value id: exponents of `**`. */
  private readonly numberConstants = new Map<number, number>();
  /** What only an error's message is made of (valuesOnlyRaised): never computed in wasm. */
  private readonly messageOnly: Set<number>;
  /** Whether it has a null of its own (`let hit: T | null = null`), told from undefined. */
  private readonly makesNull: boolean;
  /** The arrays it appends to (growing-arrays.ts). */
  private readonly growing: GrowingArrays;
  /** Whether it saves to or takes from the tape of numbers (see `$tape`). */
  private readonly usesTape: boolean;
  /** The Math.exp calls written out so far (each block gets its own label). */
  private exps = 0;
  /** How deep the zero tangents of nested arrays and objects go (their locals, zerosInto). */
  private zeroDepth = 0;
  /** The array elements the loop being emitted holds in locals (promoted-slots.ts), by key. */
  private readonly slots = new Map<string, string>();
  /** How many slot locals (`$slot{n}`, f64) the function declares. */
  private slotLocals = 0;
  /**
   * Inside a loop emitted once per value of `$own_exp` (see `loop`): which exp its calls of
   * Math.exp compute, without testing the global at each call.
   */
  private expChosen: "own" | "engine" | undefined;
  /** Locals of the paired iterations (v128 sums and loads, each lane's prefix values). */
  private readonly pairLocals = new Map<string, string>();
  /** Other locals of the function's own, by name (declareLocal). */
  private readonly ownLocals = new Map<string, "i32" | "f64" | "v128">();
  /** A JVP along several directions at once: its lanes (lanes.ts). */
  private readonly laneCode: LaneCode | undefined;

  constructor(
    readonly fn: IRFunction,
    private readonly name: string,
    private readonly host: WatModuleHost,
    absent?: AbsentArguments,
  ) {
    // Twice: products of integers known ≥ 0 are integers too, which the bounds then cover.
    const first = integerValues(fn);
    this.ints = integerValues(fn, integerBounds(fn, first).nonNegative);
    this.bounds = integerBounds(fn, this.ints);
    this.absent = absentValues(fn, absent);
    forEachOp(fn.body, (op) => op.results.forEach((r) => this.definitions.set(r.id, op)));
    this.messageOnly = valuesOnlyRaised(fn);
    this.growing = growingArrays(fn);
    this.makesNull = someOp(fn.body, (op) => op.opcode === "const" && op.attrs.isNull === true);
    this.usesTape = someOp(
      fn.body,
      (op) => op.opcode === "push" || op.opcode === "pop" || op.opcode === "reserve",
    );
    this.laneCode = fn.lanes ? new LaneCode(this) : undefined;
  }

  emit(): string {
    const fn = this.fn;
    if (fn.adapter) this.fail("a registered derivative rule");
    if (fn.checkpoint) this.fail("a checkpointed call");
    if (fn.stub) this.fail("a derivative nabla could not build");
    const params = fn.params.map((p) => {
      this.params.add(p.id);
      const type = this.isLane(p)
        ? "i32"
        : wasmType(p.type, this.what(`parameter ${p.hint || p.id}`));
      return `(param ${local(p)} ${type})`;
    });
    // Along k directions: k last, as JavaScript passes it (lanes.ts).
    if (this.laneCode) params.push("(param $kf f64)");
    const laneResultsAt = laneResults(fn);
    const results = fn.resultTypes
      .filter((t) => t !== "void")
      .map((t, i) => (laneResultsAt.has(i) ? "i32" : wasmType(t, this.what("a result"))));
    // The tape's height lives in a local while the function runs (a register in hot loops),
    // and in the global around calls and on return, as the JavaScript backend does.
    if (this.usesTape)
      this.line(
        "(local.set $tape (global.get $tape_top)) (local.set $tape_end (global.get $tape_end))",
      );
    for (const p of fn.params) this.keepLength(p);
    this.region(fn.body);
    this.laneCode?.flush();
    if (this.laneCode) this.body.unshift(...this.laneCode.prologue().map((text) => `    ${text}`));
    const header = [`(func ${this.name}`, ...params];
    if (results.length) header.push(`(result ${results.join(" ")})`);
    const declared = [
      ...[...this.locals].map(([id, type]) => `    (local $v${id} ${type})`),
      ...[...this.lengths.values()].map((name) => `    (local ${name} i32)`),
    ];
    const tape = this.usesTape ? ["    (local $tape i32) (local $tape_end i32)"] : [];
    const exp = this.exps > 0 ? [EXP_LOCALS] : [];
    for (let n = 0; n < this.slotLocals; n++) declared.push(`    (local $slot${n} f64)`);
    for (const [name, type] of this.pairLocals) declared.push(`    (local ${name} ${type})`);
    for (const [name, type] of this.ownLocals) declared.push(`    (local ${name} ${type})`);
    for (let d = 0; d < this.zeroDepth; d++)
      declared.push(
        `    (local $zeros_like${d} i32) (local $zeros${d} i32) (local $zeros_at${d} i32)`,
      );
    return [
      `  ${header.join(" ")}`,
      "    (local $ix i32) (local $saved f64) (local $wide i64) (local $trips i64) (local $inBounds i32)",
      ...tape,
      ...exp,
      ...declared,
      ...this.body,
      "  )",
    ].join("\n");
  }

  private what(text: string): string {
    return `${text} in ${functionLabel(sourceName(this.fn))}`;
  }

  fail(what: string): never {
    throw new NotForWasm(this.what(what));
  }

  line(text: string): void {
    this.body.push(`${"  ".repeat(this.indent)}${text}`);
  }

  /** A value's local, declared with its wasm type (a lane value's holds an address). */
  define(v: Value): string {
    if (!this.params.has(v.id) && !this.locals.has(v.id))
      this.locals.set(
        v.id,
        this.isInt(v) || this.isLane(v) ? "i32" : wasmType(v.type, this.what(valueText(v))),
      );
    return local(v);
  }

  declareLocal(name: string, type: "i32" | "f64" | "v128"): string {
    this.ownLocals.set(name, type);
    return name;
  }

  label(): number {
    return this.labels++;
  }

  isInt(v: Value): boolean {
    return this.ints.has(v.id) && !this.isLane(v);
  }

  /** Whether `v` is a tangent number of a function along several directions (lanes.ts). */
  private isLane(v: Value): boolean {
    return isLaneValue(this.fn, v);
  }

  /** `v` as an f64 if it is a number (an integer kept as i32 converted), else as it is. */
  num(v: Value): string {
    return this.isInt(v) ? `(f64.convert_i32_s ${this.get(v)})` : this.get(v);
  }

  /** `v` in the representation of `target` (they differ when only `target` is an f64). */
  private as(target: Value, v: Value): string {
    return this.isInt(target) ? this.get(v) : this.num(v);
  }

  private set(v: Value, expr: string): void {
    this.line(`(local.set ${this.define(v)} ${expr})`);
  }

  get(v: Value): string {
    return `(local.get ${local(v)})`;
  }

  /** `targets[i] = values[i]` all at once: the values go on the stack first. */
  private move(targets: Value[], values: Value[], user?: Op): void {
    if (this.laneCode) {
      // Lanes are copied lane by lane, in the loop over the lanes of what computed them
      // (lanes.ts), which runs before the other values move: it may read their locals.
      const lane = targets.map((t) => this.isLane(t));
      this.laneCode.move(
        targets.filter((_, i) => lane[i]),
        values.filter((_, i) => lane[i]),
        user,
      );
      targets = targets.filter((_, i) => !lane[i]);
      values = values.filter((_, i) => !lane[i]);
    }
    values.forEach((v, i) => this.flows(v.type, targets[i]!.type));
    values.forEach((v, i) => this.line(this.as(targets[i]!, v)));
    for (const t of [...targets].reverse()) this.line(`(local.set ${this.define(t)})`);
  }

  private region(region: Region): void {
    this.ops(region.ops);
  }

  private op(op: Op): void {
    const [a, b, c] = op.operands;
    const r = op.results[0]!;
    // `throw new Error(…)`: a trap, after which the call runs again as JavaScript, which
    // throws the error itself (message and all); what only the message is made of is skipped.
    if (op.opcode === "extern" && op.attrs.callee === RAISE) return this.line("unreachable");
    // The check that no array with holes leaves a function (lower/hole-exits.ts): in wasm no
    // array has one. A store past an array's end traps (the call runs again as JavaScript,
    // which checks), an append is at the length, and an argument or module-level array with
    // a hole is not copied in (the call runs as JavaScript).
    if (op.opcode === "extern" && op.attrs.callee === REFUSE_HOLES) return;
    if (r && op.results.every((v) => this.messageOnly.has(v.id))) return;
    const settled = r && this.absent.settled.get(r.id);
    if (settled !== undefined) return this.set(r, `(i32.const ${settled ? 1 : 0})`);
    // `x[i + 1] ?? 0` (absent-values.ts): whether the index is out of range, the element
    // not read where only the test uses it, and read only where it is there where only uses
    // the test guards read it.
    if (r && this.absent.testedOnly.has(r.id)) return;
    const element = r && this.absent.elementTests.get(r.id);
    if (element) {
      const out = this.outOfRange(element);
      return this.set(r, element.absent ? out : `(i32.eqz ${out})`);
    }
    // (Not a tangent's lanes along k directions, which lanes.ts reads.)
    const guard = r && this.absent.guarded.get(r.id);
    if (guard && !this.laneCode?.isLaneOp(op) && this.guardedRead(op, guard)) return;
    // A test of an optional field's presence (absent-values.ts): its bit in the object's mask.
    const flag = r && this.absent.presenceTests.get(r.id);
    if (flag) {
      const bit = `(i32.and (i32.load offset=4 ${this.get(flag.object)}) (i32.const ${presenceBit(flag.field)}))`;
      return this.set(
        r,
        flag.trueWhenPresent ? `(i32.ne ${bit} (i32.const 0))` : `(i32.eqz ${bit})`,
      );
    }
    if (this.absentTest(op)) return;
    this.absentOperands(op);
    if (this.laneCode) {
      if (this.laneCode.isLaneOp(op)) return this.laneCode.op(op);
      if (this.laneCode.mustFlushBefore(op)) this.laneCode.flush();
    }
    switch (op.opcode) {
      case "const":
        if (this.isInt(r)) {
          this.constants.set(r.id, op.attrs.value as number);
          return this.set(r, `(i32.const ${op.attrs.value as number})`);
        }
        return this.set(r, this.constant(op, r.type));
      case "global": {
        // A module-level value (`const GRAVITY = 9.81`, a `let` the program changes, a table
        // `const WEIGHTS = [0.2, 0.5]`, a settings object): the runtime reads it before each
        // call (runtime/wasm.ts), and copies an array or object in with the arguments (code
        // the backend compiles does not write it: NABLA105, and wasm-requests.ts).
        const name = op.attrs.callee!;
        const copied = isAggregate(r.type) ? kindOf(r.type) : undefined;
        if (op.attrs.function || (r.type !== "number" && r.type !== "boolean" && !copied))
          this.fail(`the module-level value '${name}' (of type ${typeText(r.type)})`);
        const type = r.type === "number" ? "f64" : "i32";
        return this.set(r, `(global.get ${this.host.moduleGlobal(name, type, copied)})`);
      }
      case "add":
      case "sub":
        if (this.isInt(r)) return this.integerArithmetic(op.opcode, r, a!, b!);
        return this.set(r, `(${ARITHMETIC[op.opcode]} ${this.num(a!)} ${this.num(b!)})`);
      case "mul":
        if (this.isInt(r)) return this.integerProduct(r, a!, b!);
        return this.set(r, `(${ARITHMETIC[op.opcode]} ${this.num(a!)} ${this.num(b!)})`);
      case "div":
        return this.set(r, `(${ARITHMETIC[op.opcode]} ${this.num(a!)} ${this.num(b!)})`);
      case "lt":
      case "le":
      case "gt":
      case "ge":
      case "eq":
      case "ne":
        return this.set(r, this.comparison(op.opcode, a!, b!));
      case "rem":
        return this.set(r, `(call ${this.host.remainder()} ${this.num(a!)} ${this.num(b!)})`);
      case "pow":
        // `x ** y` is Math.pow in JavaScript (the same function in V8).
        return this.set(r, this.power(a!, b!));
      case "neg":
        return this.set(r, `(f64.neg ${this.num(a!)})`);
      case "not":
        return this.set(r, `(i32.eqz ${this.get(a!)})`);
      case "truthy":
        return this.set(r, this.truthy(a!));
      case "and":
        return this.set(r, `(i32.and ${this.get(a!)} ${this.get(b!)})`);
      case "or":
        return this.set(r, `(i32.or ${this.get(a!)} ${this.get(b!)})`);
      case "select":
        this.flows(b!.type, r.type);
        this.flows(c!.type, r.type);
        return this.set(r, `(select ${this.as(r, b!)} ${this.as(r, c!)} ${this.get(a!)})`);
      case "detach":
      case "withDerivative":
        this.flows(a!.type, r.type);
        return this.set(r, this.as(r, a!));
      case "math":
        return this.set(r, this.math(op));
      case "nondiff":
        return this.bitOperation(op, r);
      case "call":
        return this.call(op);
      case "if":
        return this.ifOp(op);
      case "loop":
        return this.loop(op);
      case "yield":
      case "condition":
        return; // their region's owner moves their operands
      case "return": {
        op.operands.forEach((v, i) => this.flows(v.type, this.fn.resultTypes[i] ?? v.type));
        if (this.usesTape) this.line("(global.set $tape_top (local.get $tape))");
        const returned = op.operands.map((v) =>
          this.laneCode && this.isLane(v) ? this.laneCode.returned(v) : this.num(v),
        );
        this.line(`(return${returned.map((text) => ` ${text}`).join("")})`);
        return;
      }
      case "length":
        this.arrayOperand(a!);
        return this.set(r, this.lengthOf(a!));
      case "index": {
        const type = this.arrayOperand(a!);
        // An integer array's element kept as i32 (integers.ts): its cell holds it exactly.
        const element = (f64: string) => (this.isInt(r) ? `(i32.trunc_f64_s ${f64})` : f64);
        const slot = this.slots.get(`${a!.id}[${b!.id}]`);
        if (slot) return this.set(r, element(`(local.get ${slot})`));
        const index = this.checkIndex(a!, b!);
        if (holdsNumbers(type))
          return this.set(r, element(`(f64.load offset=8 ${this.elementAddress(a!, index)})`));
        this.flows(type.elements?.[0] ?? type.element, r.type);
        this.set(r, `(i32.load offset=8 ${this.elementAddress(a!, index)})`);
        // An element never written (of `new Array(n)`): JavaScript reads undefined there.
        this.line(`(if (i32.eqz ${this.get(r)}) (then unreachable))`);
        return;
      }
      case "field":
        return this.set(r, this.fieldRead(a!, op.attrs.field!, r));
      case "setField":
      case "addField":
        return this.fieldWrite(op);
      case "setIndex":
      case "addIndex":
        return this.store(op);
      case "alloc":
        // Zeroed: numbers 0, and inner arrays or objects address 0, not yet written.
        if (!isArray(r.type)) this.fail(`an allocation of a ${typeText(r.type)}`);
        // Holes, which a read gives as undefined and the methods skip (lower/new-array-holes.ts).
        if (op.attrs.holes && !op.tangent)
          this.fail("'new Array(n)' read before all its elements are written (its holes)");
        // A flat tangent array along k directions: k lanes per element (lanes.ts).
        if (this.growing.growing.has(r.id) && this.laneCode && op.tangent && holdsNumbers(r.type))
          return this.set(
            r,
            `(call $allocGrowable (i32.mul (call $toLength ${this.num(a!)}) (local.get $k)))`,
          );
        if (this.growing.growing.has(r.id))
          return this.set(r, `(call $allocGrowable (call $toLength ${this.num(a!)}))`);
        if (this.laneCode && op.tangent && holdsNumbers(r.type))
          return this.set(
            r,
            `(call $allocCells (i32.mul (call $toLength ${this.num(a!)}) (local.get $k)))`,
          );
        return this.set(r, `(call $alloc ${this.num(a!)})`);
      case "zeros": {
        // The zero tangent of an object of numbers (`Vec3.zero`'s): a zeroed block of its fields.
        if (isObject(r.type)) {
          // Along k directions, each number field is a block of k lanes (zerosInto).
          if (this.laneCode) {
            this.zerosInto(a!.type, r.type, this.get(a!), 0);
            return this.set(r, "(local.get $zeros0)");
          }
          if (!r.type.fields.every((f) => f.type === "number" && !f.optional)) {
            // Holding arrays or objects: the same shape, zero (zerosInto).
            this.zerosInto(a!.type, r.type, this.get(a!), 0);
            return this.set(r, "(local.get $zeros0)");
          }
          this.numberFields(r.type, "a zero tangent");
          return this.set(r, `(call $allocCells (i32.const ${r.type.fields.length}))`);
        }
        const type = this.arrayOperand(a!);
        if (holdsNumbers(type) && this.laneCode)
          return this.set(
            r,
            `(call $allocCells (i32.mul (i32.load ${this.get(a!)}) (local.get $k)))`,
          );
        if (holdsNumbers(type))
          // An array's length is a length already: no conversion, no check (a call less per shadow).
          return this.set(r, `(call $allocCells (i32.load ${this.get(a!)}))`);
        // Of an array of arrays or objects (a matrix's, `number[][]`): the same shape, zero.
        this.zerosInto(type, r.type, this.get(a!), 0);
        return this.set(r, "(local.get $zeros0)");
      }
      case "literal":
        return this.literal(op);
      case "clear": {
        // An object of numbers (a shadow such as a `Vec3`'s): its fields to 0.
        if (isObject(a!.type)) {
          if (!a!.type.fields.every((f) => f.type === "number" && !f.optional))
            return this.clearIn(a!.type, this.get(a!), 0);
          const n = this.numberFields(a!.type, "clearing a shadow");
          this.line(
            `(memory.fill (i32.add ${this.get(a!)} (i32.const 8)) (i32.const 0) (i32.const ${8 * n}))`,
          );
          return;
        }
        const type = this.arrayOperand(a!);
        if (!holdsNumbers(type)) return this.clearIn(type, this.get(a!), 0);
        this.line(
          `(memory.fill (i32.add ${this.get(a!)} (i32.const 8)) (i32.const 0) (i32.shl (i32.load ${this.get(a!)}) (i32.const 3)))`,
        );
        return;
      }
      case "push":
        return this.push(a!, op.attrs.reserved === true);
      case "pop":
        return this.pop(op, r);
      case "reserve":
        // Room for what the loop after it pushes (its pushes are `reserved`: unchecked). Not
        // `>`: a count that is NaN fails too, so no push can run past the tape.
        this.line(
          `(if (i32.eqz (f64.le (f64.add (f64.convert_i32_u (local.get $tape)) (f64.mul ${this.num(a!)} (f64.const 8))) (f64.convert_i32_u (local.get $tape_end)))) (then (call $overflow (i32.const ${OVERFLOW.tape}))))`,
        );
        return;
      case "peak":
        return;
      default:
        this.fail(describe(op));
    }
  }

  /**
   * Where absent values may go. A number's (held as NaN, null as 0) only where JavaScript
   * computes with it as with those; passed to a callee, only known absent (the callee's copy
   * for such calls knows it too); literals check their own operands (an optional field may be
   * left out). A string's, an array's or an object's (held as 0, never an id or an address:
   * kinds.ts) may also be carried around a loop (`let hit: Item | undefined`, a loop that
   * returns from inside); where it may be absent and the op reads it or hands it on (a field
   * read, a store, a call, a return), a check first traps on 0, and the call runs as
   * JavaScript, which does what JavaScript does with undefined there (throw, mostly).
   */
  private absentOperands(op: Op): void {
    if (op.opcode === "literal" || NUMERIC_USES.has(op.opcode)) return;
    for (const v of op.operands) {
      const presence = this.absent.presence(v);
      if (presence === "number") continue;
      if (op.opcode === "call" && presence !== "maybe") continue;
      // A boolean's undefined is 0, false: as falsy as JavaScript's, where only that counts.
      if (v.type === "boolean" && TRUTH_USES.has(op.opcode)) continue;
      // A string's is 0, no string's id: `note === "kept"` is false for it, as in JavaScript.
      if (v.type === "string" && (op.opcode === "eq" || op.opcode === "ne")) continue;
      if (!heldAsZero(v.type)) this.failAbsent(v, op);
      if (op.opcode === "loop") continue;
      if (presence !== "maybe") this.failAbsent(v, op);
      this.line(`(if (i32.eqz ${this.get(v)}) (then unreachable))`);
    }
  }

  /**
   * `v === undefined` and `v == null` (`??`, `?.`) of a string, an array or an object that may
   * be absent, which no test settled: whether it is 0. Only where the function makes no null:
   * undefined and null are both 0 in wasm.
   */
  private absentTest(op: Op): boolean {
    const r = op.results[0];
    if (!r || (op.opcode !== "nullish" && !(op.opcode === "nondiff" && op.attrs.callee === "===")))
      return false;
    if (op.operands.length === 1) {
      const v = op.operands[0]!;
      if (!heldAsZero(v.type) || this.absent.presence(v) !== "maybe") return false;
      this.set(r, `(i32.eqz ${this.get(v)})`);
      return true;
    }
    const [x, y] = op.operands as [Value, Value];
    const [value, absent] = this.absent.presence(x) === "maybe" ? [x, y] : [y, x];
    const kind = this.absent.presence(absent);
    if (!heldAsZero(value.type) || this.absent.presence(value) !== "maybe") return false;
    if ((kind !== "undefined" && kind !== "null") || this.makesNull) return false;
    // Never null here: `=== null` is false, `=== undefined` is whether it is 0.
    this.set(r, kind === "null" ? "(i32.const 0)" : `(i32.eqz ${this.get(value)})`);
    return true;
  }

  /** How many fields `type` has, all numbers (and not optional), or NotForWasm for `what`. */
  private numberFields(type: ObjectType, what: string): number {
    if (!type.fields.every((f) => f.type === "number" && !f.optional))
      this.fail(`${what} of ${typeText(type)}, whose fields are not all numbers`);
    wasmType(type, this.what(what));
    return type.fields.length;
  }

  /**
   * Stays JavaScript, saying in a sentence which value may be undefined where: "'previous'
   * may be undefined while a loop in 'f' carries it, …", "'scale' is undefined where 'f'
   * gives it to a call of 'g'; …".
   */
  private failAbsent(v: Value, op: Op): never {
    const name = v.hint ? `'${v.hint}'` : "a value";
    const fn = functionLabel(sourceName(this.fn));
    if (op.opcode === "loop")
      throw new NotForWasm(
        `${name} may be undefined while a loop in ${fn} carries it, and the wasm backend carries only numbers through a loop`,
      );
    const is = this.absent.presence(v) === "maybe" ? "may be" : "is";
    throw new NotForWasm(
      `${name} ${is} undefined where ${fn} gives it to ${describe(op)}; the wasm backend takes undefined only into arithmetic and tests for it ('=== undefined', '??')`,
    );
  }

  /**
   * A zero tangent (of type `tangent`) shaped like the array or object of type `type` at
   * `like` (an i32 expression), into the local `$zeros{depth}`: arrays of numbers zeroed to
   * the same length, arrays of arrays or objects element by element (an element never
   * written stays so, as `.map` leaves a hole), objects field by field, as the JavaScript
   * backend's `zerosLike` does.
   */
  private zerosInto(type: Type, tangent: Type, like: string, depth: number): void {
    this.zeroDepth = Math.max(this.zeroDepth, depth + 1);
    const [from, into, at] = [`$zeros_like${depth}`, `$zeros${depth}`, `$zeros_at${depth}`];
    this.line(`(local.set ${from} ${like})`);
    /** The inner array or object in the cell `read` of `from`, its zeros into cell `write`. */
    const inner = (innerType: Type, innerTangent: Type, read: string, write: string) =>
      this.ifWritten(read, () => {
        this.zerosInto(innerType, innerTangent, `(i32.load ${read})`, depth + 1);
        this.line(`(i32.store ${write} (local.get $zeros${depth + 1}))`);
      });
    const fieldCell = (k: number, base: string) => `offset=${8 + 8 * k} (local.get ${base})`;
    if (isRecursiveType(type)) this.fail(`a zero tangent of ${typeText(type)}, which holds itself`);
    if (isObject(type) && isObject(tangent)) {
      wasmType(type, this.what("a zero tangent"));
      this.line(`(local.set ${into} (call $allocCells (i32.const ${tangent.fields.length})))`);
      let present = 0;
      tangent.fields.forEach((f, k) => {
        const j = type.fields.findIndex((g) => g.name === f.name);
        const field = type.fields[j];
        if (!field || opaqueField(field, j) !== undefined)
          this.fail(`a zero tangent of ${typeText(type)} (its field '${f.name}')`);
        if (f.type === "number") {
          // Along k directions: a zeroed block of k lanes (lanes.ts).
          if (this.laneCode) {
            if (f.optional)
              this.fail(`a zero tangent of ${typeText(type)} (its optional field '${f.name}')`);
            this.line(`(i32.store ${fieldCell(k, into)} (call $allocCells (local.get $k)))`);
            return;
          }
          // Present and 0, as `zerosLike` writes every number field.
          if (f.optional) present |= presenceBit(k);
          return;
        }
        if (f.optional || field.optional)
          this.fail(`a zero tangent of ${typeText(type)} (its optional field '${f.name}')`);
        // A field not yet written (address 0): the call runs as JavaScript.
        this.line(`(if (i32.eqz (i32.load ${fieldCell(j, from)})) (then unreachable))`);
        inner(field.type, f.type, fieldCell(j, from), fieldCell(k, into));
      });
      if (present !== 0)
        this.line(`(i32.store offset=4 (local.get ${into}) (i32.const ${present | 0}))`);
      return;
    }
    if (!isArray(type) || !isArray(tangent))
      return this.fail(`a zero tangent of ${typeText(type)}`);
    wasmType(type, this.what("a zero tangent"));
    // Along k directions, an array of numbers holds k lanes per element (lanes.ts).
    const cells = `(i32.load (local.get ${from}))`;
    const scaled =
      this.laneCode && holdsNumbers(type) ? `(i32.mul ${cells} (local.get $k))` : cells;
    this.line(`(local.set ${into} (call $allocCells ${scaled}))`);
    if (holdsNumbers(type)) return;
    if (type.elements?.length) {
      type.elements.forEach((e, k) =>
        inner(e, tangent.elements?.[k] ?? tangent.element, fieldCell(k, from), fieldCell(k, into)),
      );
      return;
    }
    const elementCell = (base: string) =>
      `offset=8 (i32.add (local.get ${base}) (i32.shl (local.get ${at}) (i32.const 3)))`;
    this.forEachElement(from, at, () =>
      inner(type.element, tangent.element, elementCell(from), elementCell(into)),
    );
  }

  /**
   * Every number in the shadow of type `type` at `at` (an i32 expression) set to 0 in place,
   * through its inner arrays and objects (an element never written skipped), as the
   * JavaScript backend's `clearTangent` does; uses the locals of `zerosInto`.
   */
  private clearIn(type: Type, at: string, depth: number): void {
    this.zeroDepth = Math.max(this.zeroDepth, depth + 1);
    const [shadow, index] = [`$zeros_like${depth}`, `$zeros_at${depth}`];
    this.line(`(local.set ${shadow} ${at})`);
    const inner = (innerType: Type, cell: string) =>
      this.ifWritten(cell, () => this.clearIn(innerType, `(i32.load ${cell})`, depth + 1));
    if (isRecursiveType(type)) this.fail(`clearing a ${typeText(type)}, which holds itself`);
    wasmType(type, this.what("clearing a shadow"));
    if (isObject(type)) {
      type.fields.forEach((f, k) => {
        if (opaqueField(f, k) !== undefined) return;
        const cell = `offset=${8 + 8 * k} (local.get ${shadow})`;
        const zero = `(f64.store ${cell} (f64.const 0))`;
        // An optional number the shadow lacks stays NaN (kinds.ts), as `clearTangent` leaves it.
        if (f.type === "number" && f.optional)
          this.line(
            `(if (i32.ne (i32.and (i32.load offset=4 (local.get ${shadow})) (i32.const ${presenceBit(k)})) (i32.const 0)) (then ${zero}))`,
          );
        else if (f.type === "number") this.line(zero);
        else if (isAggregate(f.type)) inner(f.type, cell);
      });
      return;
    }
    if (!isArray(type)) return this.fail(`clearing a ${typeText(type)}`);
    if (holdsNumbers(type)) {
      this.line(
        `(memory.fill (i32.add (local.get ${shadow}) (i32.const 8)) (i32.const 0) (i32.shl (i32.load (local.get ${shadow})) (i32.const 3)))`,
      );
      return;
    }
    if (type.elements?.length) {
      type.elements.forEach((e, k) => inner(e, `offset=${8 + 8 * k} (local.get ${shadow})`));
      return;
    }
    this.forEachElement(shadow, index, () =>
      inner(
        type.element,
        `offset=8 (i32.add (local.get ${shadow}) (i32.shl (local.get ${index}) (i32.const 3)))`,
      ),
    );
  }

  /** `body` where the cell at `cell` (`offset=… address`) holds an array or object (not 0). */
  private ifWritten(cell: string, body: () => void): void {
    this.line(`(if (i32.ne (i32.load ${cell}) (i32.const 0))`);
    this.indent++;
    this.line("(then");
    this.indent++;
    body();
    this.indent--;
    this.line(")");
    this.indent--;
    this.line(")");
  }

  /** `body` once per element of the array in local `array`, its index in local `index`. */
  private forEachElement(array: string, index: string, body: () => void): void {
    const n = this.labels++;
    this.line(`(local.set ${index} (i32.const 0))`);
    this.line(`(block $elements_done${n}`);
    this.indent++;
    this.line(`(loop $elements_next${n}`);
    this.indent++;
    this.line(
      `(br_if $elements_done${n} (i32.ge_u (local.get ${index}) (i32.load (local.get ${array}))))`,
    );
    body();
    this.line(`(local.set ${index} (i32.add (local.get ${index}) (i32.const 1)))`);
    this.line(`(br $elements_next${n})`);
    this.indent--;
    this.line(")");
    this.indent--;
    this.line(")");
  }

  private constant(op: Op, type: Type): string {
    const value = op.attrs.value;
    if (typeof value === "number" && type === "number") {
      this.numberConstants.set(op.results[0]!.id, value);
      return `(f64.const ${f64Text(value)})`;
    }
    if (typeof value === "boolean" && type === "boolean") return `(i32.const ${value ? 1 : 0})`;
    if (typeof value === "string" && type === "string")
      return `(i32.const ${this.host.stringId(value)})`;
    // undefined or null as a number: NaN or 0, what arithmetic makes of each (absent-values.ts).
    if (value === undefined && type === "number")
      return `(f64.const ${op.attrs.isNull ? 0 : "nan"})`;
    // As a boolean, a string, an array or an object: 0, falsy, and no string's id or array's or
    // object's address. Such a value goes only where absent-values.ts allows (a settled test, a
    // condition, a branch).
    if (value === undefined && (type === "boolean" || type === "string" || isAggregate(type)))
      return "(i32.const 0)";
    return this.fail(
      value === undefined
        ? `${op.attrs.isNull ? "null" : "undefined"} as ${typeText(type)}`
        : `the constant ${JSON.stringify(value)}`,
    );
  }

  /**
   * `x ** y`. With y the constant 0, 1 or 2 it is 1, x or x·x, as the engine's Math.pow gives
   * them (fdlibm returns exactly these, NaN included; test/wasm-backend.test.ts checks), saving a
   * call out of wasm in every `(a - b) ** 2` and in its derivative's `2 * d ** 1`.
   */
  private power(x: Value, y: Value): string {
    const exponent = this.numberConstants.get(y.id) ?? this.constants.get(y.id);
    if (exponent === 0) return `(f64.const 1)`;
    if (exponent === 1) return this.num(x);
    if (exponent === 2) return `(f64.mul ${this.num(x)} ${this.num(x)})`;
    return `(call ${this.host.mathImport("pow", 2)} ${this.num(x)} ${this.num(y)})`;
  }

  private comparison(opcode: string, a: Value, b: Value): string {
    const [float, integer] = COMPARISONS[opcode]!;
    if (a.type === "number" && b.type === "number")
      return this.isInt(a) && this.isInt(b)
        ? `(${integer} ${this.get(a)} ${this.get(b)})`
        : `(${float} ${this.num(a)} ${this.num(b)})`;
    // Booleans, and strings by their ids (kinds.ts): equal strings have equal ids.
    const same = a.type === b.type && (a.type === "boolean" || a.type === "string");
    if ((opcode === "eq" || opcode === "ne") && same)
      return `(i32.${opcode} ${this.get(a)} ${this.get(b)})`;
    // Arrays copied into wasm memory are not the caller's objects: identity cannot be told.
    return this.fail("a comparison of values of types other than numbers, booleans or strings");
  }

  /**
   * `a + b` or `a - b` of integers as i32, trapping when the result leaves the i32 range (a
   * float64 would hold it exactly: the call then runs as JavaScript).
   */
  private integerArithmetic(opcode: "add" | "sub", r: Value, a: Value, b: Value): void {
    this.set(r, `(i32.${opcode} ${this.get(a)} ${this.get(b)})`);
    if (this.bounds.cannotOverflow.has(r.id) || this.prechecked.has(r.id)) return;
    const step = this.constants.get(b.id);
    let overflowed: string;
    if (step !== undefined && step >= 0)
      // A step up cannot make the sum smaller, a step down the difference larger.
      overflowed = `(i32.${opcode === "add" ? "lt_s" : "gt_s"} ${this.get(r)} ${this.get(a)})`;
    else {
      const [x, y] = opcode === "add" ? [a, b] : [b, a];
      const left =
        opcode === "add"
          ? `(i32.xor ${this.get(x)} ${this.get(r)})`
          : `(i32.xor ${this.get(a)} ${this.get(b)})`;
      const right =
        opcode === "add"
          ? `(i32.xor ${this.get(y)} ${this.get(r)})`
          : `(i32.xor ${this.get(a)} ${this.get(r)})`;
      overflowed = `(i32.lt_s (i32.and ${left} ${right}) (i32.const 0))`;
    }
    this.line(`(if ${overflowed} (then unreachable))`);
  }

  /** `c * i` of integers as i32 (integers.ts), trapping when the product leaves the i32 range. */
  private integerProduct(r: Value, a: Value, b: Value): void {
    this.line(
      `(local.set $wide (i64.mul (i64.extend_i32_s ${this.get(a)}) (i64.extend_i32_s ${this.get(b)})))`,
    );
    this.line(
      "(if (i64.ne (i64.extend_i32_s (i32.wrap_i64 (local.get $wide))) (local.get $wide)) (then unreachable))",
    );
    this.set(r, "(i32.wrap_i64 (local.get $wide))");
  }

  private truthy(a: Value): string {
    if (a.type === "boolean") return this.get(a);
    // A number is truthy unless it is 0, -0 or NaN.
    if (a.type === "number")
      return this.isInt(a)
        ? `(i32.ne ${this.get(a)} (i32.const 0))`
        : `(i32.and (f64.ne ${this.get(a)} (f64.const 0)) (f64.eq ${this.get(a)} ${this.get(a)}))`;
    // A string but "", and not undefined (id 0: an absent optional field, kinds.ts).
    if (a.type === "string") {
      const notEmpty = `(i32.ne ${this.get(a)} (i32.const ${this.host.stringId("")}))`;
      const presence = this.absent.presence(a);
      if (presence === "number") return notEmpty;
      return presence === "maybe"
        ? `(i32.and ${notEmpty} (i32.ne ${this.get(a)} (i32.const 0)))`
        : "(i32.const 0)";
    }
    // An array or an object: the address of one is never 0 (an unwritten element traps); an
    // absent one (undefined or null) is held as 0.
    wasmType(a.type, this.what(valueText(a)));
    const presence = this.absent.presence(a);
    if (presence === "number") return "(i32.const 1)";
    return presence === "maybe" ? `(i32.ne ${this.get(a)} (i32.const 0))` : "(i32.const 0)";
  }

  private math(op: Op): string {
    const name = op.attrs.callee!;
    const args = op.operands.map((v) => this.num(v));
    if (op.results[0]!.type !== "number" || op.operands.some((v) => v.type !== "number"))
      this.fail(`Math.${name} of values other than numbers`);
    const unary = UNARY_INSTRUCTIONS[name];
    if (unary && args.length === 1) return `(${unary} ${args[0]})`;
    const folded = FOLDED_INSTRUCTIONS[name];
    if (folded)
      return args.length === 0
        ? `(f64.const ${folded.empty})`
        : args.reduce((acc, x) => `(${folded.op} ${acc} ${x})`);
    if (name === "pow" && args.length === 2) return this.power(op.operands[0]!, op.operands[1]!);
    if (name === "exp" && args.length === 1) {
      const engine = this.host.ownExp();
      if (this.expChosen === "engine") return `(call ${engine} ${args[0]})`;
      return inlineExp(args[0]!, `$exp${this.exps++}`, engine, this.expChosen === "own");
    }
    if ((name === "sin" || name === "cos") && args.length === 1)
      return `(call ${this.host.ownTrig(name)} ${args[0]})`;
    if (!importableMath(name)) this.fail(`Math.${name}`);
    return `(call ${this.host.mathImport(name, args.length)}${args.map((x) => ` ${x}`).join("")})`;
  }

  private call(op: Op): void {
    const { attrs } = op;
    if (attrs.method || attrs.getter || attrs.setter || attrs.superOf)
      this.fail(`a call of the method '${attrs.method ?? attrs.callee}'`);
    if (attrs.restParameter) this.fail("a call of a function with a rest parameter");
    if (attrs.checkpoint) this.fail("a checkpointed call");
    const absent = new Map<number, "undefined" | "null">();
    op.operands.forEach((v, i) => {
      const state = this.absent.presence(v);
      if (state === "undefined" || state === "null") absent.set(i, state);
    });
    // Along k directions, a callee's JVP is its own along the same directions (lanes.ts).
    const lanes = this.laneCode && attrs.primal ? lanesKey(attrs.primal, attrs.wrt!) : undefined;
    const key = lanes ?? attrs.callee!;
    const callee = this.host.functionName(key, absent.size > 0 ? absent : undefined);
    const target = this.host.need(key);
    op.operands.forEach((v, i) => this.flows(v.type, target.params[i]?.type ?? v.type));
    const returned = target.resultTypes.filter((t) => t !== "void");
    op.results
      .filter((v) => v.type !== "void")
      .forEach((v, i) => this.flows(returned[i] ?? v.type, v.type));
    const args = op.operands.map((v) => ` ${this.num(v)}`).join("");
    const call = `(call ${callee}${args}${lanes ? " (local.get $kf)" : ""})`;
    const results = op.results.filter((v) => v.type !== "void");
    // A callee's lanes are a block of its own call's: the result's, never written again.
    for (const v of results) if (this.isLane(v)) this.laneCode!.borrow(v);
    if (this.usesTape) this.line("(global.set $tape_top (local.get $tape))");
    this.line(call);
    if (this.usesTape) this.line("(local.set $tape (global.get $tape_top))");
    if (results.length === 0) return;
    for (const v of [...results].reverse()) this.line(`(local.set ${this.define(v)})`);
  }

  private ifOp(op: Op): void {
    const [thenRegion, elseRegion] = op.regions as [Region, Region];
    for (const v of op.results) this.define(v);
    const taken = this.absent.settled.get(op.operands[0]!.id);
    if (taken !== undefined) {
      // A test for undefined or null that is settled (absent-values.ts): the branch it takes.
      return this.branch(op, taken ? thenRegion : elseRegion);
    }
    this.line(`(if ${this.get(op.operands[0]!)}`);
    this.indent++;
    for (const [word, region] of [
      ["then", thenRegion],
      ["else", elseRegion],
    ] as const) {
      this.line(`(${word}`);
      this.indent++;
      this.branch(op, region);
      this.indent--;
      this.line(")");
    }
    this.indent--;
    this.line(")");
  }

  /** A branch of `if` op `op`: its region, then what it yields into the op's results. */
  private branch(op: Op, region: Region): void {
    this.region(region);
    const last = region.ops[region.ops.length - 1];
    if (last?.opcode === "yield") this.move(op.results, last.operands, last);
    this.laneCode?.flush();
  }

  /**
   * `loop` (operands: the initial carried values; regions: before, after): the before region
   * computes the condition and forwards values to the after region's parameters, which are
   * also the loop's results when the condition is false; the after region yields the next
   * carried values.
   */
  private loop(op: Op): void {
    // A loop calling Math.exp is emitted twice, for the module's own exp and for the engine's,
    // chosen once on entry: the test of `$own_exp` at each call costs a load and a branch per
    // element of log-sum-exp's loop, and splits the loop's body around the exp code.
    const callsExp = (o: Op) => o.opcode === "math" && o.attrs.callee === "exp";
    if (this.expChosen === undefined && op.regions.some((r) => someOp(r, callsExp))) {
      this.line("(if (global.get $own_exp)");
      for (const [arm, chosen] of [
        ["then", "own"],
        ["else", "engine"],
      ] as const) {
        this.indent++;
        this.line(`(${arm}`);
        this.indent++;
        this.expChosen = chosen;
        this.loopVersions(op);
        this.expChosen = undefined;
        this.indent--;
        this.line(")");
        this.indent--;
      }
      this.line(")");
      return;
    }
    this.loopVersions(op);
  }

  /** A loop, as one version or as two (with and without its index checks). */
  private loopVersions(op: Op): void {
    const [before, after] = op.regions as [Region, Region];
    this.move(before.params, op.operands, op);
    for (const v of after.params) this.define(v);
    // An innermost loop whose accesses can all be checked on entry (loop-prechecks.ts) is
    // emitted twice: without those checks, run when the loop is long enough for checking on
    // entry to pay and every access is within bounds throughout, and as it is otherwise.
    const innermost = !op.regions.some((region) => someOp(region, (o) => o.opcode === "loop"));
    // Along k directions, lanes have their own checks and loops (lanes.ts): these plans,
    // made for scalar code, do not apply.
    const plain = !this.laneCode;
    const prechecks =
      innermost && plain ? loopPrechecks(op, this.definitions, this.ints) : undefined;
    if (!prechecks) {
      const paired =
        innermost || !plain ? undefined : pairedIterations(op, this.definitions, this.ints);
      this.loopCode(op, new Set(), paired);
    } else {
      const promotion = promotableSlots(op, prechecks);
      this.line(`(if ${this.fastPathTest(prechecks, promotion)}`);
      this.indent++;
      this.line("(then");
      this.indent++;
      const keys = new Set(prechecks.accesses.map((a) => `${a.array.id}[${a.index.id}]`));
      const sums = prechecks.accesses.filter((a) => a.step !== 0).map((a) => a.index.id);
      for (const id of sums) this.prechecked.add(id);
      const held = promotion ? this.holdSlots(promotion) : [];
      const pairs = promotion
        ? undefined
        : elementwisePairs(
            op,
            prechecks,
            this.definitions,
            this.ints,
            this.expChosen === "own",
            this.settledWithin(keys),
          );
      if (pairs) this.elementwisePairs(pairs);
      this.loopCode(op, keys);
      for (const { address, local } of held)
        this.line(`(f64.store offset=8 ${address} (local.get ${local}))`);
      this.slots.clear();
      this.prechecked.clear();
      this.indent--;
      this.line(")");
      this.line("(else");
      this.indent++;
      this.loopCode(op, new Set());
      this.indent--;
      this.line(")");
      this.indent--;
      this.line(")");
    }
    if (this.laneCode) return this.move(op.results, after.params);
    op.results.forEach((v, i) => {
      this.flows(after.params[i]!.type, v.type);
      this.set(v, this.as(v, after.params[i]!));
    });
  }

  /**
   * The loop itself; `checked`: the accesses its body need not check; `paired`: how it runs
   * several iterations at once while they remain (paired-iterations.ts).
   */
  private loopCode(op: Op, checked: Set<string>, paired?: PairedIterations): void {
    const [before, after] = op.regions as [Region, Region];
    const condition = before.ops[before.ops.length - 1]!;
    const [flag, ...forwarded] = condition.operands;
    const n = this.labels++;
    // What an iteration makes dies with it: the heap is put back after each (iteration-heap.ts).
    const mark = releasesHeap(op, this.growing.growing) ? `$heap_mark${n}` : undefined;
    if (mark) this.pairLocals.set(mark, "i32");
    this.line(`(block $exit${n}`);
    this.indent++;
    this.line(`(loop $next${n}`);
    this.indent++;
    if (mark) this.line(`(local.set ${mark} (global.get $heap_top))`);
    this.region(before);
    this.move(after.params, forwarded, condition);
    this.line(`(br_if $exit${n} (i32.eqz ${this.get(flag!)}))`);
    if (paired) this.pairedIterations(op, paired, n);
    this.checked.push(checked);
    this.region(after);
    this.checked.pop();
    const yielded = after.ops[after.ops.length - 1]!;
    this.move(before.params, yielded.operands, yielded);
    if (mark) this.line(`(global.set $heap_top (local.get ${mark}))`);
    this.line(`(br $next${n})`);
    this.indent--;
    this.line(")");
    this.indent--;
    this.line(")");
  }

  /**
   * Two iterations of an elementwise loop at once while two remain (elementwise-pairs.ts),
   * before the loop as it is, which runs what is left. On the fast path: every access was
   * checked on entry.
   */
  private elementwisePairs(plan: ElementwisePairs): void {
    const n = this.labels++;
    const counter = this.get(plan.counter);
    const lane = (v: Value) => `$ew${n}_v${v.id}`;
    // A value the same at every iteration is splat once, before the loop (the engine would
    // splat it again at every pair).
    const splats = new Map<number, string>();
    const hoisted: string[] = [];
    const vector = (v: Value): string => {
      if (plan.lanes.has(v.id)) return `(local.get ${lane(v)})`;
      let name = splats.get(v.id);
      if (!name) {
        name = `$ew${n}_k${v.id}`;
        splats.set(v.id, name);
        this.pairLocals.set(name, "v128");
        const carried = plan.carried.get(v.id);
        const value = carried ? this.num(carried) : this.invariantValue(v, "f64");
        hoisted.push(`(local.set ${name} (f64x2.splat ${value}))`);
      }
      return `(local.get ${name})`;
    };
    const up = plan.relation === "lt" || plan.relation === "le";
    // A pair's elements start at the counter plus the index's offset, or, counting down, one
    // below.
    const at = (array: Value, index: Value) => {
      const shift = plan.offsets.get(index.id)! - (up ? 0 : 1);
      const first = shift === 0 ? counter : `(i32.add ${counter} (i32.const ${shift}))`;
      return `(i32.add ${this.get(array)} (i32.shl ${first} (i32.const 3)))`;
    };
    // The lane of the pair's first iteration (counting down, the higher element), then the other.
    const order = up ? [0, 1] : [1, 0];
    if (plan.ops.some((op) => op.opcode === "math")) {
      this.host.ownExp();
      for (const name of EXP_PAIR_LOCALS) this.declareLocal(name, "v128");
      for (const statement of expPairConstants()) this.line(statement);
    }
    const hoistAt = this.body.length;
    const hoistIndent = "  ".repeat(this.indent);
    this.line(`(block $ew_exit${n}`);
    this.indent++;
    // Arrays read or written at different offsets: one block, and iterations would interact.
    for (const [a, b] of plan.distinct)
      this.line(`(br_if $ew_exit${n} (i32.eq ${this.get(a)} ${this.get(b)}))`);
    this.line(`(loop $ew_next${n}`);
    this.indent++;
    // Whether a second iteration remains, as i64: the counter ± 1 may pass the i32 range.
    const second = `(i64.${up ? "add" : "sub"} (i64.extend_i32_s ${counter}) (i64.const 1))`;
    const bound = `(i64.extend_i32_s ${this.invariantValue(plan.bound, "i32")})`;
    const goesOn = { lt: "lt_s", le: "le_s", gt: "gt_s", ge: "ge_s" }[plan.relation];
    this.line(`(br_if $ew_exit${n} (i32.eqz (i64.${goesOn} ${second} ${bound})))`);
    // Values taken from the tape: the first iteration's from the top, then the second's.
    const taken = plan.restored.length;
    if (taken > 0)
      this.line(`(local.set $tape (i32.sub (local.get $tape) (i32.const ${16 * taken})))`);
    let saves = 0;
    let takes = 0;
    for (const op of plan.ops) {
      const [a, b, c] = op.operands as [Value, Value, Value];
      if (op.opcode === "setIndex" || op.opcode === "addIndex") {
        const stored =
          op.opcode === "addIndex"
            ? `(f64x2.add (v128.load offset=8 ${at(a, b)}) ${vector(c)})`
            : vector(c);
        this.line(`(v128.store offset=8 ${at(a, b)} ${stored})`);
        continue;
      }
      if (op.opcode === "push") {
        // The first iteration's saves, then the second's; a comparison's result as 1 or 0.
        const saved =
          a.type === "boolean" ? `(v128.and ${vector(a)} (f64x2.splat (f64.const 1)))` : vector(a);
        // One save per iteration: both in one store, the first iteration's lane lowest.
        if (plan.saved.length === 1) {
          this.line(`(v128.store (local.get $tape) ${up ? saved : swapLanes(saved)})`);
          saves++;
          continue;
        }
        for (const [iteration, l] of order.entries()) {
          const offset = 8 * (saves + iteration * plan.saved.length);
          this.line(
            `(f64.store offset=${offset} (local.get $tape) (f64x2.extract_lane ${l} ${saved}))`,
          );
        }
        saves++;
        continue;
      }
      const r = op.results[0]!;
      this.pairLocals.set(lane(r), "v128");
      if (op.opcode === "math") {
        for (const statement of expPairStatements(vector(a), lane(r))) this.line(statement);
        continue;
      }
      let value: string;
      const settled = plan.settled.get(r.id);
      if (settled !== undefined) value = `(v128.const i64x2 ${settled ? "-1 -1" : "0 0"})`;
      else if (op.opcode === "pop") {
        // Counting down (elementwise-pairs.ts): the first iteration took from 8·(takes + 1)
        // below the top, the second from 8·(taken + takes + 1): addresses above the lowered
        // top; the second iteration's element is the lower, in lane 0.
        const from = (iteration: number) =>
          `(f64.load offset=${8 * (2 * taken - takes - 1 - iteration * taken)} (local.get $tape))`;
        value =
          taken === 1
            ? "(v128.load (local.get $tape))"
            : `(f64x2.replace_lane 1 (f64x2.splat ${from(1)}) ${from(0)})`;
        takes++;
      } else if (op.opcode === "index") value = `(v128.load offset=8 ${at(a, b)})`;
      else if (op.opcode === "select")
        value = `(v128.bitselect ${vector(b)} ${vector(c)} ${vector(a)})`;
      else if (op.opcode === "if") {
        const [then, otherwise] = op.regions.map((region) => vector(armValue(region)!));
        value = `(v128.bitselect ${then} ${otherwise} ${vector(a)})`;
      } else value = `(f64x2.${op.opcode} ${op.operands.map(vector).join(" ")})`;
      this.line(`(local.set ${lane(r)} ${value})`);
    }
    if (saves > 0)
      this.line(`(local.set $tape (i32.add (local.get $tape) (i32.const ${16 * saves})))`);
    // The changing carried numbers, the first iteration's ops then the second's, each state
    // advanced.
    const scalar = (v: Value) => `$ew${n}_s${v.id}`;
    for (const l of order) {
      const operand = (v: Value): string => {
        const op = this.definitions.get(v.id);
        if (op && plan.serial.includes(op)) return `(local.get ${scalar(v)})`;
        if (plan.lanes.has(v.id)) return `(f64x2.extract_lane ${l} (local.get ${lane(v)}))`;
        const carried = plan.carried.get(v.id);
        return carried ? this.num(carried) : this.invariantValue(v, "f64");
      };
      for (const op of plan.serial) {
        const r = op.results[0]!;
        this.pairLocals.set(scalar(r), "f64");
        this.line(
          `(local.set ${scalar(r)} (f64.${op.opcode} ${op.operands.map(operand).join(" ")}))`,
        );
      }
      for (const { state, next } of plan.changing)
        this.line(`(local.set ${local(state)} (local.get ${scalar(next)}))`);
    }
    this.line(
      `(local.set ${local(plan.counter)} (i32.${up ? "add" : "sub"} ${counter} (i32.const 2)))`,
    );
    this.line(`(br $ew_next${n})`);
    this.indent--;
    this.line(")");
    this.indent--;
    this.line(")");
    this.body.splice(hoistAt, 0, ...hoisted.map((text) => `${hoistIndent}${text}`));
  }

  /**
   * Iterations j to j + 3 of the loop at once, then j and j + 1 (paired-iterations.ts), their
   * inner loop's sums in the lanes of f64x2s, then back to the loop's head; falls through to
   * the iteration as it is when fewer remain or a row is shorter than the inner loop.
   */
  private pairedIterations(loop: Op, plan: PairedIterations, next: number): void {
    // Four lanes (two vectors) hide the latency of each sum's chain of additions better than
    // two: kmeans' cost 1.85× faster than scalar code, against 1.45× (docs/native-gap.md).
    for (const width of [4, 2]) this.lanes(loop, plan, next, width);
  }

  /** `width` iterations of the loop at once (2 or 4), or a fall through when they cannot. */
  private lanes(loop: Op, plan: PairedIterations, next: number, width: number): void {
    const [before, after] = loop.regions as [Region, Region];
    const [, ...forwarded] = terminator(before).operands;
    const { inner, innerCounter } = plan;
    const [, body] = inner.regions as [Region, Region];
    const n = this.labels++;
    const counter = this.get(plan.counter);
    const lanes = Array.from({ length: width }, (_, lane) => lane);
    const halves = lanes.filter((lane) => lane % 2 === 0).map((lane) => lane / 2);
    this.line(`(block $single${n}`);
    this.indent++;
    // As i64: the counter plus width − 1 may pass the i32 range.
    this.line(
      `(br_if $single${n} (i64.ge_s (i64.add (i64.extend_i32_s ${counter}) (i64.const ${width - 1})) (i64.extend_i32_s ${this.get(plan.bound)})))`,
    );
    // Each lane's prefix values, the counter moved to j + lane, then back.
    const laneLocal = (lane: number, v: Value) => `$lane${lane}_${v.id}`;
    for (const lane of lanes) {
      if (lane > 0)
        this.line(`(local.set ${local(plan.counter)} (i32.add ${counter} (i32.const 1)))`);
      this.ops(plan.prefix);
      for (const v of plan.perLane) {
        const name = laneLocal(lane, v);
        this.pairLocals.set(name, this.isInt(v) || isArray(v.type) ? "i32" : "f64");
        this.line(`(local.set ${name} ${this.get(v)})`);
      }
    }
    this.line(`(local.set ${local(plan.counter)} (i32.sub ${counter} (i32.const ${width - 1})))`);
    const perLane = new Set(plan.perLane);
    const start = this.invariantValue(plan.innerStart, "i32");
    const laneLength = (lane: number, a: Value) => `(i32.load (local.get ${laneLocal(lane, a)}))`;
    const { boundArray } = plan;
    // The inner loop's bound: the same in every lane (a length of each lane's row, all equal).
    const bound = `(local.get $pair_bound${n})`;
    this.pairLocals.set(`$pair_bound${n}`, "i32");
    this.line(
      `(local.set $pair_bound${n} ${boundArray ? laneLength(0, boundArray) : this.invariantValue(plan.innerBound, "i32")})`,
    );
    const sameBound = boundArray
      ? lanes.slice(1).map((lane) => `(i32.eq ${bound} ${laneLength(lane, boundArray)})`)
      : [];
    // Every array the inner loop reads holds its bound's elements, in each lane.
    const lengths = plan.arrays.flatMap((a) =>
      perLane.has(a) ? lanes.map((lane) => laneLength(lane, a)) : [this.lengthOf(a)],
    );
    const fits = lengths
      .map((length) => `(i32.le_s ${bound} ${length})`)
      .reduce((all, test) => `(i32.and ${all} ${test})`, `(i32.ge_s ${start} (i32.const 0))`);
    for (const test of sameBound) this.line(`(br_if $single${n} (i32.eqz ${test}))`);
    // The arrays the rest of the iterations store into are none of those read before it.
    const read = [...new Set([...plan.arrays, ...plan.prefixArrays])].flatMap((a) =>
      perLane.has(a) ? lanes.map((lane) => `(local.get ${laneLocal(lane, a)})`) : [this.get(a)],
    );
    for (const w of plan.written)
      for (const r of read) this.line(`(br_if $single${n} (i32.eq ${this.get(w)} ${r}))`);
    this.line(`(br_if $single${n} (i32.eqz (i32.or (i32.ge_s ${start} ${bound}) ${fits})))`);

    // The inner loop, all lanes at once: lanes 2h and 2h + 1 in the vectors of half h.
    const q = `$pair_q${n}`;
    this.pairLocals.set(q, "i32");
    const sum = (k: number, h: number) => `$pair${n}_sum${k}_${h}`;
    const made = new Set(body.ops.flatMap((o) => o.results.map((r) => r.id)));
    const vector = (v: Value, h: number): string => {
      const k = body.params.indexOf(v);
      if (k >= 0) return `(local.get ${sum(k, h)})`;
      const op = this.definitions.get(v.id);
      if (op?.opcode === "const") return `(f64x2.splat ${this.invariantValue(v, "f64")})`;
      if (perLane.has(v)) {
        const lane = (l: number) =>
          this.isInt(v)
            ? `(f64.convert_i32_s (local.get ${laneLocal(l, v)}))`
            : `(local.get ${laneLocal(l, v)})`;
        return `(f64x2.replace_lane 1 (f64x2.splat ${lane(2 * h)}) ${lane(2 * h + 1)})`;
      }
      if (made.has(v.id)) return `(local.get $pair${n}_v${v.id}_${h})`;
      return `(f64x2.splat ${this.invariantValue(v, "f64")})`;
    };
    this.line(`(local.set ${q} ${start})`);
    inner.operands.forEach((v, k) => {
      if (k === innerCounter) return;
      for (const h of halves) {
        this.pairLocals.set(sum(k, h), "v128");
        this.line(`(local.set ${sum(k, h)} ${vector(v, h)})`);
      }
    });
    this.line(`(block $pair_exit${n}`);
    this.indent++;
    this.line(`(loop $pair_next${n}`);
    this.indent++;
    this.line(`(br_if $pair_exit${n} (i32.ge_s (local.get ${q}) ${bound}))`);
    const yielded = terminator(body).operands;
    const step = yielded[innerCounter]!;
    const at = (base: string) => `(i32.add ${base} (i32.shl (local.get ${q}) (i32.const 3)))`;
    for (const op of body.ops.slice(0, -1)) {
      const r = op.results[0]!;
      if (r === step || op.opcode === "const") continue;
      for (const h of halves) {
        const name = `$pair${n}_v${r.id}_${h}`;
        this.pairLocals.set(name, "v128");
        if (op.opcode === "index") {
          const [a] = op.operands as [Value];
          const row = (lane: number) => at(`(local.get ${laneLocal(lane, a)})`);
          const load = perLane.has(a)
            ? `(v128.load64_lane offset=8 1 ${row(2 * h + 1)} (v128.load64_zero offset=8 ${row(2 * h)}))`
            : `(v128.load64_splat offset=8 ${at(this.get(a))})`;
          this.line(`(local.set ${name} ${load})`);
        } else {
          const operands = op.operands.map((v) => vector(v, h)).join(" ");
          this.line(`(local.set ${name} (f64x2.${op.opcode} ${operands}))`);
        }
      }
    }
    const sums = yielded.map((_, k) => k).filter((k) => k !== innerCounter);
    for (const k of sums) for (const h of halves) this.line(vector(yielded[k]!, h));
    for (const k of [...sums].reverse())
      for (const h of [...halves].reverse()) this.line(`(local.set ${sum(k, h)})`);
    this.line(`(local.set ${q} (i32.add (local.get ${q}) (i32.const 1)))`);
    this.line(`(br $pair_next${n})`);
    this.indent--;
    this.line(")");
    this.indent--;
    this.line(")");

    // The rest of each iteration in order, each after its prefix again.
    const yieldedOuter = terminator(after).operands;
    for (const lane of lanes) {
      this.ops(plan.prefix);
      inner.results.forEach((r, k) =>
        this.set(
          r,
          k === innerCounter
            ? `(local.get ${q})`
            : `(f64x2.extract_lane ${lane % 2} (local.get ${sum(k, lane >> 1)}))`,
        ),
      );
      this.ops(plan.suffix);
      this.move(before.params, yieldedOuter);
      if (lane < width - 1) {
        this.region(before);
        this.move(after.params, forwarded);
      }
    }
    this.line(`(br $next${next})`);
    this.indent--;
    this.line(")");
  }

  /** Ops of a region, or a part of one (paired iterations' prefix and suffix). */
  private ops(ops: Op[]): void {
    this.checked.push(new Set());
    for (const op of ops) {
      this.op(op);
      // Every array an op defines keeps its length in a local (see keepLength).
      for (const r of op.results) if (isArray(r.type) && this.locals.has(r.id)) this.keepLength(r);
    }
    this.checked.pop();
  }

  /**
   * A value the same at every iteration of a loop (paired-iterations.ts), as an i32 or an f64,
   * from what defines it: its local may not be set where it is needed.
   */
  private invariantValue(v: Value, as: "i32" | "f64"): string {
    const op = this.definitions.get(v.id);
    if (op?.opcode === "const" && typeof op.attrs.value === "number")
      return as === "i32"
        ? `(i32.const ${op.attrs.value})`
        : `(f64.const ${f64Text(op.attrs.value)})`;
    if (op?.opcode === "length") {
      const length = this.lengthOf(op.operands[0]!);
      return as === "i32" ? length : `(f64.convert_i32_u ${length})`;
    }
    return as === "i32" ? this.get(v) : this.num(v);
  }

  /**
   * The test for a loop's fast path: its accesses within bounds throughout, and the arrays
   * whose slots it holds in locals apart from every other array or object it touches.
   */
  private fastPathTest(prechecks: LoopPrechecks, promotion: SlotPromotion | undefined): string {
    const inBounds = this.inBoundsThroughout(prechecks);
    if (!promotion) return inBounds;
    const apart = promotion.slots.flatMap(({ array }) =>
      promotion.others
        .filter((other) => other !== array)
        .map((other) => `(i32.ne ${this.get(array)} ${this.get(other)})`),
    );
    return apart.reduce((all, test) => `(i32.and ${all} ${test})`, inBounds);
  }

  /** Reads each promoted slot into its local; their addresses, to write them back. */
  private holdSlots(promotion: SlotPromotion): { address: string; local: string }[] {
    return promotion.slots.map(({ array, index }) => {
      const local = `$slot${this.slotLocals++}`;
      const address = this.elementAddress(array, this.get(index));
      this.line(`(local.set ${local} (f64.load offset=8 ${address}))`);
      this.slots.set(`${array.id}[${index.id}]`, local);
      return { address, local };
    });
  }

  /** The array type of an operand (an error if it is none the backend carries). */
  private arrayOperand(v: Value) {
    const type = v.type;
    wasmType(type, this.what(valueText(v)));
    if (!isArray(type)) return this.fail(`an element read of a ${typeText(type)}`);
    return type;
  }

  /**
   * Index `i` of `array` as an i32 (its own local, or `$ix`), after checking it is an integer
   * within the length; traps otherwise (the call then runs as JavaScript).
   */
  private checkIndex(array: Value, i: Value): string {
    if (i.type !== "number") this.fail("an element read by a key that is not a number");
    const length = this.lengthOf(array);
    if (this.isInt(i)) {
      // The counter of a loop over this array's length (integer-bounds.ts) is in range.
      if (this.bounds.inBounds.get(i.id)?.has(array.id)) return this.get(i);
      // Checked already, earlier in this region or one around it (`a[i] += …` reads, then
      // writes): the same index of the same array, whose length does not change.
      const key = `${array.id}[${i.id}]`;
      if (this.checked.some((done) => done.has(key))) return this.get(i);
      this.checked[this.checked.length - 1]!.add(key);
      // Unsigned: a negative index is out of range too.
      this.line(`(if (i32.ge_u ${this.get(i)} ${length}) (then unreachable))`);
      return this.get(i);
    }
    this.line(`(local.set $ix (i32.trunc_sat_f64_u ${this.get(i)}))`);
    this.line(
      `(if (i32.or (f64.ne (f64.convert_i32_u (local.get $ix)) ${this.get(i)}) (i32.ge_u (local.get $ix) ${length})) (then unreachable))`,
    );
    return "(local.get $ix)";
  }

  /**
   * The settled tests (absent-values.ts), and on a loop's fast path, whose accesses `checked`
   * are within bounds, the tests whether one of them is undefined: false.
   */
  private settledWithin(checked: Set<string>): ReadonlyMap<number, boolean> {
    const within = [...this.absent.elementTests].filter(([, { array, index }]) =>
      checked.has(`${array.id}[${index.id}]`),
    );
    if (within.length === 0) return this.absent.settled;
    const settled = new Map(this.absent.settled);
    for (const [test, { absent }] of within) settled.set(test, !absent);
    return settled;
  }

  /**
   * `r = array[index]` read only where `guard`'s element, at the same index, is there
   * (AbsentValues.guarded: only there is `r` used): unchecked when it is `r` itself, else
   * checked as usual (a shorter array traps there, as JavaScript would compute with
   * undefined). False where the guard's index is known in range or `r` is held in a local:
   * the `index` rule reads it as usual.
   */
  private guardedRead(op: Op, guard: ElementTest): boolean {
    const [array, index] = op.operands as [Value, Value];
    const r = op.results[0]!;
    if (this.slots.has(`${array.id}[${index.id}]`)) return false;
    const out = this.outOfRange(guard);
    if (out === "(i32.const 0)") return false;
    const name = this.define(r);
    const element = (f64: string) => (this.isInt(r) ? `(i32.trunc_f64_s ${f64})` : f64);
    if (guard.read === r) {
      const at = this.isInt(index) ? this.get(index) : "(local.get $ix)";
      const load = `(f64.load offset=8 ${this.elementAddress(array, at)})`;
      this.line(`(if (i32.eqz ${out}) (then (local.set ${name} ${element(load)})))`);
      return true;
    }
    this.line(`(if (i32.eqz ${out}) (then`);
    // Checked only in this branch: not for what follows it.
    this.checked.push(new Set());
    const at = this.checkIndex(array, index);
    this.line(
      `(local.set ${name} ${element(`(f64.load offset=8 ${this.elementAddress(array, at)})`)})`,
    );
    this.checked.pop();
    this.line("))");
    return true;
  }

  /**
   * Whether `array[index]` is undefined: its index out of range (not an integer from 0 to the
   * length), as checkIndex tests it; false where the index was checked already.
   */
  private outOfRange({ array, index }: ElementRead): string {
    const length = this.lengthOf(array);
    if (this.isInt(index)) {
      const key = `${array.id}[${index.id}]`;
      if (this.bounds.inBounds.get(index.id)?.has(array.id)) return "(i32.const 0)";
      if (this.checked.some((done) => done.has(key))) return "(i32.const 0)";
      return `(i32.ge_u ${this.get(index)} ${length})`;
    }
    this.line(`(local.set $ix (i32.trunc_sat_f64_u ${this.get(index)}))`);
    return `(i32.or (f64.ne (f64.convert_i32_u (local.get $ix)) ${this.get(index)}) (i32.ge_u (local.get $ix) ${length}))`;
  }

  /**
   * Keeps an array's length in a local from where it is defined: an array in wasm memory keeps
   * its length (an append updates the local, makeRoom), and V8 does not hoist the load out of
   * the loops that test it.
   */
  private keepLength(array: Value): void {
    if (!isArray(array.type)) return;
    const name = `$len${array.id}`;
    this.lengths.set(array.id, name);
    this.line(`(local.set ${name} (i32.load ${this.get(array)}))`);
  }

  /** `array.length`, from its local when it has one. */
  lengthOf(array: Value): string {
    const kept = this.lengths.get(array.id);
    return kept ? `(local.get ${kept})` : `(i32.load ${this.get(array)})`;
  }

  /**
   * Whether the loop about to start runs at least PRECHECKED_TRIPS times and each access it
   * makes at every iteration (loop-prechecks.ts) is within bounds at its first and last
   * iteration, hence at all (computed as i64: no overflow); its result is in `$inBounds`.
   */
  private inBoundsThroughout({ counter, accesses, inside }: LoopPrechecks): string {
    // A value made in the loop has no value yet in its local: computed here from what it is
    // made of (loop-prechecks.ts says which), as i64 (no overflow).
    const wide = (v: Value): string => {
      const op = this.definitions.get(v.id);
      if (op?.opcode === "const") return `(i64.const ${op.attrs.value as number})`;
      if (!inside.has(v.id)) return `(i64.extend_i32_s ${this.get(v)})`;
      if (op?.opcode === "length") return `(i64.extend_i32_u ${this.lengthOf(op.operands[0]!)})`;
      const [a, b] = op!.operands as [Value, Value];
      return `(i64.${op!.opcode} ${wide(a)} ${wide(b)})`;
    };
    const up = counter.relation === "lt" || counter.relation === "le";
    const [high, low] = up ? [counter.bound, counter.start] : [counter.start, counter.bound];
    const inclusive = counter.relation === "le" || counter.relation === "ge";
    const trips = `(i64.sub ${wide(high)} ${wide(low)})`;
    this.line(`(local.set $trips ${inclusive ? `(i64.add ${trips} (i64.const 1))` : trips})`);
    const within = accesses.map((a) => {
      const start =
        a.scale === 1 ? wide(a.start) : `(i64.mul ${wide(a.start)} (i64.const ${a.scale}))`;
      let first = `(i64.add ${start} (i64.const ${a.constant}))`;
      if (a.offset)
        first = `(i64.${a.offset.sign > 0 ? "add" : "sub"} ${first} ${wide(a.offset.value)})`;
      const move = a.scale * a.step;
      const last = `(i64.add ${first} (i64.mul (i64.sub (local.get $trips) (i64.const 1)) (i64.const ${move})))`;
      const [lowest, highest] = move >= 0 ? [first, last] : [last, first];
      const length = `(i64.extend_i32_u ${this.lengthOf(a.array)})`;
      return `(i32.and (i64.ge_s ${lowest} (i64.const 0)) (i64.lt_s ${highest} ${length}))`;
    });
    const all = within.reduce((x, y) => `(i32.and ${x} ${y})`);
    this.line("(local.set $inBounds (i32.const 0))");
    this.line(
      `(if (i64.ge_s (local.get $trips) (i64.const ${PRECHECKED_TRIPS})) (then (local.set $inBounds ${all})))`,
    );
    return "(local.get $inBounds)";
  }

  /**
   * The number a store of `value` into an array of `type` leaves in its cell: converted as
   * JavaScript's store converts it (typed-array-stores.ts).
   */
  private storedInto(type: ArrayType, value: string): string {
    if (!convertsStores(type.storage)) return value;
    this.declareLocal("$stored_int", "i32");
    return storedValue(type, value, this.declareLocal("$stored", "f64"));
  }

  /** `storedInto` of a number value `v`: an integer kept as i32 stored without a ToInt32. */
  private storedNumber(type: ArrayType, v: Value): string {
    if (!this.isInt(v) || !convertsStores(type.storage)) return this.storedInto(type, this.num(v));
    return storedValue(type, this.get(v), this.declareLocal("$stored", "f64"), true);
  }

  /**
   * A bit operator (`x & 3`, `h >>> 0`, Math.imul) as JavaScript computes it: its operands
   * converted by ToInt32 (int32.ts), an integer kept as i32 as it is. Other `nondiff` ops
   * (string methods, `instanceof`…) are not covered.
   */
  private bitOperation(op: Op, r: Value): void {
    const callee = op.attrs.callee ?? "";
    const numbers = op.operands.every((v) => v.type === "number");
    if (!numbers || !isBitOperation(callee, op.operands.length)) return this.fail(describe(op));
    const scratch = this.declareLocal("$stored", "f64");
    this.declareLocal("$stored_int", "i32");
    // One operand's conversion is done (its scratch read) before the next one's starts.
    const operands = op.operands.map((v) =>
      this.isInt(v) ? this.get(v) : toInt32(this.get(v), scratch),
    );
    const bits = bitOperation(callee, operands);
    if (this.isInt(r)) return this.set(r, bits);
    const signed = isSignedBitOperation(callee);
    this.set(r, `(f64.convert_i32_${signed ? "s" : "u"} ${bits})`);
  }

  /** The address of element `index` (an i32) of `array`, less the 8 bytes of its header. */
  private elementAddress(array: Value, index: string): string {
    return `(i32.add ${this.get(array)} (i32.shl ${index} (i32.const 3)))`;
  }

  private store(op: Op): void {
    const [array, i, v] = op.operands as [Value, Value, Value];
    const type = this.arrayOperand(array);
    const numbers = holdsNumbers(type);
    if (op.opcode === "addIndex" && !numbers) this.fail("adding into an array of arrays");
    if (i.type !== "number") this.fail("an element write by a key that is not a number");
    if (!numbers) this.flows(v.type, type.elements?.[0] ?? type.element);
    const value = numbers ? this.num(v) : this.get(v);
    const slot = this.slots.get(`${array.id}[${i.id}]`);
    if (slot) {
      const sum = op.opcode === "addIndex" ? `(f64.add (local.get ${slot}) ${value})` : value;
      this.line(`(local.set ${slot} ${this.storedInto(type, sum)})`);
      return;
    }
    const storeAt = (index: string) => {
      const address = this.elementAddress(array, index);
      if (!numbers) return `(i32.store offset=8 ${address} ${value})`;
      const stored =
        op.opcode === "addIndex"
          ? this.storedInto(type, `(f64.add (f64.load offset=8 ${address}) ${value})`)
          : this.storedNumber(type, v);
      return `(f64.store offset=8 ${address} ${stored})`;
    };
    if (op.attrs.ifExists) {
      // Adds only where the element exists (see the `index` rule of rules/transpose.ts).
      const length = this.lengthOf(array);
      if (this.isInt(i)) {
        this.line(`(if (i32.lt_u ${this.get(i)} ${length}) (then ${storeAt(this.get(i))}))`);
        return;
      }
      this.line(`(local.set $ix (i32.trunc_sat_f64_u ${this.get(i)}))`);
      this.line(
        `(if (i32.and (f64.eq (f64.convert_i32_u (local.get $ix)) ${this.get(i)}) (i32.lt_u (local.get $ix) ${length})) (then ${storeAt("(local.get $ix)")}))`,
      );
      return;
    }
    this.line(storeAt(isAppend(op) ? this.makeRoom(array, i) : this.checkIndex(array, i)));
  }

  /** Whether `array` is one the function appends to, allocated with room to grow. */
  isGrowing(array: Value): boolean {
    return this.growing.growing.has(array.id);
  }

  /**
   * Before an append of lanes to flat tangent array `array` whose first cell is `first` (an
   * i64: the element's index times k): k more cells (`$growBy`) when it is the array's length,
   * its local and length local updated; past the end, a trap.
   */
  laneAppendRoom(array: Value, first: string): void {
    if (!this.growing.growing.has(array.id))
      this.fail(this.growing.whyNot(array.id) ?? "an array the function lengthens (push)");
    const length = `(i64.extend_i32_u ${this.lengthOf(array)})`;
    const kept = this.lengths.get(array.id);
    const learn = kept ? ` (local.set ${kept} (i32.load ${this.get(array)}))` : "";
    this.line(
      `(if (i64.ge_u ${first} ${length}) (then (if (i64.ne ${first} ${length}) (then unreachable)) (local.set ${local(array)} (call $growBy ${this.get(array)} (local.get $k)))${learn}))`,
    );
  }

  /**
   * Before an append `array[i] = v` (i is the length, growing-arrays.ts): an array full to
   * its capacity moves to a larger block (`$growBy`), which its local learns; the index, which
   * is returned, is checked to be a length (a hole past the end traps).
   */
  private makeRoom(array: Value, i: Value): string {
    if (!this.growing.growing.has(array.id))
      this.fail(this.growing.whyNot(array.id) ?? "an array the function lengthens (push)");
    let index = this.get(i);
    if (!this.isInt(i)) {
      this.line(`(local.set $ix (i32.trunc_sat_f64_u ${this.get(i)}))`);
      this.line(
        `(if (f64.ne (f64.convert_i32_u (local.get $ix)) ${this.get(i)}) (then unreachable))`,
      );
      index = "(local.get $ix)";
    }
    const length = this.lengthOf(array);
    const kept = this.lengths.get(array.id);
    const learn = kept ? ` (local.set ${kept} (i32.load ${this.get(array)}))` : "";
    this.line(
      `(if (i32.ge_u ${index} ${length}) (then (if (i32.ne ${index} ${length}) (then unreachable)) (local.set ${local(array)} (call $growBy ${this.get(array)} (i32.const 1)))${learn}))`,
    );
    return index;
  }

  private literal(op: Op): void {
    const r = op.results[0]!;
    const type = r.type;
    if (isObject(type)) return this.objectLiteral(op);
    if (!isArray(type)) return this.fail(`a literal of type ${typeText(type)}`);
    wasmType(type, this.what("an array literal"));
    if (op.operands.some((v) => this.absent.presence(v) !== "number"))
      this.fail("an array literal with an element that may be undefined");
    if (!holdsNumbers(type)) op.operands.forEach((v) => this.flows(v.type, type.element));
    const numbers = holdsNumbers(type);
    // One the function appends to gets room for a few more (growing-arrays.ts).
    const allocation = this.growing.growing.has(r.id)
      ? `(call $allocGrowable (i32.const ${op.operands.length}))`
      : `(call $allocCells (i32.const ${op.operands.length}))`;
    this.line(`(local.set ${this.define(r)} ${allocation})`);
    op.operands.forEach((v, k) =>
      this.line(
        `(${numbers ? "f64" : "i32"}.store offset=${8 + 8 * k} ${this.get(r)} ${numbers ? this.storedNumber(type, v) : this.get(v)})`,
      ),
    );
  }

  /** The field `name` of object `object`, its type's field `k` (8 + 8k bytes in). */
  private fieldAt(
    object: Value,
    name: string,
  ): { offset: number; type: Type; optional: number | undefined } {
    const type = object.type;
    wasmType(type, this.what(valueText(object)));
    if (!isObject(type)) return this.fail(`the field '${name}' of a ${typeText(type)}`);
    const k = type.fields.findIndex((f) => f.name === name);
    if (k < 0) return this.fail(`the field '${name}', which ${typeText(type)} does not declare`);
    const opaque = opaqueField(type.fields[k]!, k);
    if (opaque !== undefined)
      return this.fail(`the field '${name}' of ${typeText(type)} (${opaque})`);
    const optional = type.fields[k]!.optional ? k : undefined;
    return { offset: 8 + 8 * k, type: type.fields[k]!.type, optional };
  }

  private fieldRead(object: Value, name: string, r: Value): string {
    const field = this.fieldAt(object, name);
    this.flows(field.type, r.type);
    const load = field.type === "number" ? "f64.load" : "i32.load";
    return `(${load} offset=${field.offset} ${this.get(object)})`;
  }

  /** `setField` (object.field = v) and reverse mode's `addField` (object.field += v). */
  private fieldWrite(op: Op): void {
    const [object, v] = op.operands as [Value, Value];
    const field = this.fieldAt(object, op.attrs.field!);
    this.flows(v.type, field.type);
    const address = `offset=${field.offset} ${this.get(object)}`;
    // Written, an optional field is there (`+=` on one it lacks makes NaN, as in JavaScript).
    if (field.optional !== undefined)
      this.line(
        `(i32.store offset=4 ${this.get(object)} (i32.or (i32.load offset=4 ${this.get(object)}) (i32.const ${presenceBit(field.optional)})))`,
      );
    if (field.type !== "number") {
      if (op.opcode === "addField") this.fail(`adding into the field '${op.attrs.field}'`);
      this.line(`(i32.store ${address} ${this.get(v)})`);
      return;
    }
    const stored =
      op.opcode === "addField" ? `(f64.add (f64.load ${address}) ${this.num(v)})` : this.num(v);
    this.line(`(f64.store ${address} ${stored})`);
  }

  /** `{ a, b }`: a block of its fields, in its type's order (operands are in that order). */
  private objectLiteral(op: Op): void {
    const r = op.results[0]!;
    const type = r.type;
    if (!isObject(type) || op.attrs.arrowFields)
      return this.fail("an object with arrow-function fields");
    wasmType(type, this.what("an object literal"));
    this.line(`(local.set ${this.define(r)} (call $allocCells (i32.const ${type.fields.length})))`);
    let present = 0;
    type.fields.forEach((f, k) => {
      const v = op.operands[k]!;
      const opaque = opaqueField(f, k);
      if (opaque !== undefined)
        this.fail(`an object literal with the field '${f.name}' (${opaque})`);
      this.flows(v.type, f.type);
      // An optional field left out (undefined) is absent: its cell NaN or 0 (kinds.ts). A
      // field undefined until set, before anything reads it (`new C()`): never seen.
      const presence = this.absent.presence(v);
      const setBeforeRead = this.absent.setBeforeRead.get(r.id)?.has(f.name) ?? false;
      if (presence !== "number" && !(presence === "undefined" && (f.optional || setBeforeRead)))
        this.fail(`an object whose field '${f.name}' may be undefined where it is made`);
      if (f.optional && presence === "number") present |= presenceBit(k);
      const stored = f.type === "number" ? `(f64.store` : `(i32.store`;
      const value = f.type === "number" ? this.num(v) : this.get(v);
      this.line(`${stored} offset=${8 + 8 * k} ${this.get(r)} ${value})`);
    });
    if (present !== 0) this.line(`(i32.store offset=4 ${this.get(r)} (i32.const ${present | 0}))`);
  }

  /**
   * A value of type `from` used as one of type `to` (a callee's parameter, a field, a loop's
   * carried value): their objects must lie in memory alike (kinds.ts), or the code reading it
   * would read the wrong fields.
   */
  private flows(from: Type, to: Type): void {
    if (sameLayout(from, to)) return;
    const [a, b] = [typeText(from), typeText(to)];
    // Of one name (`{ ...s, v }` where `s: State`): the fields, whose order or set differs.
    const fields = (t: Type) =>
      isObject(t) ? `{ ${t.fields.map((f) => f.name).join(", ")} }` : "";
    if (a === b && isObject(from) && isObject(to))
      this.fail(
        `a ${a} with its fields as ${fields(from)} used as one with ${fields(to)} (wasm lays fields out in order)`,
      );
    this.fail(`a ${a} used as a ${b} (their fields differ)`);
  }

  /** `reserved`: a `reserve` before the loop made room for it (as in the JavaScript backend). */
  private push(v: Value, reserved: boolean): void {
    const type = wasmType(v.type, this.what("a value saved on the tape"));
    if (type === "i32" && v.type !== "boolean") {
      // An array: on the stack of addresses, as JavaScript keeps arrays on the object stack.
      this.line(
        `(if (i32.ge_u (global.get $objects_top) (global.get $objects_end)) (then (call $overflow (i32.const ${OVERFLOW.objects}))))`,
      );
      this.line(`(i32.store (global.get $objects_top) ${this.get(v)})`);
      this.line(`(global.set $objects_top (i32.add (global.get $objects_top) (i32.const 4)))`);
      return;
    }
    const saved = v.type === "boolean" ? `(f64.convert_i32_u ${this.get(v)})` : this.num(v);
    if (!reserved)
      this.line(
        `(if (i32.ge_u (local.get $tape) (local.get $tape_end)) (then (call $overflow (i32.const ${OVERFLOW.tape}))))`,
      );
    this.line(`(f64.store (local.get $tape) ${saved})`);
    this.line(`(local.set $tape (i32.add (local.get $tape) (i32.const 8)))`);
  }

  private pop(op: Op, r: Value): void {
    const type = wasmType(r.type, this.what("a value taken from the tape"));
    if (type === "i32" && r.type !== "boolean") {
      this.line(`(global.set $objects_top (i32.sub (global.get $objects_top) (i32.const 4)))`);
      return this.set(r, `(i32.load (global.get $objects_top))`);
    }
    this.line(`(local.set $tape (i32.sub (local.get $tape) (i32.const 8)))`);
    const loaded = "(f64.load (local.get $tape))";
    if (r.type === "boolean") return this.set(r, `(f64.ne ${loaded} (f64.const 0))`);
    // `x | 0`, for the trip counts saved as integers.
    if (op.attrs.value === "int") return this.set(r, `(i32.trunc_sat_f64_s ${loaded})`);
    if (!this.isInt(r)) return this.set(r, loaded);
    // A saved number that leads to an index (integers.ts): an i32 if it is one to the bit (not
    // -0, not 2.5), else the call traps and runs as JavaScript.
    this.line(`(local.set $saved ${loaded})`);
    this.set(r, `(i32.trunc_sat_f64_s (local.get $saved))`);
    this.line(
      `(if (i64.ne (i64.reinterpret_f64 (f64.convert_i32_s ${this.get(r)})) (i64.reinterpret_f64 (local.get $saved))) (then unreachable))`,
    );
  }
}

/** An f64x2 with its two lanes exchanged. */
function swapLanes(vector: string): string {
  return `(i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 ${vector} ${vector})`;
}

function local(v: Value): string {
  return `$v${v.id}`;
}

/** The runtime function a `throw` calls (lower/throw.ts). */
const RAISE = "nabla:raise";
/** The runtime function that refuses an array with holes where it leaves a function. */
const REFUSE_HOLES = "nabla:refuseHoles";

/**
 * The values of `fn` used only to make an error's message: each use is the `raise` of a
 * `throw`, or a pure op whose results are such values (`r.toFixed(3)` in a template).
 */
function valuesOnlyRaised(fn: IRFunction): Set<number> {
  const users = new Map<number, Op[]>();
  const ops: Op[] = [];
  forEachOp(fn.body, (op) => {
    ops.push(op);
    for (const v of op.operands) {
      const list = users.get(v.id);
      if (list) list.push(op);
      else users.set(v.id, [op]);
    }
  });
  // Later ops first: a value's users mostly come after it (nested regions may need a rerun).
  ops.reverse();
  const only = new Set<number>();
  const raisedOnly = (op: Op): boolean =>
    (op.opcode === "extern" && (op.attrs.callee === RAISE || op.attrs.callee === REFUSE_HOLES)) ||
    (isPure(op) && op.regions.length === 0 && op.results.every((v) => only.has(v.id)));
  for (let changed = true; changed;) {
    changed = false;
    for (const op of ops) {
      if (!isPure(op) || op.regions.length > 0) continue;
      for (const v of op.results) {
        const uses = users.get(v.id);
        if (!only.has(v.id) && uses && uses.every(raisedOnly)) {
          only.add(v.id);
          changed = true;
        }
      }
    }
  }
  return only;
}

/** An op the backend does not cover, as a message names it. */
function describe(op: Op): string {
  switch (op.opcode) {
    case "extern":
      return `a call of ${op.attrs.callee}`;
    case "nondiff":
      if (op.attrs.comparator) return "a sort by a comparator (JavaScript's own sort calls it)";
      // wasm marks an optional field present by its value: a key set to undefined looks absent.
      if (op.attrs.callee === "in")
        return "a test whether an object has a key ('in', which spreading an object with optional fields, '{ ...defaults, ...options }', makes too; wasm does not tell a key set to undefined from one left out)";
      // wasm holds a string as an id: it compares strings for equality, and makes none.
      if (op.operands.some((v) => v.type === "string"))
        return stringOperation(String(op.attrs.callee));
      return `the operation '${op.attrs.callee}'`;
    case "call":
      return `a call of '${op.attrs.calleeName ?? op.attrs.callee?.split("#").pop()}'`;
    case "field":
    case "setField":
    case "addField":
      return `the field '${op.attrs.field}' of an object`;
    case "closure":
      return "a function value";
    case "adjust":
      return "the derivative given by withDerivative";
    case "nullish":
      return "a test for null or undefined";
    case "truncate":
      return "an array shortened in place ('pop', 'shift', 'splice' or 'length = n')";
    case "eq":
    case "ne":
      return "a comparison for equality ('===', '!==')";
    case "not":
      return "a negation ('!')";
    case "and":
    case "or":
      return "a logical operator ('&&', '||')";
    case "index":
      return "an element read, as its index";
    case "setIndex":
    case "addIndex":
      return "a store into an array";
    case "literal":
      return "an array or object literal";
    case "return":
      return "its result";
    case "push":
      return "the values saved for the backward sweep";
    default:
      return `the operation '${op.opcode}'`;
  }
}

/** What a string operation wasm does not cover is, for the message. */
function stringOperation(callee: string): string {
  switch (callee) {
    case ".length":
      return "the length of a string (wasm compares strings for equality only)";
    case "[]":
      return "a character of a string ('s[i]'; wasm compares strings for equality only)";
    case "+":
      return "text made with '+' or a template literal (a sort without a comparator makes it too: it orders numbers as text; wasm compares strings for equality only)";
    case "<":
    case "<=":
    case ">":
    case ">=":
      return `an ordering of strings ('${callee}'; wasm compares strings for equality only)`;
    default:
      return `the string operation '${callee}' (wasm compares strings for equality only)`;
  }
}

/** Where only a boolean's truthiness counts (a loop carries it to such a use). */
const TRUTH_USES = new Set(["if", "not", "and", "or", "loop"]);

/** Whether wasm holds an absent value of `type` as 0, which no value of it is (kinds.ts). */
function heldAsZero(type: Type): boolean {
  return type === "string" || isAggregate(type);
}

/**
 * A value as a message names it: by the variable it holds, or as the derivative of one; not
 * by the compiler's own names (none, `$i0`) nor `dt`, which linearize gives the tangent of a
 * value without a name.
 */
function valueText(v: Value): string {
  if (v.hint === "dt") return "a derivative";
  if (!/^[A-Za-z_][\w$]*$/.test(v.hint)) return v.tangent ? "a derivative" : "a value";
  return v.tangent && /^d./.test(v.hint) ? `the derivative of '${v.hint.slice(1)}'` : `'${v.hint}'`;
}
