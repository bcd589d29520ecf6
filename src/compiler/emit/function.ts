import {
  isPure,
  WRITES_MEMORY,
  type IRFunction,
  type Op,
  type Region,
  type SourceLoc,
  type Value,
} from "../ir/types.js";
import * as js from "./expression.js";
import { isAggregate } from "../ir/type-system.js";
import { allocation, clearing, literalOf, zerosLike } from "./aggregates.js";
import type { Expr } from "./expression.js";
import type { FunctionKey } from "../ir/types.js";

// IR function → readable JavaScript. Values used once in the region that defines them are
// inlined into their use as expressions; the others become `const`s named after the source
// variable they hold. `if` results and loop-carried values become `let`s. Extra results of a
// function (a derivative's value after its tangent) travel in the runtime's `out` register.

export interface EmittedLine {
  text: string;
  indent: number;
  loc: SourceLoc | undefined;
}

export interface EmitNames {
  /** How code in this module calls the function a `call` op names. */
  callee(op: Op): string;
  /** How code in this module reads the module-level constant a `global` op names. */
  global(name: string): string;
  /** How code in this module refers to the user function with this key, as a value. */
  functionValue(key: FunctionKey): string;
  /** The local name of the nabla runtime namespace import. */
  runtime: string;
}

const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else export extends false finally for function if " +
    "import in instanceof new null return super switch this throw true try typeof var void while with yield let static " +
    "enum await implements package protected interface private public arguments eval undefined NaN Infinity Math"
  ).split(" "),
);

/** Locals holding the reverse-mode tape's buffer and height inside a function that uses it. */
const TAPE = "$tape";
const TOP = "$top";

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
export function hoistedAdjustments(fns: IRFunction[]): EmittedLine[][] {
  const found = new Map<string, Op>();
  const visit = (region: Region) =>
    region.ops.forEach((op) => {
      if (op.opcode === "adjust" && op.attrs.value !== undefined) found.set(op.attrs.callee!, op);
      op.regions.forEach(visit);
    });
  fns.forEach((fn) => visit(fn.body));
  return [...found].map(([name, op]) => [
    {
      text: `function ${name}($derivative) { return (${String(op.attrs.value)})($derivative); }`,
      indent: 0,
      loc: op.loc,
    },
  ]);
}

/** A derivative nabla could not build for an optional demand (IRFunction.stub): it throws. */
export function emitUnavailable(fn: IRFunction): EmittedLine[] {
  return [
    { text: `export function ${fn.name}() {`, indent: 0, loc: fn.loc },
    { text: `throw new TypeError(${JSON.stringify(fn.stub)});`, indent: 1, loc: fn.loc },
    { text: "}", indent: 0, loc: undefined },
  ];
}

export function emitFunction(fn: IRFunction, names: EmitNames, exported: boolean): EmittedLine[] {
  return new FunctionEmitter(fn, names).emit(exported);
}

class FunctionEmitter {
  private readonly lines: EmittedLine[] = [];
  private readonly taken = new Set<string>(RESERVED);
  private readonly names = new Map<number, string>();
  private readonly inlined = new Map<number, Expr>();
  private readonly useCount = new Map<number, number>();
  private readonly useRegion = new Map<number, Region>();
  /**
   * Inlined values not used yet whose expression reads arrays or objects: a write must not
   * happen between the read and its use, so they become `const`s before any write.
   */
  private readonly pendingReads = new Map<number, Value>();
  private indent = 0;

  /** Whether the function pushes to or pops from the reverse-mode tape. */
  private pushes = false;
  private usesTape = false;

  constructor(
    private readonly fn: IRFunction,
    private readonly emitNames: EmitNames,
  ) {
    this.taken.add(emitNames.runtime);
    this.countUses(fn.body);
    if (this.usesTape) {
      this.taken.add(TAPE);
      this.taken.add(TOP);
    }
  }

