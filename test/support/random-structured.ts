// Random programs over structured data, from a seed: the scalar programs of random-program.ts
// (branches, loops, break/continue, early returns, helper calls) plus local Float64Arrays and
// number[]s written in loops and read before and after overwrites, in-place updates, prefix
// and suffix sums, double buffers swapped in a loop, aliases (`const b = a`, a row of an array
// of arrays, a field of an object, a branch choosing which array), `.push` in loops, `.slice`,
// `.map`, `.reduce`, `for…of`, arrays of arrays, objects holding arrays, and helpers that write
// the arrays given to them, return new ones or read them. Every index is in range: a literal
// below a length known when generating, a loop counter modulo `.length`, or a loop over
// `.length`. Elements stay bounded (squashing after growing updates) so finite differences
// stay meaningful.

import { Generator } from "./random-program.js";

/** A parameter of the main function, as the test builds arguments and tangents for it. */
export type Param =
  | { name: string; kind: "number" }
  | { name: string; kind: "number[]" | "Float64Array"; length: number }
  | { name: string; kind: "object"; fields: Param[] };

export interface RandomStructuredProgram {
  seed: number;
  /** Source of the helpers and of `main_<seed>(…params): number`. */
  source: string;
  name: string;
  params: Param[];
  /** The helpers that take an array, in the order they are declared. */
  helpers: StructuredHelper[];
}

export type ArrayType = "number[]" | "Float64Array";

/** The length of an array, shared by its aliases; undefined once `.push` may have grown it. */
interface Length {
  n: number | undefined;
}

/** An array in scope: `name` is how to reach it (`a3`, `o5.v`, `v`). */
interface ArrayVar {
  name: string;
  type: ArrayType;
  length: Length;
  /** A local `number[]` that `.push` may grow (never an argument or an alias of one). */
  growable: boolean;
  /** For a name a branch chose: the lengths of the arrays it may be. */
  sources?: Length[];
}

/** An array of arrays, all its rows of `cols` elements. */
interface MatrixVar {
  name: string;
  rowType: ArrayType;
  rows: Length;
  cols: number;
  growable: boolean;
}

/** An object `{ s: number; v: <objectArray> }`. */
interface ObjectVar {
  name: string;
}

export interface StructuredHelper {
  name: string;
  /**
   * writer: `(out: T, a: number, b: number): void` writes `out`; mixer: `(out: T, src: T,
   * t: number): void` writes `out` from `src` (called with the same array too); maker: `(src: T,
   * t: number): R` returns a new array as long as `src`; reader: `(src: T, t: number): number`,
   * may write `src`; object: `(o: { s: number; v: O }, t: number): void` writes both fields;
   * objectMaker: `(src: T, t: number): { s: number; v: O }`, its `v` new or `src` itself.
   */
  kind: "writer" | "mixer" | "maker" | "reader" | "object" | "objectMaker";
  type: ArrayType;
  result?: ArrayType;
}

const ARRAY_TYPES: readonly ArrayType[] = ["number[]", "Float64Array"];

class StructuredGenerator extends Generator {
  private arrays: ArrayVar[] = [];
  private matrices: MatrixVar[] = [];
  private objects: ObjectVar[] = [];
  /** In a void function: early exits are `return;`. */
  voidFunction = false;
  /** What an early exit returns, in a function returning an array. */
  exit: string | undefined;
  /** In a `.map`/`.reduce` callback: no helper calls as leaves. */
  private inCallback = 0;
  /** The arrays loops are running over: pushing onto them would never end. */
  private readonly iterated = new Set<Length>();

  constructor(
    seed: number,
    scalarHelpers: string[],
    private readonly structured: StructuredHelper[],
    /** The type of the `v` field of objects. */
    private readonly objectArray: ArrayType,
  ) {
    super(seed, scalarHelpers);
  }

  // ---- scope: arrays declared in a block are gone after it ----

  protected override nested(fn: () => void): void {
    const [a, m, o] = [this.arrays.length, this.matrices.length, this.objects.length];
    super.nested(fn);
    this.arrays.length = a;
    this.matrices.length = m;
    this.objects.length = o;
  }

  addArray(v: ArrayVar): void {
    this.arrays.push(v);
  }

  addObject(
    name: string,
    vars: string[],
    mutable: string[],
    length: number | undefined,
    sources?: Length[],
  ): void {
    this.objects.push({ name });
    vars.push(`${name}.s`);
    mutable.push(`${name}.s`);
    this.arrays.push({
      name: `${name}.v`,
      type: this.objectArray,
      length: { n: length },
      growable: false,
      ...(sources ? { sources } : {}),
    });
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  /** A constant of magnitude below 1, for updates repeated in loops. */
  private contraction(): string {
    const c = Math.round((this.random() * 1.8 - 0.9) * 100) / 100;
    return c < 0 ? `(${c})` : String(c);
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  // ---- indices and reads ----

  /** An index in range for an array of length `length`, reached by `name`. */
  private index(length: Length, name: string, vars: string[]): string {
    const counters = vars.filter((v) => /^i\d+$/.test(v));
    if (counters.length > 0 && this.chance(0.6)) {
      const i = this.pick(counters);
      const k = this.int(0, 2);
      const base = k ? `(${i} + ${k})` : i;
      return length.n !== undefined && this.chance(0.3)
        ? `${base} % ${length.n}`
        : `${base} % ${name}.length`;
    }
    if (length.n !== undefined) return String(this.int(0, length.n - 1));
    return this.chance(0.5) ? "0" : `${name}.length - 1`;
  }

  private element(a: ArrayVar, vars: string[]): string {
    return `${a.name}[${this.index(a.length, a.name, vars)}]`;
  }

  private matrixElement(m: MatrixVar, vars: string[]): string {
    const row = this.index(m.rows, m.name, vars);
    const col = this.index({ n: m.cols }, `${m.name}[0]`, vars);
    return `${m.name}[${row}][${col}]`;
  }

  protected override leaf(vars: string[]): string {
    if (this.arrays.length + this.matrices.length > 0 && this.chance(0.4)) {
      const roll = this.random();
      const readers = this.structured.filter((h) => h.kind === "reader");
      if (roll < 0.08 && this.inCallback === 0 && readers.length > 0) {
        const h = this.pick(readers);
        const arg = this.arrayArgument(h.type, vars);
        if (arg) return `${h.name}(${arg}, ${super.leaf(vars)})`;
      }
      if ((roll < 0.25 || this.arrays.length === 0) && this.matrices.length > 0)
        return this.matrixElement(this.pick(this.matrices), vars);
      return this.element(this.pick(this.arrays), vars);
    }
    return super.leaf(vars);
  }

  /** An array of type `type` to pass to a helper: an array in scope or a row of a matrix. */
  private arrayArgument(type: ArrayType, vars: string[]): string | undefined {
    const rows = this.matrices.filter((m) => m.rowType === type);
    if (rows.length > 0 && this.chance(0.25)) {
      const m = this.pick(rows);
      return `${m.name}[${this.index(m.rows, m.name, vars)}]`;
    }
    const arrays = this.arrays.filter((a) => a.type === type);
    return arrays.length > 0 ? this.pick(arrays).name : undefined;
  }

  protected override earlyReturn(vars: string[]): string {
    if (this.exit !== undefined) return this.exit;
    return this.voidFunction ? "return;" : super.earlyReturn(vars);
  }

  /** `Math.tanh(t * 0.5) * 4`: keeps a target that grew bounded. */
  private squash(target: string): void {
    this.emit(`${target} = Math.tanh(${target} * 0.5) * 4;`);
  }

  /** A body of `count` random statements in a new block, `extra` in scope. */
  private loopBody(vars: string[], mutable: string[], extra: string[], count: number): void {
    this.nested(() => this.block([...vars, ...extra], count, [...mutable]));
  }

  // ---- statements ----

  override statement(vars: string[], mutable: string[]): void {
    const roll = this.random();
    if (roll < 0.3) return super.statement(vars, mutable);
    if (roll < 0.45 || this.arrays.length === 0) return this.declare(vars, mutable);
    if (roll < 0.75) return this.write(vars, mutable);
    return this.control(vars, mutable);
  }

  /** A new array, matrix or object (with the statements that fill it). */
  private declare(vars: string[], mutable: string[]): void {
    const name = this.fresh("a");
    const length = this.int(2, 4);
    const exprs = (n: number) =>
      Array.from({ length: n }, () => this.expression(vars, 1)).join(", ");
    const fill = (target: string) => {
      const i = this.fresh("i");
      const inPlace = this.chance(0.3) ? `${target}[${i}] * Math.cos(${this.leaf(vars)}) + ` : "";
      this.emit(
        `for (let ${i} = 0; ${i} < ${target}.length; ${i}++) ${target}[${i}] = ${inPlace}${this.expression([...vars, i], 2)};`,
      );
    };
    const sources = this.arrays;
    switch (this.int(0, 11)) {
      case 0:
      case 1: {
        this.emit(`const ${name} = new Float64Array(${length});`);
        this.addArray({ name, type: "Float64Array", length: { n: length }, growable: false });
        if (this.chance(0.8)) fill(name);
        return;
      }
      case 2: {
        this.emit(`const ${name} = new Array(${length}).fill(0);`);
        this.addArray({ name, type: "number[]", length: { n: length }, growable: true });
        if (this.chance(0.8)) fill(name);
        return;
      }
      case 3: {
        this.emit(`const ${name} = [${exprs(length)}];`);
        this.addArray({ name, type: "number[]", length: { n: length }, growable: true });
        return;
      }
      case 4: {
        // Built with .push in a loop that may stop early.
        const i = this.fresh("i");
        this.emit(`const ${name}: number[] = [${this.expression(vars, 1)}];`);
        this.emit(`for (let ${i} = 0; ${i} < ${this.int(1, 4)}; ${i}++) {`);
        this.nested(() => {
          const inner = [...vars, i];
          if (this.chance(0.3)) this.emit(`if (${this.condition(inner)}) break;`);
          const previous = `${name}[${name}.length - 1]`;
          const value = this.chance(0.5)
            ? `Math.tanh(${previous} * ${this.constant()} + ${this.expression(inner, 1)})`
            : this.expression(inner, 2);
          if (this.chance(0.3)) this.emit(`if (${this.condition(inner)}) ${name}.push(${value});`);
          else this.emit(`${name}.push(${value});`);
        });
        this.emit("}");
        this.addArray({ name, type: "number[]", length: { n: undefined }, growable: true });
        return;
      }
      case 5: {
        if (sources.length === 0) break;
        const src = this.pick(sources);
        const n = src.length.n;
        const tail = n !== undefined && n >= 2 && this.chance(0.4);
        this.emit(`const ${name} = ${src.name}.slice(${tail ? "1" : ""});`);
        this.addArray({
          name,
          type: src.type,
          length: { n: n === undefined ? undefined : tail ? n - 1 : n },
          growable: src.type === "number[]",
        });
        return;
      }
      case 6: {
        if (sources.length === 0) break;
        const src = this.pick(sources);
        const e = this.fresh("e");
        this.inCallback++;
        const body = this.expression([...vars, e, e], 2);
        this.inCallback--;
        this.emit(`const ${name} = ${src.name}.map((${e}) => ${body});`);
        this.addArray({
          name,
          type: src.type,
          length: { n: src.length.n },
          growable: src.type === "number[]",
        });
        return;
      }
      case 7: {
        // Another name for an array: written through one name, read through the other.
        if (sources.length === 0) break;
        const src = this.pick(sources);
        this.emit(`const ${name} = ${src.name};`);
        const alias = { ...src, name };
        this.addArray(alias);
        const target = this.element(alias, vars);
        this.emit(`${target} = ${this.expression(vars, 2)};`);
        const v = this.fresh("v");
        this.emit(`let ${v} = ${this.element(src, vars)} * ${this.constant()};`);
        vars.push(v);
        mutable.push(v);
        return;
      }
      case 8: {
        // A branch chooses which array a name refers to.
        if (sources.length === 0) break;
        const a = this.pick(sources);
        const others = sources.filter((b) => b.type === a.type);
        const b = this.pick(others);
        const n =
          a.length.n !== undefined && b.length.n !== undefined
            ? Math.min(a.length.n, b.length.n)
            : undefined;
        this.emit(`const ${name} = ${this.condition(vars)} ? ${a.name} : ${b.name};`);
        const from = [...lengths(a), ...lengths(b)];
        const chosen = { name, type: a.type, length: { n }, growable: false, sources: from };
        this.addArray(chosen);
        this.emit(
          `${this.element(chosen, vars)} ${this.pick(["=", "+="])} ${this.expression(vars, 2)};`,
        );
        return;
      }
      case 9: {
        const helpers = this.structured.filter((h) => h.kind === "maker");
        if (helpers.length === 0 || sources.length === 0) break;
        const h = this.pick(helpers);
        const src = sources.filter((a) => a.type === h.type);
        if (src.length === 0) break;
        const from = this.pick(src);
        this.emit(`const ${name} = ${h.name}(${from.name}, ${this.expression(vars, 1)});`);
        this.addArray({
          name,
          type: h.result!,
          length: { n: from.length.n },
          growable: h.result === "number[]",
        });
        return;
      }
      case 10: {
        // An object whose array may be the argument itself.
        const helpers = this.structured.filter((h) => h.kind === "objectMaker");
        if (helpers.length === 0 || sources.length === 0) break;
        const h = this.pick(helpers);
        const src = sources.filter((a) => a.type === h.type);
        if (src.length === 0) break;
        const from = this.pick(src);
        const o = this.fresh("o");
        this.emit(`const ${o} = ${h.name}(${from.name}, ${this.expression(vars, 1)});`);
        this.addObject(o, vars, mutable, from.length.n, lengths(from));
        return;
      }
      default:
        break;
    }
    if (this.chance(0.6)) this.declareMatrix(vars);
    else this.declareObject(vars, mutable);
  }

  private declareMatrix(vars: string[]): void {
    const name = this.fresh("m");
    const cols = this.int(2, 3);
    const rows = this.int(1, 3);
    const row = () =>
      `[${Array.from({ length: cols }, () => this.expression(vars, 1)).join(", ")}]`;
    if (this.chance(0.5)) {
      const growable = this.chance(0.5);
      this.emit(
        `const ${name}${growable ? ": number[][]" : ""} = [${Array.from({ length: rows }, row).join(", ")}];`,
      );
      if (growable && this.chance(0.7)) {
        const i = this.fresh("i");
        this.emit(`for (let ${i} = 0; ${i} < ${this.int(1, 3)}; ${i}++) ${name}.push(${row()});`);
      }
      this.matrices.push({
        name,
        rowType: "number[]",
        rows: { n: growable ? undefined : rows },
        cols,
        growable,
      });
    } else {
      // Rows of Float64Arrays, filled through the row a for…of gives.
      const r = this.fresh("a");
      const i = this.fresh("i");
      const k = this.fresh("i");
      this.emit(`const ${name}: Float64Array[] = [];`);
      this.emit(
        `for (let ${k} = 0; ${k} < ${rows}; ${k}++) ${name}.push(new Float64Array(${cols}));`,
      );
      this.emit(`for (const ${r} of ${name}) {`);
      this.nested(() =>
        this.emit(
          `for (let ${i} = 0; ${i} < ${r}.length; ${i}++) ${r}[${i}] = ${this.expression([...vars, i], 2)};`,
        ),
      );
      this.emit("}");
      this.matrices.push({
        name,
        rowType: "Float64Array",
        rows: { n: rows },
        cols,
        growable: false,
      });
    }
  }

  private declareObject(vars: string[], mutable: string[]): void {
    const name = this.fresh("o");
    const length = this.int(2, 3);
    const v =
      this.objectArray === "number[]"
        ? `[${Array.from({ length }, () => this.expression(vars, 1)).join(", ")}]`
        : `new Float64Array(${length})`;
    this.emit(`const ${name} = { s: ${this.expression(vars, 2)}, v: ${v} };`);
    this.addObject(name, vars, mutable, length);
    if (this.objectArray === "Float64Array") {
      const i = this.fresh("i");
      this.emit(
        `for (let ${i} = 0; ${i} < ${name}.v.length; ${i}++) ${name}.v[${i}] = ${this.expression([...vars, i], 1)};`,
      );
    }
  }

  /** A write to an element, or a loop writing many. */
  private write(vars: string[], mutable: string[]): void {
    const a = this.pick(this.arrays);
    switch (this.int(0, 12)) {
      case 0:
      case 1:
        this.emit(`${this.element(a, vars)} = ${this.expression(vars, 2)};`);
        return;
      case 2:
      case 3: {
        const target = this.element(a, vars);
        const op = this.pick(["+=", "-=", "*=", "++"]);
        if (op === "++") {
          this.emit(`${target}${this.pick(["++", "--"])};`);
        } else if (op === "*=") {
          this.emit(`${target} *= Math.cos(${this.expression(vars, 1)});`);
        } else {
          this.emit(`${target} ${op} ${this.expression(vars, 2)};`);
          if (this.chance(0.5)) this.squash(target);
        }
        return;
      }
      case 4: {
        // In place: a[i] = a[i] * a[j] + x.
        const target = this.element(a, vars);
        this.emit(`${target} = ${target} * ${this.element(a, vars)} + ${this.leaf(vars)};`);
        this.squash(target);
        return;
      }
      case 5: {
        // Read, overwrite, read again.
        const k = this.index(a.length, a.name, vars);
        const before = this.fresh("v");
        const after = this.fresh("v");
        this.emit(`const ${before} = ${a.name}[${k}];`);
        this.emit(`${a.name}[${k}] = ${this.expression([...vars, before], 2)};`);
        this.emit(`let ${after} = ${before} * Math.sin(${a.name}[${k}]) + ${this.leaf(vars)};`);
        vars.push(before, after);
        mutable.push(after);
        return;
      }
      case 6: {
        // Prefix sums, or suffix sums backwards.
        const i = this.fresh("i");
        const squash = this.chance(0.5);
        const c = this.chance(0.5) ? `${this.contraction()} * ` : "";
        const update = (j: string, from: string) => {
          if (!squash) return `${a.name}[${j}] += ${c}${a.name}[${from}];`;
          return `{ ${a.name}[${j}] += ${c}${a.name}[${from}]; ${a.name}[${j}] = Math.tanh(${a.name}[${j}] * 0.5) * 4; }`;
        };
        if (this.chance(0.6))
          this.emit(`for (let ${i} = 1; ${i} < ${a.name}.length; ${i}++) ${update(i, `${i} - 1`)}`);
        else
          this.emit(
            `for (let ${i} = ${a.name}.length - 2; ${i} >= 0; ${i}--) ${update(i, `${i} + 1`)}`,
          );
        return;
      }
      case 7: {
        // Double buffering: cur and next swap after each sweep.
        const cur = this.fresh("a");
        const next = this.fresh("a");
        const tmp = this.fresh("a");
        const t = this.fresh("i");
        const i = this.fresh("i");
        this.emit(`let ${cur}: ${a.type} = ${a.name};`);
        this.emit(`let ${next}: ${a.type} = ${a.name}.slice();`);
        this.emit(`for (let ${t} = 0; ${t} < ${this.int(1, 3)}; ${t}++) {`);
        this.nested(() => {
          const neighbour = `${cur}[(${i} + 1) % ${cur}.length]`;
          this.emit(
            `for (let ${i} = 0; ${i} < ${cur}.length; ${i}++) ${next}[${i}] = 0.5 * ${cur}[${i}] + 0.4 * Math.sin(${neighbour}) * ${this.leaf(vars)};`,
          );
          this.emit(`const ${tmp} = ${cur};`);
          this.emit(`${cur} = ${next};`);
          this.emit(`${next} = ${tmp};`);
        });
        this.emit("}");
        this.addArray({ ...a, name: cur, growable: false });
        this.addArray({ ...a, name: next, growable: false });
        return;
      }
      case 8: {
        // A branch chooses which array to write.
        const b = this.pick(this.arrays);
        this.emit(`if (${this.condition(vars)}) {`);
        this.nested(() => this.emit(`${this.element(a, vars)} = ${this.expression(vars, 2)};`));
        this.emit("} else {");
        this.nested(() => this.emit(`${this.element(b, vars)} += ${this.expression(vars, 1)};`));
        this.emit("}");
        return;
      }
      case 9: {
        const growable = this.arrays.filter((x) => x.growable && !this.iterated.has(x.length));
        if (growable.length > 0) {
          const g = this.pick(growable);
          this.emit(`${g.name}.push(${this.expression(vars, 2)});`);
          g.length.n = undefined;
          return;
        }
        break;
      }
      case 10: {
        const m = this.matrices.length > 0 ? this.pick(this.matrices) : undefined;
        if (m) return this.writeMatrix(m, vars);
        break;
      }
      case 11:
      case 12: {
        if (this.callHelper(vars)) return;
        break;
      }
    }
    this.emit(`${this.element(a, vars)} = ${this.expression(vars, 2)};`);
  }

  private writeMatrix(m: MatrixVar, vars: string[]): void {
    switch (this.int(0, 4)) {
      case 0:
        this.emit(`${this.matrixElement(m, vars)} = ${this.expression(vars, 2)};`);
        return;
      case 1: {
        const target = this.matrixElement(m, vars);
        this.emit(`${target} += ${this.matrixElement(m, vars)} * ${this.leaf(vars)};`);
        this.squash(target);
        return;
      }
      case 2: {
        // A row under another name.
        const row = this.fresh("a");
        this.emit(`const ${row} = ${m.name}[${this.index(m.rows, m.name, vars)}];`);
        const alias = { name: row, type: m.rowType, length: { n: m.cols }, growable: false };
        this.addArray(alias);
        this.emit(`${this.element(alias, vars)} = ${this.expression(vars, 2)};`);
        return;
      }
      case 3: {
        // Every element, from the next row.
        const i = this.fresh("i");
        const j = this.fresh("i");
        this.emit(`for (let ${i} = 0; ${i} < ${m.name}.length; ${i}++) {`);
        this.nested(() =>
          this.emit(
            `for (let ${j} = 0; ${j} < ${m.name}[${i}].length; ${j}++) ${m.name}[${i}][${j}] = Math.tanh(${m.name}[${i}][${j}] + ${this.constant()} * ${m.name}[(${i} + 1) % ${m.name}.length][${j}]);`,
          ),
        );
        this.emit("}");
        return;
      }
      default: {
        if (m.growable) {
          const row = `[${Array.from({ length: m.cols }, () => this.expression(vars, 1)).join(", ")}]`;
          this.emit(`${m.name}.push(${row});`);
          m.rows.n = undefined;
        } else {
          this.emit(`${this.matrixElement(m, vars)} *= Math.cos(${this.leaf(vars)});`);
        }
      }
    }
  }

  /** A call of a writer or object helper; false when none fits what is in scope. */
  private callHelper(vars: string[]): boolean {
    const helpers = this.structured.filter(
      (h) =>
        ((h.kind === "writer" || h.kind === "mixer") &&
          this.arrays.some((a) => a.type === h.type)) ||
        (h.kind === "object" && this.objects.length > 0),
    );
    if (helpers.length === 0) return false;
    const h = this.pick(helpers);
    if (h.kind === "object") {
      this.emit(`${h.name}(${this.pick(this.objects).name}, ${this.expression(vars, 1)});`);
    } else if (h.kind === "mixer") {
      // Into an array from another, or from itself.
      const out = this.arrayArgument(h.type, vars)!;
      const src = this.chance(0.4) ? out : this.arrayArgument(h.type, vars)!;
      this.emit(`${h.name}(${out}, ${src}, ${this.expression(vars, 1)});`);
    } else {
      const arg = this.arrayArgument(h.type, vars)!;
      this.emit(`${h.name}(${arg}, ${this.expression(vars, 1)}, ${this.expression(vars, 1)});`);
    }
    return true;
  }

  /** Loops over arrays (with early exits in them), reductions. */
  private control(vars: string[], mutable: string[]): void {
    const a = this.pick(this.arrays);
    const roll = this.int(0, 5);
    if (roll <= 1 && this.loopDepth < 2) {
      const e = this.fresh("e");
      this.emit(`for (const ${e} of ${a.name}) {`);
      this.loopDepth++;
      const iterating = lengths(a).filter((n) => !this.iterated.has(n));
      for (const n of iterating) this.iterated.add(n);
      if (this.chance(0.5)) {
        const exit = this.chance(0.5) ? this.earlyReturn([...vars, e]) : "break;";
        this.nested(() =>
          this.emit(`if (${e} ${this.pick(["<", ">"])} ${this.constant()}) ${exit}`),
        );
      }
      this.loopBody(vars, mutable, [e], this.int(1, 2));
      for (const n of iterating) this.iterated.delete(n);
      this.loopDepth--;
      this.emit("}");
      return;
    }
    if (roll <= 3 && this.loopDepth < 2) {
      const i = this.fresh("i");
      this.emit(`for (let ${i} = 0; ${i} < ${a.name}.length; ${i}++) {`);
      this.loopDepth++;
      const iterating = lengths(a).filter((n) => !this.iterated.has(n));
      for (const n of iterating) this.iterated.add(n);
      if (this.chance(0.5)) {
        const exit = this.earlyReturn([...vars, i]);
        this.nested(() =>
          this.emit(`if (${a.name}[${i}] ${this.pick(["<", ">"])} ${this.constant()}) ${exit}`),
        );
      }
      this.loopBody(vars, mutable, [i], this.int(1, 3));
      for (const n of iterating) this.iterated.delete(n);
      this.loopDepth--;
      this.emit("}");
      return;
    }
    const v = this.fresh("v");
    if (roll === 4) {
      const acc = this.fresh("e");
      const e = this.fresh("e");
      this.inCallback++;
      const term = this.expression([...vars, e], 1);
      this.inCallback--;
      const times = this.chance(0.3) ? ` * Math.cos(${e})` : "";
      this.emit(
        `let ${v} = ${a.name}.reduce((${acc}, ${e}) => ${acc}${times} + ${term}, ${this.constant()});`,
      );
    } else {
      const i = this.fresh("i");
      this.emit(`let ${v} = 0;`);
      this.emit(
        `for (let ${i} = 0; ${i} < ${a.name}.length; ${i}++) ${v} += ${a.name}[${i}] * ${this.expression([...vars, i], 1)};`,
      );
      this.emit(`${v} = Math.tanh(${v} * 0.25) * 4;`);
    }
    vars.push(v);
    mutable.push(v);
  }

  // ---- whole functions ----

  /** Statements, then a return of an expression plus sums over the arrays still in scope. */
  functionBody(vars: string[], mutable: string[], statements: number): string {
    while (this.arrays.length === 0) this.declare(vars, mutable);
    this.block(vars, statements, mutable);
    if (this.voidFunction) return this.lines.join("\n");
    const terms = [this.expression(vars, 2)];
    const folded = new Set(Array.from({ length: this.int(1, 2) }, () => this.pick(this.arrays)));
    for (const a of folded) {
      const v = this.fresh("v");
      const i = this.fresh("i");
      this.emit(`let ${v} = 0;`);
      this.emit(
        `for (let ${i} = 0; ${i} < ${a.name}.length; ${i}++) ${v} += ${a.name}[${i}] * ${this.constant()};`,
      );
      terms.push(v);
    }
    if (this.matrices.length > 0) terms.push(this.matrixElement(this.pick(this.matrices), vars));
    this.emit(`return ${terms.join(" + ")};`);
    return this.lines.join("\n");
  }

  /** The body of a helper that writes every element of `out`, then maybe more. */
  writerBody(out: ArrayVar, vars: string[]): string {
    this.voidFunction = true;
    this.addArray(out);
    const i = this.fresh("i");
    const inPlace = this.chance(0.5) ? `${out.name}[${i}] * ${this.contraction()} + ` : "";
    this.emit(`for (let ${i} = 0; ${i} < ${out.name}.length; ${i}++) {`);
    this.nested(() =>
      this.emit(`${out.name}[${i}] = ${inPlace}${this.expression([...vars, i], 2)};`),
    );
    this.emit("}");
    return this.functionBody(vars, [], this.int(0, 2));
  }

  /** The body of a helper writing `out` from `src`, which may be the same array. */
  mixerBody(out: ArrayVar, src: ArrayVar, vars: string[]): string {
    this.voidFunction = true;
    this.addArray(out);
    this.addArray(src);
    const i = this.fresh("i");
    const k = this.int(0, 2);
    const from = `${src.name}[${k ? `(${i} + ${k})` : i} % ${src.name}.length]`;
    const mixed = this.pick([
      `${out.name}[${i}] * ${this.contraction()} + ${from}`,
      `Math.sin(${from}) * ${this.expression([...vars, i], 1)} + ${out.name}[${i}] * 0.5`,
      `Math.tanh(${from} * ${out.name}[${i}] + ${this.leaf([...vars, i])})`,
    ]);
    this.emit(
      `for (let ${i} = 0; ${i} < ${out.name}.length; ${i}++) ${out.name}[${i}] = ${mixed};`,
    );
    return this.functionBody(vars, [], this.int(0, 2));
  }

  /** The body of a helper returning an object `{ s, v }` from `src`. */
  objectMakerBody(src: ArrayVar, vars: string[]): string {
    this.addArray(src);
    let v: string;
    if (this.objectArray === src.type && this.chance(0.4)) {
      v = src.name;
    } else {
      v = this.fresh("a");
      const i = this.fresh("i");
      const from = `${src.name}[${i} % ${src.name}.length]`;
      this.emit(
        this.objectArray === "Float64Array"
          ? `const ${v} = new Float64Array(${src.name}.length);`
          : `const ${v} = new Array(${src.name}.length).fill(0);`,
      );
      this.emit(
        `for (let ${i} = 0; ${i} < ${v}.length; ${i}++) ${v}[${i}] = ${from} * ${this.expression([...vars, i], 1)};`,
      );
    }
    this.emit(`return { s: ${this.expression(vars, 2)}, v: ${v} };`);
    return this.lines.join("\n");
  }

  /** The body of a helper returning a new array as long as `src`. */
  makerBody(src: ArrayVar, result: ArrayType, vars: string[]): string {
    this.addArray(src);
    this.exit =
      result === src.type
        ? `return ${src.name}.slice();`
        : `return new ${result === "Float64Array" ? "Float64Array" : "Array"}(${src.name}.length)${result === "Float64Array" ? "" : ".fill(0)"};`;
    if (this.chance(0.3)) this.block(vars, 1, []);
    const e = this.fresh("e");
    const i = this.fresh("i");
    const r = this.fresh("a");
    if (result === src.type && this.chance(0.4)) {
      this.emit(`return ${src.name}.map((${e}) => ${this.expression([...vars, e, e], 2)});`);
    } else if (result === "Float64Array") {
      this.emit(`const ${r} = new Float64Array(${src.name}.length);`);
      this.emit(
        `for (let ${i} = 0; ${i} < ${src.name}.length; ${i}++) ${r}[${i}] = ${this.expression([...vars, i], 2)};`,
      );
      this.emit(`return ${r};`);
    } else {
      this.emit(`const ${r}: number[] = [];`);
      this.emit(
        `for (const ${e} of ${src.name}) ${r}.push(${this.expression([...vars, e, e], 2)});`,
      );
      this.emit(`return ${r};`);
    }
    return this.lines.join("\n");
  }
}

/** The lengths an array's name stands for. */
function lengths(a: ArrayVar): Length[] {
  return [a.length, ...(a.sources ?? [])];
}

function arrayParam(name: string, type: ArrayType): ArrayVar {
  return { name, type, length: { n: undefined }, growable: false };
}

/** A program over structured data, from its seed. */
export function randomStructuredProgram(seed: number): RandomStructuredProgram {
  const pick = <T>(items: readonly T[], k: number) => items[k % items.length]!;
  const objectArray = pick(ARRAY_TYPES, seed >>> 3);
  const parts: string[] = [];
  const scalarHelpers: string[] = [];
  const structured: StructuredHelper[] = [];
  const kinds = ["writer", "maker", "reader", "object", "mixer", "objectMaker"] as const;
  const helperCount = 1 + (seed % 3);
  for (let h = 0; h < helperCount; h++) {
    const name = `h_${seed}_${h}`;
    const helperSeed = seed * 31 + h + 1;
    const g = new StructuredGenerator(helperSeed, scalarHelpers, [...structured], objectArray);
    const kind = pick(kinds, (seed >>> 5) + h);
    const type = pick(ARRAY_TYPES, (seed >>> 7) + h);
    if (kind === "writer") {
      const body = g.writerBody(arrayParam("out", type), ["a", "b"]);
      parts.push(`function ${name}(out: ${type}, a: number, b: number): void {\n${body}\n}`);
      structured.push({ name, kind, type });
    } else if (kind === "mixer") {
      const body = g.mixerBody(arrayParam("out", type), arrayParam("src", type), ["t"]);
      parts.push(`function ${name}(out: ${type}, src: ${type}, t: number): void {\n${body}\n}`);
      structured.push({ name, kind, type });
    } else if (kind === "objectMaker") {
      const body = g.objectMakerBody(arrayParam("src", type), ["t"]);
      const result = `{ s: number; v: ${objectArray} }`;
      parts.push(`function ${name}(src: ${type}, t: number): ${result} {\n${body}\n}`);
      structured.push({ name, kind, type });
    } else if (kind === "maker") {
      const result = pick(ARRAY_TYPES, (seed >>> 9) + h);
      const body = g.makerBody(arrayParam("src", type), result, ["t"]);
      parts.push(`function ${name}(src: ${type}, t: number): ${result} {\n${body}\n}`);
      structured.push({ name, kind, type, result });
    } else if (kind === "reader") {
      g.addArray(arrayParam("src", type));
      const body = g.functionBody(["t"], [], 2 + (helperSeed % 3));
      parts.push(`function ${name}(src: ${type}, t: number): number {\n${body}\n}`);
      structured.push({ name, kind, type });
    } else {
      g.voidFunction = true;
      const vars = ["t"];
      const mutable: string[] = [];
      g.addObject("o", vars, mutable, 2);
      // The object's array: its length is only known to be at least 2.
      const body = g.functionBody(vars, mutable, 2 + (helperSeed % 2));
      parts.push(
        `function ${name}(o: { s: number; v: ${objectArray} }, t: number): void {\n${body}\n}`,
      );
      structured.push({ name, kind: "object", type: objectArray });
    }
  }
  if (seed % 4 === 0) {
    // And a scalar helper, as in the scalar programs.
    const name = `h_${seed}_s`;
    const body = new Generator(seed * 17 + 5, []).body(["a", "b"]);
    parts.push(`function ${name}(a: number, b: number): number {\n${body}\n}`);
    scalarHelpers.push(name);
  }

  const name = `main_${seed}`;
  const g = new StructuredGenerator(seed, scalarHelpers, structured, objectArray);
  const vars: string[] = [];
  const mutable: string[] = [];
  let params: Param[];
  const shape = seed % 5;
  const length = 2 + ((seed >>> 11) % 3);
  if (shape <= 1) {
    params = [
      { name: "x", kind: "number" },
      { name: "y", kind: "number" },
    ];
    vars.push("x", "y");
  } else if (shape <= 3) {
    const type = pick(ARRAY_TYPES, seed >>> 13);
    params = [
      { name: "v", kind: type, length },
      { name: "x", kind: "number" },
    ];
    g.addArray({ name: "v", type, length: { n: length }, growable: false });
    vars.push("x");
  } else {
    params = [
      {
        name: "p",
        kind: "object",
        fields: [
          { name: "s", kind: "number" },
          { name: "v", kind: objectArray, length },
        ],
      },
      { name: "x", kind: "number" },
    ];
    vars.push("x");
    g.addObject("p", vars, mutable, length);
  }
  const body = g.functionBody(vars, mutable, 4 + (seed % 4));
  const signature = params.map((p) => `${p.name}: ${typeText(p)}`).join(", ");
  parts.push(`export function ${name}(${signature}): number {\n${body}\n}`);
  return { seed, source: parts.join("\n\n"), name, params, helpers: structured };
}

function typeText(p: Param): string {
  if (p.kind === "object")
    return `{ ${p.fields.map((f) => `${f.name}: ${typeText(f)}`).join("; ")} }`;
  return p.kind;
}