  emit(exported: boolean): EmittedLine[] {
    const params = this.fn.params.map((p) => this.declare(p));
    this.line(
      `${exported ? "export " : ""}function ${this.fn.name}(${params.join(", ")}) {`,
      this.fn.loc,
    );
    this.indent++;
    if (this.usesTape) {
      // The tape's buffer and height live in locals (registers) while this function runs; the
      // shared `tape` object is brought up to date around derivative calls and on return.
      this.line(
        `let ${TAPE} = ${this.tapeObject}.buffer, ${TOP} = ${this.tapeObject}.top;`,
        undefined,
      );
    }
    this.region(this.fn.body);
    this.indent--;
    this.line("}", undefined);
    return this.lines;
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
      : callee;
  }

  private countUses(region: Region): void {
    for (const op of region.ops) {
      for (const v of op.operands) {
        this.useCount.set(v.id, (this.useCount.get(v.id) ?? 0) + 1);
        this.useRegion.set(v.id, region);
      }
      // Locals must not shadow the outside names the function refers to.
      if (op.opcode === "extern") this.taken.add(this.externName(op).split(".")[0]!);
      if (op.opcode === "global") this.taken.add(this.globalName(op));
      if (op.opcode === "call") this.taken.add(this.emitNames.callee(op).split(".")[0]!);
      if (op.opcode === "adjust") this.taken.add(this.emitNames.global(op.attrs.callee!));
      if (op.opcode === "push") this.pushes = this.usesTape = true;
      if (op.opcode === "pop") this.usesTape = true;
      op.regions.forEach((r) => this.countUses(r));
    }
  }

  private line(text: string, loc: SourceLoc | undefined): void {
    this.lines.push({ text, indent: this.indent, loc });
  }

  /** Picks a fresh JavaScript name for a value, from its source hint. */
  private declare(v: Value, preferred?: string): string {
    const base = (preferred ?? v.hint).replace(/[^A-Za-z0-9_$]/g, "_") || "t";
    let candidate = /^[0-9]/.test(base) ? `_${base}` : base;
    for (let i = 1; this.taken.has(candidate); i++) candidate = `${base}_${i}`;
    this.taken.add(candidate);
    this.names.set(v.id, candidate);
    return candidate;
  }

  private alias(v: Value, existing: string): void {
    this.names.set(v.id, existing);
  }

  private ref(v: Value): Expr {
    const inline = this.inlined.get(v.id);
    if (inline) {
      this.pendingReads.delete(v.id);
      return inline;
    }
    const n = this.names.get(v.id);
    if (n === undefined)
      throw new Error(`internal: emit found no name for %${v.id} in ${this.fn.name}`);
    return js.name(n);
  }

  private region(region: Region): void {
    for (const op of region.ops) this.op(op, region);
  }

  private shouldInline(op: Op, region: Region): boolean {
    if (op.results.length !== 1 || op.regions.length > 0 || !isPure(op)) return false;
    const r = op.results[0]!;
    if (op.opcode === "const" || op.opcode === "global") return true;
    return this.useCount.get(r.id) === 1 && this.useRegion.get(r.id) === region;
  }

  /** Gives the pending memory reads their own `const`s, in order, before a write. */
  private settleReads(): void {
    for (const [id, v] of this.pendingReads) {
      const expr = this.inlined.get(id)!;
      this.inlined.delete(id);
      this.line(`const ${this.declare(v)} = ${expr.text};`, undefined);
    }
    this.pendingReads.clear();
  }

  private readsMemory(op: Op): boolean {
    return (
      op.opcode === "field" ||
      op.opcode === "index" ||
      op.opcode === "length" ||
      op.operands.some((v) => this.memoryReads.has(v.id))
    );
  }

  private readonly memoryReads = new Set<number>();

  private op(op: Op, region: Region): void {
    if (WRITES_MEMORY.has(op.opcode) || op.regions.length > 0) this.settleReads();
    switch (op.opcode) {
      case "if":
        return this.emitIf(op, region);
      case "loop":
        return this.emitLoop(op);
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
      case "setField":
      case "setIndex":
      case "addField":
      case "addIndex":
        return this.emitStore(op);
      case "clear":
        this.line(
          `${clearing(op.operands[0]!.type, this.ref(op.operands[0]!), this.emitNames.runtime)};`,
          op.loc,
        );
        return;
      case "peak":
        if (this.pushes)
          this.line(
            `if (${TOP} > ${this.tapeObject}.peak) ${this.tapeObject}.peak = ${TOP};`,
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

  private emitStore(op: Op): void {
    const [target, ...rest] = op.operands.map((v) => this.ref(v));
    const value = rest[rest.length - 1]!;
    const place =
      op.opcode === "setField" || op.opcode === "addField"
        ? js.member(target!, op.attrs.field!)
        : js.element(target!, rest[0]!);
    const assign = op.opcode === "addField" || op.opcode === "addIndex" ? "+=" : "=";
    this.line(`${place.text} ${assign} ${value.text};`, op.loc);
  }

  /** An op that is a statement or a `const` (calls and other single-result ops). */
  private emitCallStatement(op: Op, region: Region): void {
    const expr = this.expression(op);
    if (this.shouldInline(op, region)) {
      const id = op.results[0]!.id;
      this.inlined.set(id, expr);
      if (this.readsMemory(op)) {
        this.memoryReads.add(id);
        this.pendingReads.set(id, op.results[0]!);
      }
      return;
    }
    const result = op.results[0];
    if (!result || (this.useCount.get(result.id) ?? 0) === 0) {
      this.line(`${expr.text};`, op.loc);
      return;
    }
    this.line(`const ${this.declare(result)} = ${expr.text};`, op.loc);
  }

  private expression(op: Op): Expr {
    const args = op.operands.map((v) => this.ref(v));
    const [a, b] = args as [Expr, Expr];
    switch (op.opcode) {
      case "const":
        return op.attrs.value === undefined ? js.name("undefined") : js.literal(op.attrs.value);
      case "field":
        return js.member(a, op.attrs.field!);
      case "index":
        return js.element(a, b);
      case "length":
        return js.member(a, "length");
      case "alloc":
        return allocation(op.results[0]!.type, a);
      case "literal":
        return literalOf(op.results[0]!.type, args);
      case "zeros":
        return zerosLike(op.results[0]!.type, a);
      case "detach":
      case "withDerivative":
        return a;
      case "adjust":
        // A module-level function, or an arrow written at the call hoisted to one (see
        // hoistedAdjustments), so no generated local can shadow what it reads.
        return js.call(this.emitNames.global(op.attrs.callee!), args);
      case "neg":
        return js.unary("-", a);
      case "not":
        return js.unary("!", a);
      case "truthy":
        return js.unary("!!", a);
      case "select":
        return js.conditional(a, b, args[2]!);
      case "math":
        return js.call(`Math.${op.attrs.callee}`, args);
      case "global":
        return js.name(this.globalName(op));
      case "extern":
        return js.call(this.externName(op), args);
      case "call":
        if (op.attrs.method && !op.attrs.primal)
          return js.call(js.member(a, op.attrs.method).text, args.slice(1));
        return js.call(this.emitNames.callee(op), args);
      case "pop": {
        if (isAggregate(op.results[0]!.type)) return js.call(`${this.tapeObject}.objects.pop`, []);
        const popped: Expr = {
          text: `${TAPE}[--${TOP}]`,
          prec: js.PREC.primary,
          refs: new Set([TAPE, TOP]),
        };
        if (op.attrs.value === "int") return js.binary("|", popped, js.literal(0));
        return op.results[0]!.type === "boolean" ? js.binary("!==", popped, js.literal(0)) : popped;
      }
      case "nondiff": {
        const callee = op.attrs.callee!;
        if (callee === "~") return js.unary("~", a);
        if (/^[|&^<>]/.test(callee) || callee === "===") return js.binary(callee, a, b);
        return js.call(callee, args);
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

  /** A run of pushes checks the tape's capacity once, then stores without checks. */
  private emitPush(op: Op, region: Region): void {
    const index = region.ops.indexOf(op);
    if (region.ops[index - 1]?.opcode !== "push") {
      let count = 0;
      while (region.ops[index + count]?.opcode === "push") count++;
      this.line(
        `if (${TOP} + ${count} > ${TAPE}.length) ${TAPE} = ${this.emitNames.runtime}.growTape(${TOP}, ${count});`,
        op.loc,
      );
    }
    const v = this.ref(op.operands[0]!);
    if (isAggregate(op.operands[0]!.type)) {
      // Arrays and objects (shadows, arrays read later) go on the tape's object stack.
      this.line(`${this.tapeObject}.objects.push(${v.text});`, op.loc);
      return;
    }
    const saved =
      op.operands[0]!.type === "boolean" ? js.conditional(v, js.literal(1), js.literal(0)) : v;
    this.line(`${TAPE}[${TOP}++] = ${saved.text};`, op.loc);
  }

  /** A call from a function that uses the tape: hand over the tape's height and take it back. */
  private emitTapeCall(op: Op, region: Region): void {
    this.line(`${this.tapeObject}.top = ${TOP};`, op.loc);
    if (op.results.length > 1) this.emitMultiResultCall(op);
    else this.emitCallStatement(op, region);
    this.line(`${TAPE} = ${this.tapeObject}.buffer;`, op.loc);
    this.line(`${TOP} = ${this.tapeObject}.top;`, op.loc);
  }

  private get tapeObject(): string {
    return `${this.emitNames.runtime}.tape`;
  }

  private emitReturn(op: Op): void {
    if (this.usesTape) this.line(`${this.tapeObject}.top = ${TOP};`, op.loc);
    const [first, ...rest] = op.operands.map((v) => this.ref(v));
    rest.forEach((e, i) =>
      this.line(`${this.emitNames.runtime}.out.v${i + 1} = ${e.text};`, op.loc),
    );
    this.line(first ? `return ${first.text};` : "return;", op.loc);
  }

  /** Emits a region's ops into a separate buffer and returns them with its terminator. */
  private capture(region: Region): { lines: EmittedLine[]; terminator: Op } {
    const saved = this.lines.length;
    this.region(region);
    const lines = this.lines.splice(saved);
    return { lines, terminator: region.ops[region.ops.length - 1]! };
  }

  /** `c ? a : b` over pure operands, as `&&`/`||` when one side is a boolean literal. */
  private choice(c: Expr, a: Expr, b: Expr): Expr {
    if (a.text === "false" && b.text === "true") return js.unary("!", c);
    if (a.text === "true" && b.text === "false") return c;
    if (b.text === c.text) return js.binary("&&", c, a);
    if (a.text === c.text) return js.binary("||", c, b);
    if (a.text === "false") return js.binary("&&", js.unary("!", c), b);
    if (b.text === "false") return js.binary("&&", c, a);
    if (a.text === "true") return js.binary("||", c, b);
    if (b.text === "true") return js.binary("||", js.unary("!", c), a);
    return js.conditional(c, a, b);
  }

  private emitIf(op: Op, region: Region): void {
    const cond = this.ref(op.operands[0]!);
    this.indent++;
    // A branch's inlined reads are used by its own assignments (no write of the other branch
    // runs in between), so they must not be settled into the other branch.
    const pending: [number, Value][] = [];
    const branches = op.regions.map((r) => {
      const captured = this.capture(r);
      pending.push(...this.pendingReads);
      this.pendingReads.clear();
      return captured;
    });
    for (const [id, v] of pending) this.pendingReads.set(id, v);
    this.indent--;
    const [thenB, elseB] = branches as [(typeof branches)[0], (typeof branches)[0]];
    const used = op.results.filter((r) => (this.useCount.get(r.id) ?? 0) > 0);
    if (op.results.length === 1 && thenB.lines.length === 0 && elseB.lines.length === 0) {
      const e = this.choice(
        cond,
        this.ref(thenB.terminator.operands[0]!),
        this.ref(elseB.terminator.operands[0]!),
      );
      const r = op.results[0]!;
      if (this.useCount.get(r.id) === 1 && this.useRegion.get(r.id) === region) {
        this.inlined.set(r.id, e);
        // `c ? a[0] : x` reads memory: it must not move past a write either.
        const yielded = [thenB.terminator.operands[0]!, elseB.terminator.operands[0]!];
        if (yielded.some((v) => this.memoryReads.has(v.id))) {
          this.memoryReads.add(r.id);
          this.pendingReads.set(r.id, r);
        }
      } else if (used.length) this.line(`const ${this.declare(r)} = ${e.text};`, op.loc);
      return;
    }
    const targets = op.results.map((r) => this.declare(r));
    if (targets.length) this.line(`let ${targets.join(", ")};`, op.loc);
    const body = (b: typeof thenB) => {
      this.lines.push(...b.lines);
      this.indent++;
      this.assign(
        targets,
        b.terminator.operands.map((v) => this.ref(v)),
        b.terminator.loc,
      );
      this.indent--;
    };
    const elseEmpty = elseB.lines.length === 0 && targets.length === 0;
    const thenEmpty = thenB.lines.length === 0 && targets.length === 0;
    if (thenEmpty && !elseEmpty) {
      this.line(`if (${js.unary("!", cond).text}) {`, op.loc);
      body(elseB);
      this.line("}", undefined);
      return;
    }
    this.line(`if (${cond.text}) {`, op.loc);
    body(thenB);
    if (!elseEmpty) {
      this.line("} else {", undefined);
      body(elseB);
    }
    this.line("}", undefined);
  }

  private emitLoop(op: Op): void {
    const [before, after] = op.regions as [Region, Region];
    const cond = before.ops[before.ops.length - 1]!;
    const forwarded = cond.operands.slice(1);
    const carried = before.params.map((p, i) => {
      const n = this.declare(p);
      return `${n} = ${this.ref(op.operands[i]!).text}`;
    });
    if (carried.length) this.line(`let ${carried.join(", ")};`, op.loc);
    // An after-param that just receives a before-param shares its variable.
    const separate: string[] = [];
    after.params.forEach((p, i) => {
      const f = forwarded[i]!;
      const j = before.params.indexOf(f);
      if (j === i) {
        this.alias(p, this.names.get(before.params[i]!.id)!);
      } else {
        separate.push(this.declare(p));
      }
      this.alias(op.results[i]!, this.names.get(p.id)!);
    });
    if (separate.length) this.line(`let ${separate.join(", ")};`, op.loc);

    this.indent++;
    const head = this.capture(before);
    this.indent--;
    const flag = this.ref(cond.operands[0]!);
    const forwardTargets = after.params.map((p) => this.names.get(p.id)!);
    if (
      head.lines.length === 0 &&
      forwardTargets.every((t, i) => t === this.ref(forwarded[i]!).text)
    ) {
      this.line(`while (${flag.text}) {`, op.loc);
    } else {
      this.line("while (true) {", op.loc);
      this.lines.push(...head.lines);
      this.indent++;
      this.assign(
        forwardTargets,
        forwarded.map((v) => this.ref(v)),
        cond.loc,
      );
      this.line(`if (${js.unary("!", flag).text}) break;`, cond.loc);
      this.indent--;
    }
    this.indent++;
    const tail = this.capture(after);
    this.lines.push(...tail.lines);
    const targets = before.params.map((p) => this.names.get(p.id)!);
    this.assign(
      targets,
      tail.terminator.operands.map((v) => this.ref(v)),
      tail.terminator.loc,
    );
    this.indent--;
    this.line("}", undefined);
  }

  /**
   * `targets[i] = values[i]` as if simultaneously (a parallel move): an assignment goes first
   * when no other pending value reads its target; a cycle is broken with one temporary.
   */
  private assign(targets: string[], values: Expr[], loc: SourceLoc | undefined): void {
    let pending = targets
      .map((t, i) => ({ target: t, value: values[i]! }))
      .filter((a) => a.value.text !== a.target);
    while (pending.length > 0) {
      const free = pending.find((a) =>
        pending.every((other) => other === a || !other.value.refs.has(a.target)),
      );
      if (free) {
        this.line(`${free.target} = ${free.value.text};`, loc);
        pending = pending.filter((a) => a !== free);
        continue;
      }
      const blocked = pending[0]!;
      const temp = this.declare({ id: -1, type: "number", hint: `${blocked.target}_next` });
      this.line(`const ${temp} = ${blocked.value.text};`, loc);
      blocked.value = js.name(temp);
    }
  }
}
