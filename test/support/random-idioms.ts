// Random programs written the way TypeScript users write them, from a seed: each program is a
// chain of "idioms" (arrays filled by index, copies of arrays of objects, optional fields read
// with `??`, names that look like the ones nabla generates, a shadowed `Math`, classes…) glued
// with the scalar statements of random-program.ts. The random-program generators never wrote
// these, and realistic programs found silent wrong derivatives in them (issue 17).
//
// One method per idiom; `IDIOMS` names them, so a program can be made of one idiom (a failure
// names its idiom) or of several. A program is a list of chunks (module declarations and main
// statements), so a failing program can be minimized by dropping chunks (idiom-check.ts).
// Every idiom adds a `let` number to the scope that later chunks may read and the result sums.

import { Generator } from "./random-program.js";

/**
 * Idioms nabla does not support yet and refuses with a diagnostic: their programs must compile
 * or be rejected, never give a wrong derivative or crash. NABLA_STRICT_IDIOMS=1 requires them
 * to compile too. Remove an idiom once it is supported.
 */
export const REJECTED_IDIOMS: readonly IdiomName[] = [
  // Settings of module-level data written by the differentiated code before calling the
  // functions that read them (`settings.gain = x; scenario.input(t)`): writing module-level
  // data is refused (NABLA105: pass it in as a parameter instead).
  "module-settings",
];

export const IDIOM_NAMES = [
  "index-fill",
  "push-grow",
  "copy-arrays",
  "copy-objects",
  "copy-matrix",
  "optional-field",
  "optional-param",
  "out-of-range",
  "optional-chaining",
  "generated-names",
  "shadowed-globals",
  "class-instances",
  "nested-objects",
  "objects-in-loops",
  "array-helpers",
  "inferred-types",
  "generic-helpers",
  "default-params",
  "constructed-classes",
  "closure-factories",
  "everyday-arrays",
  "records-maps",
  "union-variants",
  "expression-trees",
  "everyday-syntax",
  "generators",
  "function-fields",
  "module-settings",
  "function-records",
  "interface-strategies",
  "private-members",
  "optional-callbacks",
  "function-lists",
  "module-state",
  "row-sums",
  "array-kinds",
  "object-assign",
  "text-keys",
  "typed-shapes",
  "stacks-queues",
  "class-unions",
  "group-by",
  "effect-statements",
  "lifecycle-hooks",
  "recursive-locals",
  "subclass-arrays",
  "iterable-spread",
  "returned-functions",
  "nested-gradients",
] as const;
export type IdiomName = (typeof IDIOM_NAMES)[number];

/**
 * Idioms whose programs cannot have the module-level `Math` of shadowed-globals: they read Math
 * members it does not have (max, PI, Math[key]: the program would not type-check), or call
 * operators at module level, which the plain program runs through nabla's run-time compiler,
 * which reads `Math` in a function's source as the global one (a wrong reference; reported in
 * review79).
 */
const WHOLE_MATH: readonly IdiomName[] = [
  "everyday-arrays",
  "interface-strategies",
  "subclass-arrays",
  "iterable-spread",
  "nested-gradients",
];

/** A piece of a program: declarations at module level and statements of the main function. */
export interface Chunk {
  idiom: IdiomName | "scalar" | "start" | "return";
  decls: string[];
  body: string[];
  /** Fields of the `env` parameter this chunk reads (class instances made outside). */
  env: { field: string; type: string; make: string }[];
  /** Operators its declarations import from "nabla" (`const gradE = gradient(energy)`). */
  imports?: string[];
}

export interface IdiomProgram {
  seed: number;
  idioms: IdiomName[];
  /** `main_<seed>`, exported with signature `(x: number, y: number[, env: Env_<seed>]): number`. */
  name: string;
  chunks: Chunk[];
}

/** The TypeScript module of a program (without operator calls): declarations, env, main. */
export function programSource(p: { name: string; chunks: Chunk[] }): string {
  // A module's own Math comes first, as a user's would: a declaration of another idiom that
  // reads Math at module level (`{ post: Math.tanh }`) would otherwise run before it (a TDZ
  // ReferenceError in the plain program).
  const all = p.chunks.flatMap((c) => c.decls);
  const ownMath = (d: string) => d.startsWith("const Math = ");
  const decls = [...all.filter(ownMath), ...all.filter((d) => !ownMath(d))];
  const env = p.chunks.flatMap((c) => c.env);
  const imports = [...new Set(p.chunks.flatMap((c) => c.imports ?? []))].sort();
  const parts = imports.length ? [`import { ${imports.join(", ")} } from "nabla";`] : [];
  parts.push(...decls);
  let params = "x: number, y: number";
  if (env.length > 0) {
    // Class instances are made outside differentiated code (`new` inside is NABLA101).
    parts.push(
      `export interface Env_${p.name} {\n${env.map((e) => `  ${e.field}: ${e.type};`).join("\n")}\n}`,
      `export function makeEnv_${p.name}(): Env_${p.name} {\n  return { ${env.map((e) => `${e.field}: ${e.make}`).join(", ")} };\n}`,
    );
    params += `, env: Env_${p.name}`;
  }
  const body = p.chunks.flatMap((c) => c.body).join("\n");
  parts.push(`export function ${p.name}(${params}): number {\n${body}\n}`);
  return parts.join("\n\n");
}

/** Whether the program's main takes an `env` argument. */
export function hasEnv(p: { chunks: Chunk[] }): boolean {
  return p.chunks.some((c) => c.env.length > 0);
}

/** Names nabla gives generated locals and functions (seen in `nabla emit` output). */
const GENERATED_LOCALS = [
  "dx",
  "dy",
  "d_x",
  "x_adj",
  "y_adj",
  "x_adj_1",
  "t",
  "t_1",
  "t_2",
  "dt",
  "dt_1",
  "$t",
  "tape",
  "$tape",
  "$top",
  "top",
  "seed",
  "trips",
  "trips_1",
  "$i0",
  "x$1",
  "s_adj",
  "ds",
  "mark",
  "objectMark",
  "value",
  "out",
  "slice",
  "dslice",
  "break_1",
  "returned",
  "result",
  "$nabla",
];

class IdiomGenerator extends Generator {
  private chunk: Chunk | undefined;
  private readonly taken = new Set<string>();
  /** Once per program: idioms whose module declarations apply to the whole module. */
  private moduleMath = false;
  private moduleNames = false;

  constructor(
    seed: number,
    private readonly main: string,
    /** Whether the program may not have a module's own `Math` (WHOLE_MATH). */
    private readonly wholeMath = false,
  ) {
    super(seed, []);
  }

  /** Runs `fn`, collecting what it emits into a chunk of kind `idiom`. */
  collect(idiom: Chunk["idiom"], fn: () => void): Chunk {
    const chunk: Chunk = { idiom, decls: [], body: [], env: [] };
    this.chunk = chunk;
    const start = this.lines.length;
    fn();
    chunk.body = this.lines.splice(start);
    this.chunk = undefined;
    return chunk;
  }

  private decl(text: string): void {
    this.chunk!.decls.push(text);
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  /** A constant of magnitude below 1, for updates repeated in loops. */
  private contraction(): string {
    const c = Math.round((this.random() * 1.6 - 0.8) * 100) / 100;
    return c < 0 ? `(${c})` : String(c);
  }

  private e(vars: string[], depth = 1): string {
    return this.expression(vars, depth);
  }

  /** Squashes the chunk's result `r`, adds it to `acc` (what main returns) and puts it in scope. */
  private result(r: string, vars: string[], mutable: string[]): void {
    this.emit(`${r} = Math.tanh(${r} * 0.5) * 2;`);
    this.emit(`acc += ${r};`);
    vars.push(r);
    mutable.push(r);
  }

  /** `let r = 0; for (…) r += <term of the element>;`, over an array of numbers or objects. */
  private sum(array: string, term: (e: string) => string, vars: string[]): string {
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    const e = this.fresh("e");
    const i = this.fresh("i");
    switch (this.int(0, 2)) {
      case 0:
        this.emit(`for (const ${e} of ${array}) ${r} += ${term(e)};`);
        break;
      case 1:
        this.emit(
          `for (let ${i} = 0; ${i} < ${array}.length; ${i}++) ${r} += ${term(`${array}[${i}]`)};`,
        );
        break;
      default:
        this.emit(`${r} = ${array}.reduce((total, ${e}) => total + ${term(e)}, ${r});`);
    }
    void vars;
    return r;
  }

  /** A copy of an array, as users write one (shallow: elements are shared). */
  private copyOf(array: string, n: number): { text: string; n: number } {
    const tail = n >= 2 && this.chance(0.2);
    if (tail) return { text: `${array}.slice(1)`, n: n - 1 };
    return {
      text: this.pick([
        `${array}.slice()`,
        `${array}.slice(0)`,
        `Array.from(${array})`,
        `${array}.map((o) => o)`,
        `[...${array}]`,
      ]),
      n,
    };
  }

  // ---- the idioms ----

  /** `const ys: number[] = []; for (…) ys[i] = …;` (or from the back, or at `ys.length`). */
  indexFill(vars: string[], mutable: string[]): void {
    const ys = this.fresh("ys");
    const i = this.fresh("i");
    const n = this.int(2, 5);
    const inner = [...vars, i];
    this.emit(`const ${ys}: number[] = [];`);
    switch (this.int(0, 3)) {
      case 0:
        this.emit(`for (let ${i} = 0; ${i} < ${n}; ${i}++) ${ys}[${i}] = ${this.e(inner, 2)};`);
        break;
      case 1:
        this.emit(
          `for (let ${i} = ${n - 1}; ${i} >= 0; ${i}--) ${ys}[${i}] = ${this.e(inner, 2)};`,
        );
        break;
      case 2:
        this.emit(
          `for (let ${i} = 0; ${i} < ${n}; ${i}++) ${ys}[${ys}.length] = ${this.e(inner, 2)};`,
        );
        break;
      default:
        this.emit(`${ys}[0] = ${this.e(vars, 1)};`);
        this.emit(
          `for (let ${i} = 1; ${i} < ${n}; ${i}++) ${ys}[${i}] = Math.tanh(${ys}[${i} - 1] * ${this.contraction()} + ${this.e(inner, 1)});`,
        );
    }
    if (this.chance(0.4)) {
      const j = this.fresh("i");
      this.emit(
        `for (let ${j} = 0; ${j} < ${ys}.length; ${j}++) ${ys}[${j}] += ${ys}[(${j} + 1) % ${ys}.length] * ${this.contraction()};`,
      );
    }
    const c = this.constant();
    this.result(
      this.sum(ys, (e) => `${e} * ${c}`, vars),
      vars,
      mutable,
    );
  }

  /**
   * An array grown with `.push` in a loop (sometimes long enough to outgrow several blocks of
   * wasm memory), some pushes conditional, some from the last element, some of two values or
   * of a spread; sometimes rows built by push and pushed into a list, as a matrix is built.
   */
  pushGrow(vars: string[], mutable: string[]): void {
    const ys = this.fresh("ys");
    const i = this.fresh("i");
    const inner = [...vars, i];
    this.emit(`const ${ys}: number[] = [${this.e(vars, 1)}];`);
    const trips = this.chance(0.3) ? this.int(5, 20) : this.int(1, 4);
    this.emit(`for (let ${i} = 0; ${i} < ${trips}; ${i}++) {`);
    this.nested(() => {
      const last = `${ys}[${ys}.length - 1]`;
      const value = this.chance(0.5)
        ? `Math.tanh(${last} * ${this.contraction()} + ${this.e(inner, 1)})`
        : this.e(inner, 2);
      const values = this.chance(0.2) ? `${value}, ${this.e(inner, 1)}` : value;
      if (this.chance(0.3)) this.emit(`if (${this.condition(inner)}) ${ys}.push(${values});`);
      else this.emit(`${ys}.push(${values});`);
    });
    this.emit("}");
    if (this.chance(0.3)) this.emit(`${ys}.push(...${ys}.slice(0, ${this.int(1, 3)}));`);
    if (this.chance(0.3)) {
      // Rows pushed into a list after they are built; sometimes the list first (a row pushed
      // onto after it is stored, which wasm must leave to JavaScript).
      const rows = this.fresh("rows");
      const row = this.fresh("row");
      const j = this.fresh("j");
      const y = this.fresh("y");
      const early = this.chance(0.4);
      this.emit(`const ${rows}: number[][] = [];`);
      this.emit(`for (let ${j} = 0; ${j} < ${this.int(1, 4)}; ${j}++) {`);
      this.nested(() => {
        this.emit(`const ${row}: number[] = [];`);
        if (early) this.emit(`${rows}.push(${row});`);
        this.emit(`for (const ${y} of ${ys}) ${row}.push(${y} * (${j} + 1));`);
        if (!early) this.emit(`${rows}.push(${row});`);
      });
      this.emit("}");
      const r = this.fresh("r");
      this.emit(`let ${r} = 0;`);
      this.emit(
        `for (const ${row} of ${rows}) for (const ${y} of ${row}) ${r} += ${y} * ${this.constant()};`,
      );
      this.result(r, vars, mutable);
    }
    const c = this.constant();
    this.result(
      this.sum(ys, (e) => `${e} * ${c}`, vars),
      vars,
      mutable,
    );
  }

  /** A copy of a number[] (`slice`, `Array.from`, spread, `map`), written and read with the original. */
  copyArrays(vars: string[], mutable: string[]): void {
    const xs = this.fresh("xs");
    const n = this.int(2, 4);
    this.emit(
      `const ${xs}: number[] = [${Array.from({ length: n }, () => this.e(vars, 1)).join(", ")}];`,
    );
    const zs = this.fresh("zs");
    const copy = this.copyOf(xs, n);
    this.emit(`const ${zs} = ${copy.text};`);
    const j = this.int(0, copy.n - 1);
    switch (this.int(0, 2)) {
      case 0:
        this.emit(`${zs}[${j}] = ${this.e(vars, 2)};`);
        break;
      case 1: {
        const i = this.fresh("i");
        this.emit(
          `for (let ${i} = 0; ${i} < ${zs}.length; ${i}++) ${zs}[${i}] = Math.tanh(${zs}[${i}] * ${this.e([...vars, i], 1)});`,
        );
        break;
      }
      default:
        this.emit(`${xs}[${this.int(0, n - 1)}] *= Math.cos(${this.e(vars, 1)});`);
    }
    const [a, b] = [this.constant(), this.constant()];
    const r = this.sum(xs, (e) => `${e} * ${a}`, vars);
    this.emit(`for (const e of ${zs}) ${r} += Math.sin(e) * ${b};`);
    this.result(r, vars, mutable);
  }

  /** An array of objects copied (the copy shares the objects), written through the copy. */
  copyObjects(vars: string[], mutable: string[]): void {
    const P = this.fresh("P");
    this.decl(`interface ${P} {\n  a: number;\n  b: number;\n}`);
    const ps = this.fresh("ps");
    const n = this.int(2, 4);
    const obj = (vs: string[]) => `{ a: ${this.e(vs, 1)}, b: ${this.e(vs, 1)} }`;
    if (this.chance(0.5)) {
      this.emit(
        `const ${ps}: ${P}[] = [${Array.from({ length: n }, () => obj(vars)).join(", ")}];`,
      );
    } else {
      const i = this.fresh("i");
      this.emit(`const ${ps}: ${P}[] = [];`);
      this.emit(`for (let ${i} = 0; ${i} < ${n}; ${i}++) ${ps}.push(${obj([...vars, i])});`);
    }
    const qs = this.fresh("qs");
    const copy = this.copyOf(ps, n);
    this.emit(`const ${qs} = ${copy.text};`);
    const j = this.int(0, copy.n - 1);
    switch (this.int(0, 3)) {
      case 0:
        this.emit(`${qs}[${j}].a = ${this.e([...vars, `${qs}[${j}].b`], 2)};`);
        break;
      case 1:
        this.emit(`for (const q of ${qs}) q.b = Math.tanh(q.b * ${this.contraction()} + q.a);`);
        break;
      case 2:
        this.emit(`${qs}[${j}] = ${obj(vars)};`);
        break;
      default:
        this.emit(`${qs}[${j}].b *= Math.cos(${this.e(vars, 1)});`);
    }
    const [a, b, c] = [this.constant(), this.constant(), this.constant()];
    const r = this.sum(ps, (e) => `${e}.a * ${a} + ${e}.b * ${b}`, vars);
    if (this.chance(0.6)) this.emit(`for (const q of ${qs}) ${r} += q.a * q.b * ${c};`);
    this.result(r, vars, mutable);
  }

  /** A number[][] copied shallowly (`A.slice()`: rows shared) or deeply, then written. */
  copyMatrix(vars: string[], mutable: string[]): void {
    const A = this.fresh("A");
    const rows = this.int(2, 3);
    const cols = this.int(2, 3);
    const row = () => `[${Array.from({ length: cols }, () => this.e(vars, 1)).join(", ")}]`;
    this.emit(`const ${A}: number[][] = [${Array.from({ length: rows }, row).join(", ")}];`);
    const B = this.fresh("B");
    const copy = this.chance(0.8)
      ? this.copyOf(A, rows)
      : { text: this.pick([`${A}.map((r) => r.slice())`, `${A}.map((r) => [...r])`]), n: rows };
    this.emit(`const ${B} = ${copy.text};`);
    const [i, j] = [this.int(0, copy.n - 1), this.int(0, cols - 1)];
    switch (this.int(0, 2)) {
      case 0:
        this.emit(`${B}[${i}][${j}] = ${this.e(vars, 2)};`);
        break;
      case 1:
        // A new row in the copy, then an element of another row written through it.
        this.emit(`${B}[${i}] = ${row()};`);
        this.emit(`${B}[${(i + 1) % copy.n}][${j}] *= ${this.e(vars, 1)};`);
        break;
      default:
        this.emit(`for (const row of ${B}) row[${j}] = Math.tanh(row[${j}] + ${this.e(vars, 1)});`);
    }
    const r = this.fresh("r");
    const [k, l] = [this.fresh("i"), this.fresh("i")];
    this.emit(`let ${r} = 0;`);
    this.emit(`for (let ${k} = 0; ${k} < ${A}.length; ${k}++) {`);
    this.nested(() =>
      this.emit(
        `for (let ${l} = 0; ${l} < ${A}[${k}].length; ${l}++) ${r} += ${A}[${k}][${l}] * ${this.constant()};`,
      ),
    );
    this.emit("}");
    this.emit(
      `${r} += ${B}[${this.int(0, copy.n - 1)}][${this.int(0, cols - 1)}] * ${this.constant()};`,
    );
    this.result(r, vars, mutable);
  }

  /** `interface S { x: number; weight?: number }`, objects without the field, `(d.weight ?? 1) * d.x`. */
  optionalField(vars: string[], mutable: string[]): void {
    const S = this.fresh("S");
    this.decl(`interface ${S} {\n  x: number;\n  weight?: number;\n}`);
    const ds = this.fresh("ds");
    const n = this.int(2, 4);
    // Mostly with an object that omits the field; sometimes every object has it.
    const omit = this.chance(0.75);
    const items = Array.from({ length: n }, (_, k) =>
      omit && (k === 0 || this.chance(0.3))
        ? `{ x: ${this.e(vars, 1)} }`
        : `{ x: ${this.e(vars, 1)}, weight: ${this.chance(0.3) ? this.constant() : this.e(vars, 1)} }`,
    );
    this.emit(`const ${ds}: ${S}[] = [${items.join(", ")}];`);
    if (this.chance(0.4))
      this.emit(
        `if (${this.condition(vars)}) ${ds}[${this.int(0, n - 1)}].weight = ${this.e(vars, 1)};`,
      );
    const c = this.constant();
    const read = this.pick([
      (d: string) => `(${d}.weight ?? 1) * ${d}.x`,
      (d: string) => `(${d}.weight || 2) * ${d}.x`,
      (d: string) => `${d}.x * (${d}.weight !== undefined ? ${d}.weight : ${c})`,
      (d: string) => `(${d}.weight === undefined ? ${d}.x : ${d}.x * ${d}.weight)`,
      (d: string) => `(${d}.weight ?? ${d}.x) * ${c}`,
      (d: string) => `("weight" in ${d} ? (${d}.weight ?? ${c}) * ${d}.x : ${d}.x)`,
    ]);
    const r = this.sum(ds, read, vars);
    if (this.chance(0.5)) {
      // A search's result declared without a value: undefined until found.
      const best = this.fresh("best");
      const d = this.fresh("d");
      this.emit(`let ${best}: number | undefined;`);
      this.emit(
        `for (const ${d} of ${ds}) if (${best} === undefined || ${d}.x < ${best}) ${best} = ${d}.x;`,
      );
      this.emit(`${r} += ${best} ?? ${this.constant()};`);
    }
    if (this.chance(0.5)) {
      const o = this.fresh("o");
      this.emit(`const ${o}: ${S} = { x: ${this.e(vars, 1)} };`);
      if (this.chance(0.5))
        this.emit(`if (${this.condition(vars)}) ${o}.weight = ${this.e(vars, 1)};`);
      this.emit(`${r} += (${o}.weight ?? ${this.constant()}) * ${o}.x;`);
    }
    this.result(r, vars, mutable);
  }

  /** Helpers with optional parameters and option objects: `opts.k ?? 3`, `k ?? 2`. */
  optionalParam(vars: string[], mutable: string[]): void {
    const h = this.fresh("scale");
    const g = this.fresh("wave");
    this.decl(
      `function ${h}(v: number, opts: { k?: number; bias?: number }): number {\n  return v * (opts.k ?? ${this.constant()}) + (opts.bias || ${this.constant()});\n}`,
    );
    this.decl(
      `function ${g}(v: number, k?: number): number {\n  return Math.sin(v * (k ?? ${this.constant()}));\n}`,
    );
    // Options spread over module-level defaults, an array field among them left out or given.
    const tuned = this.fresh("tuned");
    const DEFAULTS = this.fresh("DEFAULTS");
    this.decl(
      `const ${DEFAULTS} = { gains: [${this.constant()}, ${this.constant()}], k: ${this.constant()} };`,
    );
    this.decl(
      `function ${tuned}(v: number, opts: { gains?: number[]; k?: number }): number {\n  const o = { ...${DEFAULTS}, ...opts };\n  return v * o.gains[0]! * o.k + o.gains[1]!;\n}`,
    );
    const calls = [
      () => `${tuned}(${this.e(vars, 1)}, {})`,
      () => `${tuned}(${this.e(vars, 1)}, { gains: [${this.e(vars, 1)}, ${this.constant()}] })`,
      () => `${tuned}(${this.e(vars, 1)}, { k: ${this.e(vars, 1)} })`,
      () =>
        `${tuned}(${this.e(vars, 1)}, { ...(${this.condition(vars)} && { k: ${this.e(vars, 1)} }) })`,
      () => `${h}(${this.e(vars, 1)}, {})`,
      () => `${h}(${this.e(vars, 1)}, { k: ${this.e(vars, 1)} })`,
      () => `${h}(${this.e(vars, 1)}, { bias: ${this.e(vars, 1)} })`,
      () => `${h}(${this.e(vars, 1)}, { k: ${this.constant()}, bias: ${this.e(vars, 1)} })`,
      () => `${g}(${this.e(vars, 1)})`,
      () => `${g}(${this.e(vars, 1)}, ${this.e(vars, 1)})`,
      () => `${g}(${this.e(vars, 1)}, undefined)`,
    ];
    const r = this.fresh("r");
    const terms = Array.from({ length: this.int(2, 3) }, () => this.pick(calls)());
    this.emit(`let ${r} = ${terms.join(" + ")};`);
    if (this.chance(0.4)) {
      const opts = this.fresh("opts");
      this.emit(`const ${opts}: { k?: number; bias?: number } = {};`);
      this.emit(`if (${this.condition(vars)}) ${opts}.k = ${this.e(vars, 1)};`);
      this.emit(`${r} += ${h}(${this.e(vars, 1)}, ${opts});`);
    }
    this.result(r, vars, mutable);
  }

  /** Reads past the ends, caught by `??` and `||`: `xs[i - 1] ?? 1` at i = 0, `xs[xs.length] || 5`. */
  outOfRange(vars: string[], mutable: string[]): void {
    const xs = this.fresh("xs");
    const n = this.int(2, 4);
    this.emit(
      `const ${xs}: number[] = [${Array.from({ length: n }, () => this.e(vars, 1)).join(", ")}];`,
    );
    const r = this.fresh("r");
    const i = this.fresh("i");
    this.emit(`let ${r} = 0;`);
    const term = this.pick([
      `(${xs}[${i} - 1] ?? 1) * ${xs}[${i}]`,
      `(${xs}[${i} + 1] ?? ${xs}[0]) * ${this.constant()}`,
      `${xs}[${i}] * (${xs}[${i} + 2] ?? ${this.pick(vars)})`,
    ]);
    this.emit(`for (let ${i} = 0; ${i} < ${xs}.length; ${i}++) ${r} += ${term};`);
    this.emit(
      this.pick([
        `${r} += ${xs}[${xs}.length] || 5;`,
        `${r} += (${xs}[${xs}.length] || ${this.pick(vars)}) * ${this.constant()};`,
        `${r} *= ${xs}[${n + this.int(0, 2)}] ?? ${this.constant()};`,
        `${r} += ${xs}[-1] ?? ${xs}[${n - 1}];`,
      ]),
    );
    this.result(r, vars, mutable);
  }

  /** Optional chaining past the ends of an array of objects and on an optional nested object. */
  optionalChaining(vars: string[], mutable: string[]): void {
    const ps = this.fresh("ps");
    const j = this.fresh("i");
    const r = this.fresh("r");
    this.emit(`const ${ps} = [{ a: ${this.e(vars, 1)} }, { a: ${this.e(vars, 1)} }];`);
    this.emit(`let ${r} = 0;`);
    this.emit(
      `for (let ${j} = 0; ${j} < ${ps}.length; ${j}++) ${r} += (${ps}[${j} - 1]?.a ?? ${this.constant()}) * ${ps}[${j}].a;`,
    );
    if (this.chance(0.5)) {
      const o = this.fresh("o");
      this.emit(`const ${o}: { v: number; next?: { v: number } } = { v: ${this.e(vars, 1)} };`);
      this.emit(`if (${this.condition(vars)}) ${o}.next = { v: ${this.e(vars, 1)} };`);
      this.emit(`${r} += (${o}.next?.v ?? ${o}.v) * ${this.constant()};`);
    }
    this.result(r, vars, mutable);
  }

  /** Locals, parameters and module constants named as nabla names what it generates. */
  generatedNames(vars: string[], mutable: string[]): void {
    if (!this.moduleNames && this.chance(0.6)) {
      this.moduleNames = true;
      // A helper whose parameter is named like a tangent, next to user functions named like
      // its derivatives, and module constants named like the main function's derivatives.
      const h = this.fresh("h");
      this.decl(
        `function ${h}(x: number, dx: number): number {\n  const x_adj = x * dx;\n  return Math.sin(x_adj) + dx;\n}`,
      );
      const suffix = this.pick(["$jvp", "$fwd", "$bwd", "$vjp", "$fwd$r1"]);
      this.decl(`function ${h}${suffix}(t: number): number {\n  return t * ${this.constant()};\n}`);
      const mainSuffix = this.pick(["$jvp", "$fwd", "$bwd", "$vjp"]);
      this.decl(`const ${this.main}${mainSuffix} = ${this.constant()};`);
      const r = this.fresh("r");
      this.emit(
        `let ${r} = ${h}(${this.e(vars, 1)}, ${this.e(vars, 1)}) + ${h}${suffix}(${this.e(vars, 1)}) * ${this.main}${mainSuffix};`,
      );
      this.result(r, vars, mutable);
    }
    const free = GENERATED_LOCALS.filter((name) => !this.taken.has(name));
    const names = Array.from({ length: Math.min(free.length, this.int(2, 3)) }, () => {
      const name = this.pick(free.filter((f) => !this.taken.has(f)));
      this.taken.add(name);
      return name;
    });
    for (const name of names) {
      this.emit(`let ${name} = ${this.e(vars, 2)};`);
      vars.push(name);
    }
    const i = this.fresh("i");
    this.emit(`for (let ${i} = 0; ${i} < ${this.int(1, 3)}; ${i}++) {`);
    this.nested(() => {
      for (const name of names)
        this.emit(
          `${name} = Math.tanh(${name} * ${this.contraction()} + ${this.e([...vars, i], 1)});`,
        );
    });
    this.emit("}");
    this.emit(`acc += ${names.join(" + ")};`);
    mutable.push(...names);
  }

  /** A `Math` of the user's (module-wide or in a block), a local `Number`, a shadowed helper. */
  shadowedGlobals(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    const roll = this.int(0, 3);
    // A module's own Math replaces Math everywhere: not in a program of WHOLE_MATH.
    if (roll === 0 && !this.moduleMath && !this.wholeMath) {
      // Every Math function the expressions use, some replaced by other smooth functions.
      this.moduleMath = true;
      const members: Record<string, string[]> = {
        sin: ["(t: number) => globalThis.Math.sin(t)", "(t: number) => t - (t * t * t) / 6"],
        cos: ["(t: number) => globalThis.Math.cos(t)", "(t: number) => 1 - (t * t) / 2"],
        tanh: ["(t: number) => globalThis.Math.tanh(t)", "(t: number) => t / (1 + t * t)"],
        exp: ["(t: number) => globalThis.Math.exp(t)", "(t: number) => 1 + t + (t * t) / 2"],
        log: ["(t: number) => globalThis.Math.log(t)", "(t: number) => (t - 1) / (t + 1)"],
        sqrt: ["(t: number) => globalThis.Math.sqrt(t)", "(t: number) => (1 + t) / 2"],
        abs: ["(t: number) => globalThis.Math.abs(t)", "(t: number) => (t * t) / (1 + t * t)"],
        atan2: [
          "(a: number, b: number) => globalThis.Math.atan2(a, b)",
          "(a: number, b: number) => a / (b + 1)",
        ],
        // Used by other idioms' code (function lists, a seeded generator): without them the
        // program would not type-check.
        atan: ["(t: number) => globalThis.Math.atan(t)", "(t: number) => t / (1 + 0.28 * t * t)"],
        imul: [
          "(a: number, b: number) => globalThis.Math.imul(a, b)",
          "(a: number, b: number) => globalThis.Math.imul(a, b)",
        ],
      };
      const fields = Object.entries(members).map(
        ([name, [same, other]]) => `  ${name}: ${this.chance(0.5) ? other : same},`,
      );
      this.decl(`const Math = {\n${fields.join("\n")}\n};`);
      this.emit(`let ${r} = Math.cos(${this.e(vars, 1)}) * ${this.pick(vars)};`);
    } else if (roll <= 1) {
      // A Math of the user's inside a helper (an object of functions made at module level:
      // arrow functions inside differentiated code are NABLA101).
      const m = this.fresh("myMath");
      const h = this.fresh("hm");
      this.decl(
        `const ${m}: { cos: (t: number) => number; sin: (t: number) => number } = {\n  cos: (t: number) => 1 - (t * t) / 2,\n  sin: (t: number) => t * ${this.contraction()},\n};`,
      );
      this.decl(
        `function ${h}(a: number, b: number): number {\n  const Math = ${m};\n  return Math.cos(a) * b + Math.sin(b);\n}`,
      );
      this.emit(`let ${r} = ${h}(${this.e(vars, 1)}, ${this.e(vars, 1)});`);
    } else if (roll === 2) {
      // A local Number (a local function, as differentiated code allows).
      const v = this.pick(vars);
      this.emit(`let ${r} = 0;`);
      this.emit("{");
      this.nested(() => {
        this.emit(`const Number = (t: number) => t * ${this.constant()};`);
        this.emit(`${r} = Number(${v}) + ${this.e(vars, 1)};`);
      });
      this.emit("}");
    } else {
      // A helper shadowed by a local function of the same name.
      const h = this.fresh("sq");
      this.decl(`function ${h}(t: number): number {\n  return t * t;\n}`);
      this.emit(`let ${r} = ${h}(${this.pick(vars)});`);
      this.emit("{");
      this.nested(() => {
        this.emit(`const ${h} = (t: number) => Math.sin(t) * ${this.constant()};`);
        this.emit(`${r} += ${h}(${this.e(vars, 1)});`);
      });
      this.emit("}");
    }
    this.result(r, vars, mutable);
  }

  /** Class instances (made outside, passed in `env`) with fields written from x, y and methods. */
  classInstances(vars: string[], mutable: string[]): void {
    const C = this.fresh("Body");
    const mass = this.constant();
    const ctor = this.chance(0.5)
      ? `  constructor(\n    public pos: number,\n    public vel: number,\n  ) {}`
      : `  pos: number;\n  vel: number;\n  constructor(pos: number, vel: number) {\n    this.pos = pos;\n    this.vel = vel;\n  }`;
    this.decl(
      `class ${C} {\n  mass = ${mass};\n${ctor}\n  step(h: number): void {\n    this.vel -= Math.sin(this.pos) * h;\n    this.pos += this.vel * h;\n  }\n  energy(): number {\n    return 0.5 * this.mass * this.vel * this.vel + Math.cos(this.pos);\n  }\n}`,
    );
    const field = this.fresh("b");
    const many = this.chance(0.5);
    const make = () => `new ${C}(${this.constant()}, ${this.constant()})`;
    this.chunk!.env.push(
      many
        ? { field, type: `${C}[]`, make: `[${make()}, ${make()}]` }
        : { field, type: C, make: make() },
    );
    const b = this.fresh("b");
    const r = this.fresh("r");
    const steps = this.int(1, 3);
    const i = this.fresh("i");
    if (many) {
      this.emit(`const ${b} = env.${field};`);
      this.emit(`${b}[0].pos = ${this.e(vars, 1)};`);
      this.emit(`${b}[1].vel = ${this.e(vars, 1)};`);
      this.emit(`for (let ${i} = 0; ${i} < ${steps}; ${i}++) for (const q of ${b}) q.step(0.1);`);
      this.emit(`let ${r} = ${b}[0].energy() * ${this.constant()} + ${b}[1].pos;`);
    } else {
      this.emit(`const ${b} = env.${field};`);
      this.emit(`${b}.pos = ${this.e(vars, 1)};`);
      if (this.chance(0.5)) this.emit(`${b}.vel *= ${this.e(vars, 1)};`);
      this.emit(
        `for (let ${i} = 0; ${i} < ${steps}; ${i}++) ${b}.step(${this.pick(["0.1", "0.2"])});`,
      );
      this.emit(`let ${r} = ${b}.energy() + ${b}.pos * ${this.constant()};`);
    }
    this.result(r, vars, mutable);
  }

  /** Object literals of nested objects, written in a loop, through aliases, replaced. */
  nestedObjects(vars: string[], mutable: string[]): void {
    const s = this.fresh("s");
    const v2 = () => `{ x: ${this.e(vars, 1)}, y: ${this.e(vars, 1)} }`;
    this.emit(`const ${s} = { pos: ${v2()}, vel: ${v2()}, k: ${this.constant()} };`);
    const i = this.fresh("i");
    this.emit(`for (let ${i} = 0; ${i} < ${this.int(1, 4)}; ${i}++) {`);
    this.nested(() => {
      this.emit(`${s}.vel.x -= ${s}.k * Math.sin(${s}.pos.x) * 0.1;`);
      this.emit(`${s}.pos.x += ${s}.vel.x * 0.1;`);
      this.emit(`${s}.pos.y = Math.tanh(${s}.pos.y + ${s}.vel.y * 0.1);`);
    });
    this.emit("}");
    switch (this.int(0, 2)) {
      case 0: {
        const p = this.fresh("p");
        this.emit(`const ${p} = ${s}.pos;`);
        this.emit(`${p}.y *= ${this.e(vars, 1)};`);
        break;
      }
      case 1:
        this.emit(`${s}.vel = ${v2()};`);
        break;
      default: {
        const w = this.fresh("w");
        this.emit(`const ${w} = { inner: ${s}, pts: [{ x: ${this.e(vars, 1)} }, ${s}.pos] };`);
        this.emit(`${w}.pts[1].x += ${w}.pts[0].x * ${this.constant()};`);
        this.emit(`${w}.inner.vel.y *= ${this.contraction()};`);
      }
    }
    const r = this.fresh("r");
    this.emit(
      `let ${r} = ${s}.pos.x * ${this.constant()} + ${s}.pos.y * ${this.constant()} + ${s}.vel.x * ${s}.vel.y;`,
    );
    this.result(r, vars, mutable);
  }

  /** An array of objects mutated in loops: over the objects, by index with neighbours. */
  objectsInLoops(vars: string[], mutable: string[]): void {
    const ps = this.fresh("ps");
    const n = this.int(2, 4);
    const items = Array.from(
      { length: n },
      () => `{ p: ${this.e(vars, 1)}, v: ${this.e(vars, 1)} }`,
    );
    this.emit(`const ${ps}: { p: number; v: number }[] = [${items.join(", ")}];`);
    const it = this.fresh("i");
    this.emit(`for (let ${it} = 0; ${it} < ${this.int(1, 3)}; ${it}++) {`);
    this.nested(() => {
      if (this.chance(0.6)) {
        this.emit(`for (const q of ${ps}) {`);
        this.nested(() => {
          this.emit(`q.v -= ${this.contraction()} * Math.sin(q.p);`);
          this.emit(`q.p += 0.2 * q.v;`);
        });
        this.emit("}");
      } else {
        const i = this.fresh("i");
        this.emit(
          `for (let ${i} = 0; ${i} < ${ps}.length; ${i}++) ${ps}[${i}].p = Math.tanh(${ps}[${i}].p + ${this.contraction()} * ${ps}[(${i} + 1) % ${ps}.length].v);`,
        );
      }
      if (this.chance(0.4))
        this.emit(`if (${this.condition([...vars, it])}) ${ps}[0].v *= ${this.contraction()};`);
    });
    this.emit("}");
    const [a, b] = [this.constant(), this.constant()];
    this.result(
      this.sum(ps, (e) => `${e}.p * ${a} + ${e}.v * ${b}`, vars),
      vars,
      mutable,
    );
  }

  /**
   * Everyday array and object helpers: `Array.from({ length })`, `.forEach` with the index,
   * `.fill`, object spreads `{ ...p, a: … }`, destructuring in `for…of`, `[...xs, v]`.
   */
  arrayHelpers(vars: string[], mutable: string[]): void {
    const n = this.int(2, 4);
    const xs = this.fresh("xs");
    const i = this.fresh("i");
    const r = this.fresh("r");
    if (this.chance(0.5)) {
      this.emit(
        `const ${xs} = Array.from({ length: ${n} }, (_, ${i}) => ${this.e([...vars, i], 2)});`,
      );
    } else {
      this.emit(`const ${xs}: number[] = new Array(${n}).fill(${this.e(vars, 1)});`);
      this.emit(`${xs}[${this.int(0, n - 1)}] = ${this.e(vars, 1)};`);
    }
    this.emit(`let ${r} = 0;`);
    const v = this.fresh("v");
    const k = this.fresh("i");
    switch (this.int(0, 3)) {
      case 0:
        this.emit(`${xs}.forEach((${v}, ${k}) => {`);
        this.nested(() => this.emit(`${r} += ${v} * ${this.e([...vars, k], 1)};`));
        this.emit("});");
        break;
      case 1: {
        const ps = this.fresh("ps");
        this.emit(
          `const ${ps} = ${xs}.map((${v}) => ({ a: ${v}, b: ${this.e([...vars, v], 1)} }));`,
        );
        const qs = this.fresh("qs");
        this.emit(`const ${qs} = ${ps}.map((p) => ({ ...p, a: p.a * ${this.contraction()} }));`);
        this.emit(`for (const { a, b } of ${qs}) ${r} += a * b;`);
        this.emit(`${r} += ${ps}[0].a;`);
        break;
      }
      case 2: {
        const ys = this.fresh("ys");
        this.emit(`const ${ys} = [...${xs}, ${this.e(vars, 1)}];`);
        this.emit(`${ys}[0] *= ${this.e(vars, 1)};`);
        this.emit(`for (const e of ${ys}) ${r} += e * ${this.constant()};`);
        this.emit(`${r} += ${xs}[0];`);
        break;
      }
      default: {
        const [a, b] = [this.fresh("a"), this.fresh("b")];
        this.emit(`const [${a}, ${b}] = ${xs};`);
        this.emit(`${xs}.fill(${this.e(vars, 1)});`);
        this.emit(`${r} += ${a} * ${b} + ${xs}[${n - 1}];`);
      }
    }
    this.result(r, vars, mutable);
  }

  /** One scalar statement of random-program.ts (a declaration, an update, a branch, a loop…). */
  /**
   * Types left to TypeScript: helpers without result types returning object literals, arrays
   * and tuples; module data built by a call; locals from calls; callback parameters.
   */
  inferredTypes(vars: string[], mutable: string[]): void {
    const make = this.fresh("makePoint");
    const a = this.constant();
    this.decl(
      `function ${make}(u: number, v: number) {\n  return { u, v, w: u * ${a} - v, tag: "p" };\n}`,
    );
    const pair = this.fresh("pairOf");
    this.decl(`function ${pair}(u: number) {\n  return [u, u * u] as const;\n}`);
    const table = this.fresh("table");
    const build = this.fresh("buildTable");
    const n = this.int(2, 4);
    this.decl(
      `function ${build}(n: number) {\n  const rows = [];\n  for (let i = 0; i < n; i++) rows.push({ k: i + 1, c: ${this.constant()} * i });\n  return rows;\n}`,
    );
    this.decl(`const ${table} = ${build}(${n});`);
    const p = this.fresh("p");
    this.emit(`const ${p} = ${make}(${this.e(vars, 1)}, ${this.e(vars, 1)});`);
    const q = this.fresh("q");
    this.emit(`const ${q} = ${pair}(${this.e(vars, 1)});`);
    const r = this.fresh("r");
    this.emit(`let ${r} = ${p}.w * ${q}[1] + ${p}.u - ${q}[0];`);
    const row = this.fresh("row");
    this.emit(`${table}.forEach((${row}) => {`);
    this.nested(() => this.emit(`${r} += ${row}.c * ${p}.v + ${row}.k * ${this.contraction()};`));
    this.emit("});");
    const scaled = this.fresh("scaled");
    this.emit(`const ${scaled} = ${table}.map((${row}) => ${row}.k * ${this.e(vars, 1)});`);
    this.emit(`for (const s of ${scaled}) ${r} += s * ${this.contraction()};`);
    this.result(r, vars, mutable);
  }

  /** Generic helpers, instantiated at objects and at numbers: `sumBy<T>`, `first<T>`. */
  genericHelpers(vars: string[], mutable: string[]): void {
    const sumBy = this.fresh("sumBy");
    this.decl(
      `function ${sumBy}<T>(items: readonly T[], f: (item: T) => number): number {\n  let total = 0;\n  for (const item of items) total += f(item);\n  return total;\n}`,
    );
    const first = this.fresh("firstOf");
    this.decl(
      `function ${first}<T>(items: T[]): T {\n  const head: T = items[0];\n  return head;\n}`,
    );
    const heaviest = this.fresh("weightOf");
    this.decl(
      `function ${heaviest}<T extends { w: number }>(items: T[]): number {\n  return items.reduce((m, t) => m + t.w * t.w, 0);\n}`,
    );
    const items = this.fresh("items");
    const n = this.int(2, 3);
    const objects = Array.from(
      { length: n },
      () => `{ w: ${this.e(vars, 1)}, h: ${this.e(vars, 1)} }`,
    );
    this.emit(`const ${items} = [${objects.join(", ")}];`);
    const r = this.fresh("r");
    this.emit(
      `let ${r} = ${sumBy}(${items}, (it) => it.w * it.h) + ${heaviest}(${items}) * ${this.contraction()};`,
    );
    this.emit(`${r} += ${first}(${items}).h + ${first}([${this.e(vars, 1)}, ${this.e(vars, 1)}]);`);
    this.emit(`${r} += ${sumBy}([${this.e(vars, 1)}, ${this.e(vars, 1)}], (v) => v * v);`);
    this.result(r, vars, mutable);
  }

  /** Default parameters, omitted or given, one reading an earlier one; destructuring defaults. */
  defaultParams(vars: string[], mutable: string[]): void {
    const step = this.fresh("relax");
    const rate = this.contraction();
    this.decl(
      `function ${step}(v: number, k = ${rate}, steps = 3, dt = 1 / steps): number {\n  let s = v;\n  for (let i = 0; i < steps; i++) s -= k * s * dt;\n  return s;\n}`,
    );
    const mix = this.fresh("mix");
    this.decl(
      `function ${mix}(v: number, options: { gain?: number; bias?: number } = {}): number {\n  const { gain = ${this.constant()}, bias = 0 } = options;\n  return gain * v + bias;\n}`,
    );
    const calls = [
      () => `${step}(${this.e(vars, 1)})`,
      () => `${step}(${this.e(vars, 1)}, ${this.contraction()})`,
      () => `${step}(${this.e(vars, 1)}, ${this.e(vars, 1)}, 2)`,
      () => `${step}(${this.e(vars, 1)}, ${this.contraction()}, 4, 0.1)`,
      () => `${mix}(${this.e(vars, 1)})`,
      () => `${mix}(${this.e(vars, 1)}, { bias: ${this.e(vars, 1)} })`,
      () => `${mix}(${this.e(vars, 1)}, { gain: ${this.e(vars, 1)} })`,
    ];
    const r = this.fresh("r");
    const terms = Array.from({ length: this.int(2, 4) }, () => this.pick(calls)());
    this.emit(`let ${r} = ${terms.join(" + ")};`);
    this.result(r, vars, mutable);
  }

  /**
   * Optional function parameters as progress hooks and transforms are written: left out, given
   * undefined or null, an arrow or a module function; called with `?.`, after `if (hook)`,
   * `hook !== undefined`, `hook != null`, `typeof hook === "function"`, replaced with `??`,
   * passed on to another function that takes one.
   */
  optionalCallbacks(vars: string[], mutable: string[]): void {
    const Hook = this.fresh("Hook");
    this.decl(`type ${Hook} = (step: number, value: number) => void;`);
    const note = this.fresh("note");
    this.decl(
      `function ${note}(value: number, i: number, report?: ${Hook} | null): number {\n  report?.(i, value);\n  return value * ${this.contraction()};\n}`,
    );
    const quiet = this.fresh("quiet");
    this.decl(`const ${quiet}: ${Hook} = () => {};`);
    const run = this.fresh("iterate");
    const test = this.pick([
      (h: string) => `if (${h}) ${h}(i, s);`,
      (h: string) => `if (${h} !== undefined && ${h} !== null) ${h}(i, s);`,
      (h: string) => `if (${h} != null) s += 0.01 * i;`,
      (h: string) => `if (typeof ${h} === "function") ${h}(i, s);`,
      (h: string) => `if (!${h}) s -= 0.01 * s;`,
      (h: string) => `(${h} ?? ${quiet})(i, s);`,
    ]);
    this.decl(
      [
        `function ${run}(v: number, onStep?: ${Hook} | null, shape?: (x: number) => number): number {`,
        `  let s = v;`,
        `  for (let i = 0; i < ${this.int(2, 4)}; i++) {`,
        `    s = (shape ? shape(s) : Math.sin(s)) + ${note}(s, i, onStep);`,
        `    onStep?.(i, s);`,
        `    ${test("onStep")}`,
        `  }`,
        `  return s;`,
        `}`,
      ].join("\n"),
    );
    const seen = this.fresh("seen");
    this.emit(`const ${seen}: number[] = [];`);
    const calls = [
      () => `${run}(${this.e(vars, 1)})`,
      () => `${run}(${this.e(vars, 1)}, undefined)`,
      () => `${run}(${this.e(vars, 1)}, null)`,
      () => `${run}(${this.e(vars, 1)}, (i, s) => {\n    ${seen}.push(s * i);\n  })`,
      () => `${run}(${this.e(vars, 1)}, ${quiet})`,
      () => `${run}(${this.e(vars, 1)}, undefined, (x) => x * ${this.contraction()})`,
      () => `${run}(${this.e(vars, 1)}, (i) => ${seen}.push(i), Math.tanh)`,
    ];
    const r = this.fresh("r");
    const terms = Array.from({ length: this.int(2, 3) }, () => this.pick(calls)());
    this.emit(`let ${r} = ${terms.join(" + ")};`);
    this.emit(`for (const x of ${seen}) ${r} += 0.001 * x;`);
    this.result(r, vars, mutable);
  }

  /**
   * A local list of functions written in place, as pipelines are: arrows capturing values of
   * the function, a module function, a Math function; looped over (with a `continue` or a
   * `break`), called by index, its length read.
   */
  functionLists(vars: string[], mutable: string[]): void {
    const squash = this.fresh("squash");
    this.decl(`function ${squash}(v: number): number {\n  return v / (1 + Math.abs(v));\n}`);
    const k = this.fresh("k");
    this.emit(`let ${k} = ${this.e(vars, 1)};`);
    const stages = this.fresh("stages");
    const elements = [
      `(v: number) => v * ${k}`,
      `${squash}`,
      `Math.${this.pick(["tanh", "sin", "atan"])}`,
      `(v: number) => v + ${this.e(vars, 1)} * ${this.contraction()}`,
      `function (v: number) {\n    return v * v * ${this.contraction()};\n  }`,
    ];
    const picked = elements.filter(() => this.int(0, 2) > 0);
    if (picked.length === 0) picked.push(elements[0]!);
    this.emit(`const ${stages} = [${picked.join(", ")}];`);
    // A capture read when called: changed after the list is made.
    this.emit(`${k} = ${k} * ${this.contraction()};`);
    const y = this.fresh("y");
    this.emit(`let ${y} = ${this.e(vars, 1)};`);
    const stage = this.fresh("stage");
    const guard = this.pick(["", `\n    if (${y} > 50) break;`, `\n    if (${y} < -50) continue;`]);
    this.emit(`for (const ${stage} of ${stages}) {\n    ${y} = ${stage}(${y});${guard}\n  }`);
    const i = this.fresh("i");
    this.emit(
      `for (let ${i} = 0; ${i} < ${stages}.length; ${i}++) ${y} += 0.1 * ${stages}[${i}](${this.e(vars, 1)});`,
    );
    this.emit(`${y} += ${stages}[0](${y}) * ${stages}.length;`);
    this.result(y, vars, mutable);
  }

  /**
   * A state started from module-level constants and replaced, not changed, in a loop: an
   * object of arrays updated with `map` and spreads, or a matrix started from an identity
   * matrix and multiplied; the constants are read again afterwards (they must be intact).
   */
  moduleState(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    const steps = this.int(1, 4);
    const k = this.fresh("step");
    if (this.chance(0.5)) {
      const start = this.fresh("START");
      const c = () => this.constant();
      this.decl(
        `const ${start} = { position: [${c()}, ${c()}], velocity: [${c()}, ${c()}], damping: ${this.contraction()} };`,
      );
      const state = this.fresh("state");
      const h = this.contraction();
      const copyOf = this.fresh("copyOf");
      this.decl(`function ${copyOf}(values: number[]): number[] {\n  return values.slice();\n}`);
      this.emit(`let ${state} = ${start};`);
      this.emit(`for (let ${k} = 0; ${k} < ${steps}; ${k}++) {`);
      this.nested(() => {
        const force = `${this.e(vars, 1)} * ${this.contraction()}`;
        this.emit(
          this.pick([
            `${state} = {
      position: ${state}.position.map((p, i) => p + ${h} * ${state}.velocity[i]),
      velocity: ${state}.velocity.map((v) => v * ${state}.damping + ${force}),
      damping: ${state}.damping,
    };`,
            `${state} = { ...${state}, velocity: [${state}.velocity[0] + ${force}, ${state}.velocity[1] * ${state}.damping] };`,
            `const moved = ${this.pick([`[...${state}.position]`, `${copyOf}(${state}.position)`])};
    moved[${k} % 2] += ${h} * ${state}.velocity[0];
    ${state} = { ...${state}, position: moved };`,
            `const next = { ...${state}, velocity: ${state}.velocity.map((v) => v * ${state}.damping) };
    next.velocity[${k} % 2] += ${force};
    ${state} = next;`,
          ]),
        );
      });
      this.emit("}");
      this.emit(
        `let ${r} = ${state}.position[0] * ${this.contraction()} + ${state}.position[1] + ${state}.velocity[1] * ${this.contraction()} + ${start}.position[1];`,
      );
    } else {
      const identity = this.fresh("IDENTITY");
      this.decl(
        `const ${identity}: number[][] = [
  [1, 0],
  [0, 1],
];`,
      );
      const pose = this.fresh("pose");
      this.emit(`let ${pose} = ${identity};`);
      this.emit(`for (let ${k} = 0; ${k} < ${steps}; ${k}++) {`);
      this.nested(() => {
        const t = this.fresh("angle");
        this.emit(`const ${t} = ${this.e(vars, 1)} * ${this.contraction()};`);
        this.emit(
          `const turn = [
      [Math.cos(${t}), -Math.sin(${t})],
      [Math.sin(${t}), Math.cos(${t})],
    ];`,
        );
        this.emit(
          this.pick([
            `${pose} = ${pose}.map((row) => turn[0].map((_, j) => row[0] * turn[0][j] + row[1] * turn[1][j]));`,
            `const next: number[][] = [];
    for (const row of ${pose}) next.push([row[0] * turn[0][0] + row[1] * turn[1][0], row[0] * turn[0][1] + row[1] * turn[1][1]]);
    ${pose} = next;`,
          ]),
        );
      });
      this.emit("}");
      this.emit(
        `let ${r} = ${pose}[0][1] * ${this.e(vars, 1)} + ${pose}[1][1] + ${identity}[0][0] * ${this.contraction()};`,
      );
    }
    this.result(r, vars, mutable);
  }

  /**
   * A value class built with `new` inside the function: parameter properties with defaults,
   * a field initializer, a getter, a static factory, methods returning new instances.
   */
  constructedClasses(vars: string[], mutable: string[]): void {
    const V = this.fresh("Vec");
    this.decl(
      [
        `class ${V} {`,
        `  scale = ${this.constant()};`,
        `  constructor(public x = 0, public y = 0) {}`,
        `  static of(t: number): ${V} {`,
        `    return new ${V}(Math.cos(t), Math.sin(t));`,
        `  }`,
        `  get lengthSq(): number {`,
        `    return this.x * this.x + this.y * this.y;`,
        `  }`,
        `  add(o: ${V}): ${V} {`,
        `    return new ${V}(this.x + o.x, this.y + o.y);`,
        `  }`,
        `  times(k: number): ${V} {`,
        `    const out = new ${V}(this.x * k, this.y * k);`,
        `    out.scale = this.scale * k;`,
        `    return out;`,
        `  }`,
        `}`,
      ].join("\n"),
    );
    const a = this.fresh("a");
    const b = this.fresh("b");
    this.emit(`const ${a} = new ${V}(${this.e(vars, 1)}, ${this.e(vars, 1)});`);
    this.emit(
      `const ${b} = ${this.pick([`${V}.of(${this.e(vars, 1)})`, `new ${V}(${this.e(vars, 1)})`, `new ${V}()`])};`,
    );
    const c = this.fresh("c");
    this.emit(`const ${c} = ${a}.add(${b}).times(${this.e(vars, 1)});`);
    const r = this.fresh("r");
    this.emit(`let ${r} = ${c}.lengthSq * ${this.contraction()} + ${c}.scale * ${a}.x;`);
    this.result(r, vars, mutable);
  }

  /**
   * A class that keeps its state in `#private` members: fields (one a `readonly` set by the
   * constructor, one an array grown by `push`), a private method, a private getter and a
   * private static constant; built in the function and fed, or made once at module level and
   * only read.
   */
  privateMembers(vars: string[], mutable: string[]): void {
    const T = this.fresh("Tracker");
    this.decl(
      [
        `class ${T} {`,
        `  static #scale = ${this.constant()};`,
        `  #sum = 0;`,
        `  #seen: number[] = [];`,
        `  readonly #rate: number;`,
        `  constructor(rate = 0.5) {`,
        `    this.#rate = rate;`,
        `  }`,
        `  #weighted(v: number): number {`,
        `    return v * this.#rate * ${T}.#scale;`,
        `  }`,
        `  get #last(): number {`,
        `    return this.#seen.length > 0 ? this.#seen[this.#seen.length - 1]! : 0;`,
        `  }`,
        `  observe(v: number): void {`,
        `    this.#sum += this.#weighted(v) + this.#last * 0.25;`,
        `    this.#seen.push(v);`,
        `  }`,
        `  get total(): number {`,
        `    return this.#sum + this.#last;`,
        `  }`,
        `  response(v: number): number {`,
        `    return this.#weighted(v) * this.#rate;`,
        `  }`,
        `}`,
      ].join("\n"),
    );
    const r = this.fresh("r");
    if (this.int(0, 1) === 0) {
      const t = this.fresh("tracker");
      this.emit(
        `const ${t} = new ${T}(${this.pick([this.e(vars, 1), "", String(this.constant())])});`,
      );
      const i = this.fresh("i");
      this.emit(`for (let ${i} = 0; ${i} < ${this.int(1, 3)}; ${i}++) {`);
      this.nested(() => this.emit(`${t}.observe(${this.e(vars, 1)} + ${i});`));
      this.emit("}");
      this.emit(`let ${r} = ${t}.total * ${this.contraction()};`);
    } else {
      const t = this.fresh("shared");
      this.decl(`const ${t} = new ${T}(${this.constant()});`);
      this.emit(`let ${r} = ${t}.response(${this.e(vars, 1)});`);
    }
    this.result(r, vars, mutable);
  }

  /**
   * Functions made by factories: a seeded generator that keeps its state, a curried function
   * of the inputs, and one given straight to a helper that calls it. The seed depends on x
   * (`seed >>> 0` is piecewise constant: derivative 0, jumps where 10x crosses an integer).
   */
  closureFactories(vars: string[], mutable: string[]): void {
    const seeded = this.fresh("seeded");
    this.decl(
      [
        `function ${seeded}(seed: number) {`,
        `  let state = seed >>> 0;`,
        `  return () => {`,
        `    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;`,
        `    return state / 4294967296;`,
        `  };`,
        `}`,
      ].join("\n"),
    );
    const curried = this.fresh("scaled");
    this.decl(
      `function ${curried}(k: number, c: number) {\n  const k2 = k * k;\n  return (t: number) => k2 * t + c * Math.sin(t);\n}`,
    );
    const apply = this.fresh("applyTwice");
    this.decl(
      `function ${apply}(f: (t: number) => number, t: number): number {\n  return f(f(t) * 0.5);\n}`,
    );
    const rand = this.fresh("rand");
    this.emit(`const ${rand} = ${seeded}(${this.int(1, 999)} + ${vars[0]} * 10);`);
    const g = this.fresh("g");
    this.emit(`const ${g} = ${curried}(${this.e(vars, 1)}, ${this.e(vars, 1)});`);
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    const i = this.fresh("i");
    this.emit(`for (let ${i} = 0; ${i} < ${this.int(2, 4)}; ${i}++) {`);
    this.nested(() => this.emit(`${r} += ${g}(${rand}()) * ${this.contraction()};`));
    this.emit("}");
    this.emit(
      `${r} += ${apply}(${curried}(${this.e(vars, 1)}, ${this.contraction()}), ${this.e(vars, 1)}) * 0.1;`,
    );
    if (this.chance(0.6)) this.localFactories(r, vars);
    this.result(r, vars, mutable);
  }

  /**
   * Factories written inside the function: a curried arrow (`(k) => (t) => t * k + c`), a
   * local function returning a closure that keeps state, their functions named, given to
   * `map`, or called at once.
   */
  private localFactories(r: string, vars: string[]): void {
    const scaleBy = this.fresh("scaleBy");
    const c = this.e(vars, 1);
    this.emit(`const ${scaleBy} = (k: number) => (t: number) => t * k + ${c};`);
    const made = this.fresh("made");
    this.emit(`const ${made} = ${scaleBy}(${this.e(vars, 1)});`);
    this.emit(`${r} += ${made}(${this.e(vars, 1)}) * ${this.contraction()};`);
    this.emit(`${r} += ${scaleBy}(${this.contraction()})(${this.e(vars, 1)});`);
    const mapped = this.fresh("mapped");
    this.emit(
      `const ${mapped} = [${this.e(vars, 1)}, ${this.e(vars, 1)}].map(${scaleBy}(${this.contraction()}));`,
    );
    this.emit(`${r} += ${mapped}[0] - ${mapped}[1] * 0.5;`);
    if (!this.chance(0.5)) return;
    const counter = this.fresh("counter");
    const total = this.fresh("total");
    this.emit(`let ${total} = 0;`);
    this.emit(`function ${counter}(step: number) {`);
    this.nested(() => {
      this.emit(`const w = step * ${this.contraction()};`);
      this.emit(`return (t: number) => {`);
      this.nested(() => {
        this.emit(`${total} += w * t;`);
        this.emit(`return ${total};`);
      });
      this.emit(`};`);
    });
    this.emit(`}`);
    const tick = this.fresh("tick");
    this.emit(`const ${tick} = ${counter}(${this.e(vars, 1)});`);
    this.emit(`${tick}(${this.e(vars, 1)});`);
    this.emit(`${r} += ${tick}(${this.e(vars, 1)}) * 0.5 + ${total};`);
  }

  /**
   * Array methods and syntax of everyday code: `.filter`, `.reduceRight`, `.flat()`,
   * `Math.max(...xs)`, destructured callback parameters, labels built with templates, `switch`,
   * searches (`.find`, `.findIndex`, `.some`, `.every`).
   */
  everydayArrays(vars: string[], mutable: string[]): void {
    const pts = this.fresh("pts");
    const n = this.int(2, 4);
    const items = Array.from(
      { length: n },
      (_, k) => `{ v: ${this.e(vars, 1)}, w: ${this.e(vars, 1)}, tag: \`p${k}\` }`,
    );
    this.emit(`const ${pts} = [${items.join(", ")}];`);
    const r = this.fresh("r");
    const kept = this.fresh("kept");
    this.emit(`const ${kept} = ${pts}.filter(({ v }, i) => v > ${this.constant()} || i === 0);`);
    this.emit(`let ${r} = ${kept}.reduce((s, { v, w }) => s + v * w, 0);`);
    this.emit(
      `${r} += ${pts}.map((p) => p.v).reduceRight((acc, v) => acc * ${this.contraction()} + v, 0);`,
    );
    const rows = this.fresh("rows");
    this.emit(`const ${rows} = ${pts}.map(({ v, w }) => [v, w * ${this.contraction()}]);`);
    this.emit(`${r} += Math.max(...${rows}.flat()) - Math.min(${this.e(vars, 1)}, ...${rows}[0]);`);
    this.emit(`if (${pts}[0].tag !== "p0") ${r} += 1000;`);
    // Searches that stop where they decide, and an object as a condition.
    const c = this.constant();
    const first = this.fresh("first");
    this.emit(`const ${first} = ${pts}.find(({ v }) => v > ${c});`);
    this.emit(
      `${r} += (${first} ? ${first}.w : 0) + ${pts}.findIndex((p) => p.w > ${c}) * ${this.contraction()};`,
    );
    this.emit(
      `if (${pts}.some((p) => p.v > ${c}) && !${pts}.every((p) => p.w > ${c})) ${r} *= ${this.contraction()};`,
    );
    // A switch on a count, with fall-through, break and default.
    this.emit(`switch (${kept}.length % 3) {`);
    this.emit(`  case 0:`);
    this.emit(`    ${r} += ${this.e(vars, 1)} * ${this.contraction()};`);
    this.emit(`  // falls through`);
    this.emit(`  case 1:`);
    this.emit(`    ${r} *= ${this.contraction()};`);
    this.emit(`    break;`);
    this.emit(`  default:`);
    this.emit(`    ${r} -= ${this.e(vars, 1)};`);
    this.emit(`}`);
    // reduce without an initial value, lastIndexOf, fill over a range, a fractional slice.
    const ws = this.fresh("ws");
    this.emit(`const ${ws} = ${pts}.map((p) => p.w);`);
    this.emit(
      `${r} += ${ws}.reduce((a, b) => a + b * ${this.contraction()}) + ${ws}.lastIndexOf(${ws}[0]);`,
    );
    this.emit(`${ws}.fill(${this.e(vars, 1)}, 1, -1);`);
    this.emit(`${r} += ${ws}.slice(0.5).reduceRight((a, b) => a * ${this.contraction()} + b);`);
    this.result(r, vars, mutable);
  }

  /**
   * Records and maps as people keep lookup tables: built from literals, pairs and `set`, read
   * by key with `??` for missing keys, walked with `for…in`, `Object.entries` and `for…of`.
   */
  recordsMaps(vars: string[], mutable: string[]): void {
    const keys = ["alpha", "beta", "gamma", "delta"].slice(0, this.int(2, 4));
    const w = this.fresh("weights");
    const entries = keys.map((k) => `${k}: ${this.e(vars, 1)}`);
    this.emit(`const ${w}: Record<string, number> = { ${entries.join(", ")} };`);
    if (this.chance(0.5)) this.emit(`${w}["${this.pick(keys)}"] *= ${this.e(vars, 1)};`);
    if (this.chance(0.4)) this.emit(`${w}.extra = ${this.e(vars, 1)};`);
    const m = this.fresh("table");
    const pairs = keys.map((k) => `["${k}", ${this.e(vars, 1)}]`);
    this.emit(
      this.chance(0.5)
        ? `const ${m} = new Map<string, number>([${pairs.join(", ")}]);`
        : `const ${m} = new Map<string, number>();\n  ${keys.map((k) => `${m}.set("${k}", ${this.e(vars, 1)});`).join("\n  ")}`,
    );
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    const c = this.constant();
    this.emit(
      this.pick([
        `for (const k in ${w}) ${r} += ${w}[k] * (${m}.get(k) ?? ${c});`,
        `for (const [k, v] of Object.entries(${w})) ${r} += v * (${m}.has(k) ? ${m}.get(k)! : ${c});`,
        `for (const [k, v] of ${m}) ${r} += v * (${w}[k] ?? ${c});`,
        `${m}.forEach((v, k) => (${r} += v * (${w}[k] ?? ${c})));`,
      ]),
    );
    this.emit(
      `${r} += Object.values(${w}).reduce((s, v) => s + v * ${this.contraction()}, 0) + ${m}.size * ${c};`,
    );
    // What the collections held before a write, then the write (and deletions).
    if (this.chance(0.5)) {
      const had = this.fresh("had");
      const key = this.pick(["extra2", ...keys]);
      this.emit(`const ${had} = ${m}.has("${key}");`);
      this.emit(`const ${had}Size = ${m}.size;`);
      this.emit(`${m}.set("${key}", ${this.e(vars, 1)});`);
      this.emit(`${r} += (${had} ? ${this.constant()} : ${this.constant()}) * ${had}Size;`);
    }
    if (this.chance(0.4)) {
      const gone = this.pick(keys);
      this.emit(
        this.pick([`delete ${w}.${gone};`, `delete ${w}["${gone}"];`, `${m}.delete("${gone}");`]),
      );
      this.emit(`${r} += Object.values(${w}).reduce((s, v) => s + v, 0) * ${this.contraction()};`);
      this.emit(`for (const [, v] of ${m}) ${r} += v * ${this.contraction()};`);
    }
    if (this.chance(0.5)) {
      const copy = this.fresh("copy");
      this.emit(`const ${copy} = { ...${w}, ${this.pick(keys)}: ${this.e(vars, 1)} };`);
      this.emit(`${r} += Object.keys(${copy}).length * ${copy}.${keys[0]};`);
    }
    this.result(r, vars, mutable);
  }

  /** A union told apart by a `kind` field, narrowed by `switch` and `if`, variants in an array. */
  unionVariants(vars: string[], mutable: string[]): void {
    const U = this.fresh("Part");
    this.decl(
      `type ${U} =\n  | { kind: "disk"; r: number; weight?: number }\n  | { kind: "bar"; len: number; w: number }\n  | { kind: "dot"; at: number };`,
    );
    const size = this.fresh("sizeOf");
    this.decl(
      `function ${size}(p: ${U}): number {\n  switch (p.kind) {\n    case "disk":\n      return p.r * p.r * (p.weight ?? 1);\n    case "bar":\n      return p.len * p.w;\n    default:\n      return p.at;\n  }\n}`,
    );
    const parts = this.fresh("parts");
    const n = this.int(2, 4);
    const items = Array.from({ length: n }, () =>
      this.pick([
        () => `{ kind: "disk", r: ${this.e(vars, 1)} }`,
        () => `{ kind: "disk", r: ${this.e(vars, 1)}, weight: ${this.constant()} }`,
        () => `{ kind: "bar", len: ${this.e(vars, 1)}, w: ${this.e(vars, 1)} }`,
        () => `{ kind: "dot", at: ${this.e(vars, 1)} }`,
      ])(),
    );
    this.emit(`const ${parts}: ${U}[] = [${items.join(", ")}];`);
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    this.emit(
      `for (const p of ${parts}) ${r} += ${size}(p) * (p.kind === "bar" ? p.w : ${this.contraction()});`,
    );
    this.result(r, vars, mutable);
  }

  /** A type that holds itself: an expression tree built from literals, evaluated recursively. */
  expressionTrees(vars: string[], mutable: string[]): void {
    const T = this.fresh("Tree");
    this.decl(
      `type ${T} =\n  | { kind: "leaf"; v: number }\n  | { kind: "sum"; l: ${T}; r: ${T} }\n  | { kind: "scale"; c: number; of: ${T} };`,
    );
    const ev = this.fresh("evalTree");
    this.decl(
      `function ${ev}(t: ${T}): number {\n  switch (t.kind) {\n    case "leaf":\n      return t.v;\n    case "sum":\n      return ${ev}(t.l) + ${ev}(t.r);\n    case "scale":\n      return t.c * ${ev}(t.of);\n  }\n}`,
    );
    const build = (depth: number): string =>
      depth === 0 || this.chance(0.3)
        ? `{ kind: "leaf", v: ${this.e(vars, 1)} }`
        : this.chance(0.5)
          ? `{ kind: "sum", l: ${build(depth - 1)}, r: ${build(depth - 1)} }`
          : `{ kind: "scale", c: ${this.contraction()}, of: ${build(depth - 1)} }`;
    const t = this.fresh("tree");
    this.emit(`const ${t}: ${T} = ${build(this.int(1, 3))};`);
    const r = this.fresh("r");
    this.emit(`let ${r} = ${ev}(${t});`);
    this.result(r, vars, mutable);
  }

  /**
   * Rest parameters and spread arguments, `.concat`, `.reverse`, `.keys()`/`.entries()` in
   * for…of, `Array.from` with a callback, optional chaining on an object that may be empty,
   * `continue` in a switch (issue 21).
   */
  everydaySyntax(vars: string[], mutable: string[]): void {
    const sum = this.fresh("sumsq");
    this.decl(
      `function ${sum}(w: number, ...xs: number[]): number {
  let s = 0;
  for (const [i, v] of xs.entries()) s += w * v * v + i * ${this.contraction()};
  return s;
}`,
    );
    const xs = this.fresh("xs");
    const pair = this.fresh("pair");
    const r = this.fresh("r");
    this.emit(`const ${xs} = [${this.e(vars, 1)}, ${this.e(vars, 1)}, ${this.e(vars, 1)}];`);
    this.emit(`const ${pair}: [number, number] = [${this.e(vars, 1)}, ${this.e(vars, 1)}];`);
    this.emit(
      `let ${r} = ${sum}(${this.contraction()}, ...${xs}) + ${sum}(...${pair}) * ${this.contraction()} + ${sum}(${this.e(vars, 1)});`,
    );
    const all = this.fresh("all");
    this.emit(`const ${all} = ${xs}.concat(${pair}, [${this.e(vars, 1)}]).reverse();`);
    const i = this.fresh("i");
    this.emit(`for (const ${i} of ${all}.keys()) ${r} += ${all}[${i}]! * ${this.contraction()};`);
    this.emit(
      `${r} += Array.from(${xs}, (v, k) => v * k).reduce((a, b) => a + b, 0) * ${this.contraction()};`,
    );
    const o = this.fresh("o");
    this.emit(
      `const ${o}: { scale?: number; next?: { v: number } } = ${this.condition(vars)} ? { scale: ${this.e(vars, 1)}, next: { v: ${this.e(vars, 1)} } } : {};`,
    );
    this.emit(`${r} += (${o}.next?.v ?? ${this.constant()}) * (${o}?.scale ?? 1);`);
    const k = this.fresh("k");
    this.emit(`for (let ${k} = 0; ${k} < ${all}.length; ${k}++) {`);
    this.emit(`  switch (${k} % 3) {`);
    this.emit(`    case 0:`);
    this.emit(`      ${r} += ${all}[${k}]! * ${this.contraction()};`);
    this.emit(`      continue;`);
    this.emit(`    case 1:`);
    this.emit(`      if (${this.condition(vars)}) continue;`);
    this.emit(`      ${r} -= ${this.e(vars, 1)} * ${this.contraction()};`);
    this.emit(`      break;`);
    this.emit(`    default:`);
    this.emit(`      ${r} *= ${this.contraction()};`);
    this.emit(`  }`);
    this.emit(`  ${r} += ${this.contraction()};`);
    this.emit(`}`);
    this.result(r, vars, mutable);
  }

  /**
   * Generators iterated by `for…of`, as users write them: a range, pairs of an array's elements
   * (generic, destructured), a class's `*[Symbol.iterator]()`, `yield*`, a running total whose
   * local is named like main's `acc`, values spread or given to `Array.from`; the loops
   * `continue` and `break` (issue 21).
   */
  generators(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    const xs = this.fresh("xs");
    const n = this.int(2, 4);
    this.emit(
      `const ${xs}: number[] = [${Array.from({ length: n }, () => this.e(vars, 1)).join(", ")}];`,
    );
    const uses = this.int(1, 2);
    for (let u = 0; u < uses; u++) {
      const v = this.fresh("v");
      const inner = [...vars, v];
      let loop: string;
      switch (this.int(0, 5)) {
        case 5: {
          // The values collected: spread into an array, or mapped by Array.from.
          const scaled = this.fresh("scaled");
          this.decl(
            `function* ${scaled}(values: readonly number[], by: number) {\n  for (const value of values) yield value * by;\n}`,
          );
          const c = this.contraction();
          const collected = this.chance(0.5)
            ? `[...${scaled}(${xs}, ${c}), ${this.e(vars, 1)}]`
            : `Array.from(${scaled}(${xs}, ${c}), (w, k) => w * k + ${this.e(vars, 1)})`;
          this.emit(`${r} += ${collected}.reduce((a, b) => a + Math.sin(b), 0);`);
          continue;
        }
        case 0: {
          const range = this.fresh("range");
          this.decl(
            `function* ${range}(start: number, end: number, step = 1) {\n  for (let i = start; i < end; i += step) yield i;\n}`,
          );
          loop = `for (const ${v} of ${range}(${this.int(0, 1)}, ${this.int(2, 5)}${this.chance(0.5) ? ", 2" : ""}))`;
          break;
        }
        case 1: {
          const pairs = this.fresh("pairs");
          this.decl(
            `function* ${pairs}<T>(items: readonly T[]): Generator<[T, T]> {\n  for (let i = 0; i < items.length; i++)\n    for (let j = i + 1; j < items.length; j++) yield [items[i], items[j]];\n}`,
          );
          const [a, b] = [this.fresh("a"), this.fresh("b")];
          this.emit(`for (const [${a}, ${b}] of ${pairs}(${xs})) {`);
          this.emit(
            `  ${r} += Math.sin(${a} - ${b}) * ${this.contraction()} + ${a} * ${b} * ${this.contraction()};`,
          );
          this.emit(`}`);
          continue;
        }
        case 2: {
          const C = this.fresh("Samples");
          this.decl(
            `class ${C} {\n  constructor(\n    readonly values: number[],\n    readonly scale: number,\n  ) {}\n  *[Symbol.iterator]() {\n    for (let k = 0; k < this.values.length; k++) yield this.values[k] * this.scale;\n  }\n}`,
          );
          loop = `for (const ${v} of new ${C}(${xs}, ${this.e(vars, 1)}))`;
          break;
        }
        case 3: {
          const running = this.fresh("running");
          // Its local `acc` is named like main's: the loop's `acc` must stay main's.
          this.decl(
            `function* ${running}(values: number[]) {\n  let acc = 0;\n  for (const value of values) {\n    acc += value;\n    yield acc;\n  }\n}`,
          );
          loop = `for (const ${v} of ${running}(${xs}))`;
          break;
        }
        default: {
          const both = this.fresh("both");
          this.decl(
            `function* ${both}(values: number[], extra: number) {\n  yield* values;\n  yield extra;\n  yield* values.map((w) => w * ${this.contraction()});\n}`,
          );
          loop = `for (const ${v} of ${both}(${xs}, ${this.e(vars, 1)}))`;
        }
      }
      this.emit(`${loop} {`);
      if (this.chance(0.3)) this.emit(`  if (${this.condition(inner)}) continue;`);
      this.emit(`  ${r} += Math.tanh(${v} * ${this.contraction()} + ${this.e(inner, 1)});`);
      if (this.chance(0.3)) this.emit(`  if (${this.condition(inner)}) break;`);
      this.emit(`}`);
    }
    this.result(r, vars, mutable);
  }

  /**
   * Functions held in data, called without any annotation: a scenario object of arrows typed
   * by an interface (passed as a parameter or a default parameter value, destructured or
   * called as `scenario.input(t)`), a table of Math functions indexed by a literal-union key,
   * a class field holding a function set in the constructor, top-level functions in an object
   * handed to a function-typed parameter. Names of fields and functions that look like nabla's.
   */
  functionFields(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    const forms = [
      () => this.scenarioObject(vars, r),
      () => this.mathTable(vars, r),
      () => this.functionField(vars, r),
      () => this.functionsAsValues(vars, r),
    ];
    const chosen = forms.filter(() => this.chance(0.4));
    if (chosen.length === 0) chosen.push(this.pick(forms));
    for (const form of chosen) form();
    this.result(r, vars, mutable);
  }

  /** A field name, sometimes one that looks like a name nabla generates. */
  private fieldName(usual: string, taken: string[]): string {
    const names = [usual, usual, "tangent", "f$jvp", "$nabla", "dx", "x_adj", "value", "fwd$r1"];
    const name = this.pick(names.filter((n) => !taken.includes(n)));
    taken.push(name);
    return name;
  }

  /** A top-level function name, sometimes with a suffix like nabla's derivatives' (`sq3$jvp`). */
  private functionName(prefix: string): string {
    const name = this.fresh(this.chance(0.2) ? "$nabla" : prefix);
    return this.chance(0.3) ? `${name}${this.pick(["$jvp", "$fwd", "$bwd", "$vjp"])}` : name;
  }

  /** `export const scenario: Scenario = { dt, input: (t) => …, load: (t, k) => … }`, simulated. */
  private scenarioObject(vars: string[], r: string, written = false): void {
    const S = this.fresh("Scenario");
    const taken: string[] = [];
    const input = this.fieldName("input", taken);
    const load = this.fieldName("load", taken);
    this.decl(
      `interface ${S} {\n  dt: number;\n  ${input}: (t: number) => number;\n  ${load}: (t: number, k: number) => number;\n}`,
    );
    // Module data the arrows read: constants, or settings the differentiated code writes.
    const settings = this.fresh("settings");
    this.decl(`const ${settings} = { gain: ${this.constant()}, bias: ${this.contraction()} };`);
    const arrow1 = () =>
      this.pick([
        `(t) => ${this.e(["t"], 1)} * ${settings}.gain`,
        `(t) => Math.sin(t) * ${this.contraction()} + ${settings}.bias`,
        `(t: number) => t * ${settings}.gain + ${this.e(["t"], 1)}`,
      ]);
    const arrow2 = () =>
      this.pick([
        `(t, k) => k * Math.tanh(t - ${settings}.bias)`,
        `(t, k) => ${this.e(["t", "k"], 2)}`,
        `(t: number, k: number) => k * k * ${this.contraction()} + t * ${settings}.gain`,
      ]);
    const scenarios = [this.fresh("scenario")];
    if (this.chance(0.5)) scenarios.push(this.fresh("calm"));
    for (const s of scenarios)
      this.decl(
        `export const ${s}: ${S} = {\n  dt: ${this.pick(["0.1", "0.2", "0.05"])},\n  ${input}: ${arrow1()},\n  ${load}: ${arrow2()},\n};`,
      );
    const sim = this.fresh("simulate");
    const steps = this.int(2, 4);
    const byDefault = this.chance(0.5);
    // Read as `scenario.input(t)`, destructured in the body, or destructured in the parameter.
    const reading = this.pick(["member", "local", "param"] as const);
    const pattern = reading === "param" ? `{ dt, ${input}, ${load} }` : "scenario";
    const param = `${pattern}: ${S}${byDefault ? ` = ${scenarios[0]}` : ""}`;
    const dt = reading === "param" ? "dt" : "scenario.dt";
    const call = (f: string, args: string) =>
      reading === "member" ? `scenario.${f}(${args})` : `${f}(${args})`;
    this.decl(
      [
        `function ${sim}(gain: number, level: number, ${param}): number {`,
        ...(reading === "local" ? [`  const { ${input}, ${load} } = scenario;`] : []),
        `  let s = 0;`,
        `  for (let i = 0; i < ${steps}; i++) {`,
        `    const t = i * ${dt};`,
        `    s += gain * ${call(input, "t")} - ${call(load, "t, level")} * ${dt};`,
        `  }`,
        `  return s;`,
        `}`,
      ].join("\n"),
    );
    if (written) this.emit(`${settings}.gain = ${this.e(vars, 1)};`);
    const which =
      scenarios.length > 1 && this.chance(0.6)
        ? `${this.condition(vars)} ? ${scenarios[0]} : ${scenarios[1]}`
        : scenarios[scenarios.length - 1]!;
    const args = [this.e(vars, 1), this.e(vars, 1)];
    if (byDefault && this.chance(0.5)) this.emit(`${r} += ${sim}(${args.join(", ")});`);
    else this.emit(`${r} += ${sim}(${args.join(", ")}, ${which});`);
    if (this.chance(0.4))
      this.emit(`${r} += ${scenarios[0]}.${input}(${this.e(vars, 1)}) * ${this.contraction()};`);
  }

  /** `const shapes = { sin: Math.sin, tanh: Math.tanh, exp: Math.exp }`, `shapes[kind](v)`. */
  private mathTable(vars: string[], r: string): void {
    const shapes = this.fresh("shapes");
    const K = this.fresh("Shape");
    const extra = this.chance(0.4)
      ? `\n  cube: (t: number) => t * t * t * ${this.contraction()},`
      : "";
    this.decl(
      `const ${shapes} = {\n  sin: Math.sin,\n  tanh: Math.tanh,\n  exp: Math.exp,\n  cos: Math.cos,${extra}\n};`,
    );
    this.decl(
      this.chance(0.5)
        ? `type ${K} = keyof typeof ${shapes};`
        : `type ${K} = "sin" | "tanh" | "exp" | "cos";`,
    );
    const kind = this.fresh("kind");
    switch (this.int(0, 2)) {
      case 0:
        this.emit(
          `const ${kind}: ${K} = ${this.condition(vars)} ? "${this.pick(["sin", "cos"])}" : "tanh";`,
        );
        this.emit(`${r} += ${shapes}[${kind}](${this.e(vars, 1)}) * ${this.constant()};`);
        break;
      case 1: {
        const kinds = this.fresh("kinds");
        this.emit(`const ${kinds}: ${K}[] = ["tanh", "${this.pick(["sin", "cos"])}", "tanh"];`);
        const i = this.fresh("i");
        this.emit(
          `for (const [${i}, ${kind}] of ${kinds}.entries()) ${r} += ${shapes}[${kind}](${this.e([...vars, i], 1)}) * ${this.contraction()};`,
        );
        break;
      }
      default: {
        const apply = this.fresh("shaped");
        this.decl(
          `function ${apply}(${kind}: ${K}, v: number): number {\n  return ${shapes}[${kind}](v) * ${this.contraction()};\n}`,
        );
        this.emit(
          `${r} += ${apply}("sin", ${this.e(vars, 1)}) + ${apply}("tanh", ${this.e(vars, 1)});`,
        );
      }
    }
    this.emit(
      `${r} += ${shapes}.${this.pick(["sin", "cos", "tanh"])}(${this.e(vars, 1)}) + ${shapes}.exp(Math.sin(${this.e(vars, 1)}));`,
    );
  }

  /**
   * A class field holding a function: `act: (x: number) => number = Math.tanh` set in the
   * constructor by a mode, a constructor parameter assigned to the field, or a parameter
   * property (with `Math.tanh` as its default, sometimes).
   */
  private functionField(vars: string[], r: string): void {
    const soft = this.functionName("soft");
    this.decl(`function ${soft}(v: number): number {\n  return v / (1 + v * v);\n}`);
    const acts = this.fresh("activations");
    this.decl(
      `const ${acts} = {\n  gentle: (v: number) => 0.5 * Math.tanh(v) + ${this.contraction()},\n  wave: (v: number) => Math.sin(v) * ${this.contraction()},\n};`,
    );
    const U = this.fresh("Unit");
    const act = this.fieldName("act", []);
    const type = "(x: number) => number";
    const style = this.pick(["mode", "assigned", "property"] as const);
    const withDefault = style === "property" && this.chance(0.5);
    const head = (params: string[]) => [
      `  constructor(`,
      ...params.map((p) => `    ${p},`),
      `  ) {`,
    ];
    const constructor = {
      mode: [
        `  ${act}: ${type} = Math.tanh;`,
        ...head(["public w: number", "mode: string"]),
        `    if (mode === "soft") this.${act} = ${soft};`,
        `    else if (mode === "gentle") this.${act} = ${acts}.gentle;`,
        `    else if (mode === "wave") this.${act} = ${acts}.wave;`,
        `  }`,
      ],
      assigned: [
        `  ${act}: ${type};`,
        ...head(["public w: number", `${act}: ${type}`]),
        `    this.${act} = ${act};`,
        `  }`,
      ],
      property: [
        ...head([
          "public w: number",
          `${this.pick(["public", "readonly"])} ${act}: ${type}${withDefault ? " = Math.tanh" : ""}`,
        ]).slice(0, -1),
        `  ) {}`,
      ],
    }[style];
    this.decl(
      [
        `class ${U} {`,
        ...constructor,
        `  fire(x: number): number {`,
        `    return this.${act}(this.w * x);`,
        `  }`,
        `}`,
      ].join("\n"),
    );
    const choice = () =>
      style === "mode"
        ? `"${this.pick(["plain", "soft", "gentle", "wave"])}"`
        : this.pick(["Math.tanh", "Math.sin", soft, `${acts}.gentle`, `${acts}.wave`]);
    const made = () =>
      withDefault && this.chance(0.4)
        ? `new ${U}(${this.e(vars, 1)})`
        : `new ${U}(${this.e(vars, 1)}, ${choice()})`;
    const u = this.fresh("unit");
    this.emit(`const ${u} = ${made()};`);
    this.emit(`${r} += ${u}.fire(${this.e(vars, 1)});`);
    if (this.chance(0.5)) this.emit(`${r} += ${made()}.fire(${this.e(vars, 1)});`);
    if (this.chance(0.4))
      this.emit(`${r} += ${u}.${act}(${this.e(vars, 1)}) * ${this.contraction()};`);
  }

  /**
   * Top-level functions in an object (`{ f: square }`, at module level or local), given to
   * function-typed parameters.
   */
  private functionsAsValues(vars: string[], r: string): void {
    const square = this.functionName("square");
    this.decl(
      `function ${square}(t: number): number {\n  return t * t * ${this.contraction()};\n}`,
    );
    const blend = this.functionName("blend");
    this.decl(
      `function ${blend}(a: number, b: number): number {\n  return a * ${this.contraction()} + Math.sin(b) * a;\n}`,
    );
    const ops = this.fresh("ops");
    const taken: string[] = [];
    const f = this.fieldName("f", taken);
    const g = this.fieldName("g", taken);
    // The object at module level, or made where it is used.
    const object = `{ ${f}: ${square}, ${g}: ${blend} }`;
    if (this.chance(0.7)) this.decl(`const ${ops} = ${object};`);
    else this.emit(`const ${ops} = ${object};`);
    const twice = this.fresh("twice");
    this.decl(
      `function ${twice}(fn: (t: number) => number, v: number): number {\n  return fn(v) + fn(v * 0.5);\n}`,
    );
    const combine = this.fresh("combine");
    this.decl(
      `function ${combine}(op: (a: number, b: number) => number, a: number, b: number): number {\n  return op(a, b) * 0.5 + op(b, a) * ${this.contraction()};\n}`,
    );
    const unary = [`${ops}.${f}`, square, "Math.sin", "Math.tanh"];
    const binary = [`${ops}.${g}`, blend, "Math.atan2"];
    this.emit(`${r} += ${twice}(${this.pick(unary)}, ${this.e(vars, 1)});`);
    this.emit(`${r} += ${combine}(${this.pick(binary)}, ${this.e(vars, 1)}, ${this.e(vars, 1)});`);
    if (this.chance(0.5)) {
      const fn = this.fresh("fn");
      this.emit(
        `const ${fn}: (t: number) => number = ${this.condition(vars)} ? ${ops}.${f} : ${this.pick(["Math.cos", square])};`,
      );
      this.emit(`${r} += ${fn}(${this.e(vars, 1)}) + ${twice}(${fn}, ${this.e(vars, 1)});`);
    }
  }

  /**
   * Functions held in looser data than `function-fields`: a `Record<string, (t: number) =>
   * number>` table read by a string key, optional function fields (`post?: (v) => number`)
   * called with `?.()` or after a test.
   */
  functionRecords(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    const table = this.chance(0.6);
    const optional = !table || this.chance(0.6);
    if (table) {
      const ops = this.fresh("ops");
      this.decl(
        `const ${ops}: Record<string, (t: number) => number> = {\n  sin: Math.sin,\n  soft: (t) => t / (1 + t * t),\n  damped: (t) => Math.exp(-t * t) * ${this.contraction()},\n};`,
      );
      const key = this.fresh("key");
      this.emit(
        this.pick([
          `for (const ${key} of ["sin", "soft", "damped"]) ${r} += ${ops}[${key}](${this.e(vars, 1)});`,
          `for (const ${key} in ${ops}) ${r} += ${ops}[${key}](${this.e(vars, 1)}) * ${this.contraction()};`,
          `${r} += (${ops}[${this.condition(vars)} ? "soft" : "tanh"] ?? Math.cos)(${this.e(vars, 1)});`,
          `${r} += ${ops}.soft(${this.e(vars, 1)}) + ${ops}["damped"](${this.e(vars, 1)});`,
        ]),
      );
    }
    if (optional) {
      const Stage = this.fresh("Stage");
      this.decl(`interface ${Stage} {\n  gain: number;\n  post?: (v: number) => number;\n}`);
      const stages = this.fresh("stages");
      this.decl(
        `export const ${stages}: ${Stage}[] = [\n  { gain: ${this.constant()} },\n  { gain: ${this.contraction()}, post: Math.tanh },\n  { gain: ${this.constant()}, post: (v) => v * v * ${this.contraction()} },\n];`,
      );
      const run = this.fresh("runStages");
      const post = this.pick([
        "v = stage.post?.(v) ?? v;",
        "if (stage.post) v = stage.post(v);",
        "if (stage.post !== undefined) v = stage.post(v) + v * 0.1;",
      ]);
      this.decl(
        `function ${run}(v: number, stages: ${Stage}[] = ${stages}): number {\n  for (const stage of stages) {\n    v *= stage.gain;\n    ${post}\n  }\n  return v;\n}`,
      );
      this.emit(`${r} += ${run}(${this.e(vars, 1)});`);
      if (this.chance(0.5))
        this.emit(
          `${r} += ${run}(${this.e(vars, 1)}, [{ gain: ${this.e(vars, 1)}, post: Math.sin }, { gain: ${this.contraction()} }]);`,
        );
    }
    this.result(r, vars, mutable);
  }

  /**
   * The scenario objects of `function-fields` whose arrows read module-level settings that the
   * differentiated code writes first (`settings.gain = x`): differentiated code may not write
   * module-level data (NABLA105).
   */
  moduleSettings(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    this.scenarioObject(vars, r, true);
    this.result(r, vars, mutable);
  }

  /**
   * An interface implemented by classes (one extending another and calling `super`, one with
   * no fields), instances made with `new` in the function, held in an array or a field typed
   * by the interface, methods called through it, some mutating the object's own fields.
   */
  interfaceStrategies(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    this.pick([
      () => this.shapesStrategy(vars, r),
      () => this.activationStrategy(vars, r),
      () => this.filterStrategy(vars, r),
      () => this.literalTermsStrategy(vars, r),
    ])();
    this.result(r, vars, mutable);
  }

  /**
   * Terms written as object literals of an interface, with arrows and methods, in a local list:
   * `const terms: Term[] = [{ name: "a", eval: (t) => … }, { name: "b", eval(t) { … } }]`,
   * looped over, folded, mapped, indexed and asked with `in`.
   */
  private literalTermsStrategy(vars: string[], r: string): void {
    const [T, terms, t] = ["Term", "terms", "t"].map((n) => this.fresh(n));
    const optional = this.chance(0.5);
    this.decl(
      [
        `interface ${T} {`,
        `  name: string;`,
        `  weight: number;`,
        `  eval(v: number): number;`,
        ...(optional ? [`  warm?: (v: number) => number;`] : []),
        `}`,
      ].join("\n"),
    );
    const n = this.int(2, 4);
    const elements = Array.from({ length: n }, (_, k) => {
      const weight = this.chance(0.5) ? this.constant() : this.e(vars, 1);
      const body = this.e([...vars, "v"], 2);
      const warm = optional && this.chance(0.5) ? `, warm: (v) => v * ${this.constant()}` : "";
      return this.chance(0.5)
        ? `{ name: "n${k}", weight: ${weight}, eval: (v) => ${body}${warm} }`
        : `{ name: "n${k}", weight: ${weight}${warm}, eval(v) { return ${body} * this.weight; } }`;
    });
    this.emit(`const ${terms}: ${T}[] = [${elements.join(", ")}];`);
    const at = this.e(vars, 1);
    const warmed = optional ? `(${t}.warm?.(${at}) ?? ${at})` : at;
    this.pick([
      () =>
        this.emit(
          `for (const ${t} of ${terms}) { if (${t}.name === "n1") continue; ${r} += ${t}.weight * ${t}.eval(${warmed}); }`,
        ),
      () =>
        this.emit(
          `${r} += ${terms}.reduce((acc, ${t}) => acc + ${t}.eval(${warmed}) * ${t}.weight, 0);`,
        ),
      () => this.emit(`${r} += ${terms}.map((${t}) => ${t}.eval(${warmed}))[${n - 1}];`),
      () =>
        this.emit(
          `for (let i = 0; i < ${terms}.length; i++) ${r} += ${terms}[i].eval(${at}) * (i + 1);`,
        ),
      () =>
        this.emit(
          `for (const ${t} of ${terms}) if ("eval" in ${t}${optional ? ` && "warm" in ${t}` : ""}) ${r} += ${t}.eval(${at});`,
        ),
    ])();
  }

  /**
   * A strategy chosen by a condition, in a variable typed by the interface: `const s: Shape =
   * cond ? new Circle(…) : new Rect(…)`, or `let s: Shape = …; if (cond) s = …;`.
   */
  private chosenStrategy(
    vars: string[],
    r: string,
    type: string,
    make: () => string,
    use: (s: string) => string,
  ): void {
    const s = this.fresh("chosen");
    if (this.chance(0.5)) {
      this.emit(`const ${s}: ${type} = ${this.condition(vars)} ? ${make()} : ${make()};`);
    } else {
      this.emit(`let ${s}: ${type} = ${make()};`);
      this.emit(`if (${this.condition(vars)}) ${s} = ${make()};`);
    }
    this.emit(`${r} += ${use(s)};`);
  }

  /** `interface Shape { area(): number; scale(k: number): void }`, a `Shape[]` scaled and summed. */
  private shapesStrategy(vars: string[], r: string): void {
    const [S, Circle, Rect, Square, Dot] = ["Shape", "Circle", "Rect", "Square", "Dot"].map((n) =>
      this.fresh(n),
    );
    const weighted = this.chance(0.5);
    // Some interfaces have a method returning the interface (a new object, or `this`).
    const resized = this.chance(0.4);
    this.decl(
      [
        `interface ${S} {`,
        ...(weighted ? ["  weight: number;"] : []),
        `  area(): number;`,
        `  scale(k: number): void;`,
        ...(resized ? [`  resized(k: number): ${S};`] : []),
        `}`,
      ].join("\n"),
    );
    const method = (signature: string, body: string) => [`  ${signature} {`, `    ${body}`, `  }`];
    const resizedBy = (made: string) =>
      resized ? method(`resized(k: number): ${S}`, `return ${made};`) : [];
    // The circle may implement an interface extending the shape's.
    const Solid = this.chance(0.3) ? this.fresh("Solid") : undefined;
    if (Solid) this.decl(`interface ${Solid} extends ${S} {\n  depth: number;\n}`);
    this.decl(
      [
        `class ${Circle} implements ${Solid ?? S} {`,
        ...(weighted ? [`  weight = ${this.constant()};`] : []),
        ...(Solid ? [`  depth = ${this.contraction()};`] : []),
        `  constructor(public r: number) {}`,
        ...method("area(): number", "return Math.PI * this.r * this.r;"),
        ...method("scale(k: number): void", "this.r *= k;"),
        ...resizedBy(`new ${Circle}(this.r * k)`),
        `}`,
      ].join("\n"),
    );
    this.decl(
      [
        `class ${Rect} implements ${S} {`,
        ...(weighted ? [`  weight = 1;`] : []),
        `  constructor(`,
        `    private w: number,`,
        `    private h: number,`,
        `  ) {}`,
        ...method("area()", "return this.w * this.h;"),
        `  scale(k: number) {`,
        `    this.w *= k;`,
        `    this.h *= k;`,
        `  }`,
        ...resizedBy(`new ${Rect}(this.w * k, this.h)`),
        `}`,
      ].join("\n"),
    );
    const override = this.pick([
      () => method("override area(): number", `return ${this.constant()} * super.area();`),
      () => method("override scale(k: number): void", "super.scale(k * k);"),
    ])();
    this.decl(
      [
        `class ${Square} extends ${Rect} {`,
        `  constructor(side: number) {`,
        `    super(side, side);`,
        ...(weighted ? [`    this.weight = ${this.contraction()};`] : []),
        `  }`,
        ...override,
        `}`,
      ].join("\n"),
    );
    // A class without fields (its weight a getter when the interface has one), its `scale`
    // taking no parameter; sometimes without `implements`, fitting the interface by its shape.
    this.decl(
      [
        `class ${Dot}${this.chance(0.8) ? ` implements ${S}` : ""} {`,
        ...(weighted ? method("get weight(): number", `return ${this.contraction()};`) : []),
        ...method("area(): number", `return ${this.constant()};`),
        `  scale(): void {}`,
        ...resizedBy("this"),
        `}`,
      ].join("\n"),
    );
    const make = () =>
      this.pick([
        () => `new ${Circle}(${this.e(vars, 1)})`,
        () => `new ${Rect}(${this.e(vars, 1)}, ${this.e(vars, 1)})`,
        () => `new ${Square}(${this.e(vars, 1)})`,
        () => `new ${Dot}()`,
      ])();
    const shapes = this.fresh("shapes");
    const n = this.int(2, 4);
    this.emit(`const ${shapes}: ${S}[] = [${Array.from({ length: n }, make).join(", ")}];`);
    if (this.chance(0.4)) this.emit(`if (${this.condition(vars)}) ${shapes}.push(${make()});`);
    const total = this.fresh("totalArea");
    this.decl(
      `function ${total}(items: ${S}[], k: number): number {\n  let total = 0;\n  for (const s of items) {\n    s.scale(k);\n    total += s.area()${weighted ? " * s.weight" : ""};\n  }\n  return total;\n}`,
    );
    this.emit(
      `${r} += ${total}(${shapes}, ${this.pick(["1.1", "0.9", `1 + 0.1 * Math.tanh(${this.pick(vars)})`])});`,
    );
    if (this.chance(0.5)) {
      const s = this.fresh("s");
      this.emit(`const ${s}: ${S} = ${make()};`);
      this.emit(`${s}.scale(${this.e(vars, 1)});`);
      this.emit(`${r} += ${s}.area() * ${this.contraction()};`);
    }
    if (resized)
      this.emit(
        `for (const s of ${shapes}) ${r} += s.resized(${this.e(vars, 1)}).area() * ${this.contraction()};`,
      );
    if (Solid) {
      const solid = this.fresh("solid");
      this.emit(`const ${solid}: ${Solid} = new ${Circle}(${this.e(vars, 1)});`);
      this.emit(`${shapes}.push(${solid});`);
      this.emit(`${r} += ${solid}.depth * ${solid}.area();`);
    }
    this.emit(`${r} = ${shapes}.reduce((acc, s) => acc + s.area() * ${this.contraction()}, ${r});`);
    if (this.chance(0.4))
      this.chosenStrategy(vars, r, S, make, (s) => `${s}.area() * ${this.contraction()}`);
    // Instances built, adjusted, then returned or kept as the interface.
    if (this.chance(0.5)) {
      const factory = this.fresh("makeShape");
      this.decl(
        [
          `function ${factory}(kind: number, size: number): ${S} {`,
          `  if (kind > 0) {`,
          `    const c = new ${Circle}(size);`,
          `    c.scale(${this.constant()});`,
          `    return c;`,
          `  }`,
          `  const q = new ${Square}(size);`,
          `  q.scale(${this.constant()});`,
          `  return q;`,
          `}`,
        ].join("\n"),
      );
      this.emit(
        `${r} += ${factory}(${this.e(vars, 1)}, ${this.e(vars, 1)}).area() * ${this.contraction()};`,
      );
    }
    if (this.chance(0.5)) {
      const best = this.fresh("biggest");
      const sq = this.fresh("sq");
      this.emit(`let ${best}: ${S} = new ${Circle}(${this.contraction()});`);
      this.emit(`const ${sq} = new ${Square}(${this.e(vars, 1)});`);
      this.emit(`if (${sq}.area() > ${best}.area()) ${best} = ${sq};`);
      this.emit(`${r} += ${best}.area() * ${this.contraction()};`);
    }
  }

  /** A strategy held in a private field typed by its interface: `this.act.apply(z)`. */
  private activationStrategy(vars: string[], r: string): void {
    const [A, Tanh, Scaled, Leaky, Neuron] = [
      "Activation",
      "TanhAct",
      "Scaled",
      "Leaky",
      "Neuron",
    ].map((n) => this.fresh(n));
    this.decl(`interface ${A} {\n  apply(z: number): number;\n}`);
    this.decl(
      `class ${Tanh} implements ${A} {\n  apply(z: number): number {\n    return Math.tanh(z);\n  }\n}`,
    );
    this.decl(
      `class ${Scaled} implements ${A} {\n  calls = 0;\n  constructor(protected readonly gain: number) {}\n  apply(z: number) {\n    this.calls++;\n    return Math.sin(this.gain * z);\n  }\n}`,
    );
    this.decl(
      `class ${Leaky} extends ${Scaled} {\n  override apply(z: number): number {\n    return super.apply(z) + ${this.contraction()} * z * this.gain;\n  }\n}`,
    );
    this.decl(
      `class ${Neuron} {\n  constructor(\n    private w: number,\n    private act: ${A},\n  ) {}\n  fire(x: number): number {\n    return this.act.apply(this.w * x);\n  }\n  nudge(k: number): void {\n    this.w *= k;\n  }\n}`,
    );
    const act = () =>
      this.pick([
        () => `new ${Tanh}()`,
        () => `new ${Scaled}(${this.e(vars, 1)})`,
        () => `new ${Leaky}(${this.e(vars, 1)})`,
        () => `new ${Scaled}(${this.constant()})`,
      ])();
    const layer = this.fresh("layer");
    const n = this.int(2, 3);
    this.emit(
      `const ${layer} = [${Array.from({ length: n }, () => `new ${Neuron}(${this.e(vars, 1)}, ${act()})`).join(", ")}];`,
    );
    if (this.chance(0.5))
      this.emit(`for (const u of ${layer}) u.nudge(${this.pick(["0.9", "1.2"])});`);
    this.emit(`${r} += ${layer}.reduce((s, u) => s + u.fire(${this.e(vars, 1)}), 0);`);
    if (this.chance(0.5)) {
      const acts = this.fresh("acts");
      this.emit(`const ${acts}: ${A}[] = [${act()}, ${act()}];`);
      this.emit(
        `for (const a of ${acts}) ${r} += a.apply(${this.e(vars, 1)}) * ${this.contraction()};`,
      );
    }
    if (this.chance(0.4))
      this.chosenStrategy(vars, r, A, act, (a) => `${a}.apply(${this.e(vars, 1)})`);
  }

  /** Filters of a pipeline (`process(v)`), some keeping state in their fields, run over samples. */
  private filterStrategy(vars: string[], r: string): void {
    const [F, Gain, Ema, Smooth, Clip] = ["Filter", "Gain", "Ema", "Smoothed", "Soft"].map((n) =>
      this.fresh(n),
    );
    this.decl(`interface ${F} {\n  process(v: number): number;\n}`);
    this.decl(
      `class ${Gain} implements ${F} {\n  constructor(private k: number) {}\n  process(v: number): number {\n    return this.k * v;\n  }\n}`,
    );
    this.decl(
      `class ${Ema} implements ${F} {\n  private state = 0;\n  constructor(private readonly alpha: number) {}\n  process(v: number): number {\n    this.state += this.alpha * (v - this.state);\n    return this.state;\n  }\n}`,
    );
    this.decl(
      `class ${Smooth} extends ${Ema} {\n  override process(v: number): number {\n    return Math.tanh(super.process(v));\n  }\n}`,
    );
    this.decl(
      `class ${Clip} implements ${F} {\n  process(v: number): number {\n    return v / Math.sqrt(1 + v * v);\n  }\n}`,
    );
    const make = () =>
      this.pick([
        () => `new ${Gain}(${this.e(vars, 1)})`,
        () => `new ${Ema}(${this.pick(["0.3", "0.5", "0.8"])})`,
        () => `new ${Smooth}(${this.pick(["0.4", "0.6"])})`,
        () => `new ${Clip}()`,
      ])();
    const chain = this.fresh("chain");
    this.emit(
      `const ${chain}: ${F}[] = [${Array.from({ length: this.int(2, 4) }, make).join(", ")}];`,
    );
    const samples = this.fresh("samples");
    this.emit(`const ${samples} = [${this.e(vars, 1)}, ${this.e(vars, 1)}, ${this.e(vars, 1)}];`);
    this.emit(`for (const sample of ${samples}) {`);
    this.nested(() => {
      this.emit(`let v = sample;`);
      this.emit(`for (const f of ${chain}) v = f.process(v);`);
      this.emit(`${r} += v * ${this.contraction()};`);
    });
    this.emit("}");
    if (this.chance(0.4))
      this.chosenStrategy(vars, r, F, make, (f) => `${f}.process(${this.e(vars, 1)})`);
  }

  /**
   * A sum per row of a matrix, as numeric code writes it: the nearest row to a point
   * (kmeans' distance), a matrix-vector product into an array (sometimes in place, the
   * result being the vector), weighted sums from a number of each row; rows as
   * Float64Arrays or `number[]`, loops by index or `for…of`, an inner bound that is the
   * point's length or each row's (rows of unequal lengths sometimes). The WebAssembly backend
   * runs several such rows at once in SIMD lanes (emit/wasm/paired-iterations.ts).
   */
  rowSums(vars: string[], mutable: string[]): void {
    const typed = this.chance(0.6);
    const T = typed ? "Float64Array" : "number[]";
    const make = (items: string[]) =>
      typed ? `Float64Array.from([${items.join(", ")}])` : `[${items.join(", ")}]`;
    const d = this.int(1, 5);
    const n = this.int(1, 9);
    const rows = this.fresh("rows");
    const uneven = this.chance(0.2);
    const row = (k: number) =>
      make(
        Array.from({ length: uneven && k === 1 ? Math.max(1, d - 1) : d }, () =>
          this.chance(0.5) ? this.e(vars, 1) : this.constant(),
        ),
      );
    this.emit(
      `const ${rows}: ${T}[] = [${Array.from({ length: n }, (_, k) => row(k)).join(", ")}];`,
    );
    const point = this.fresh("point");
    this.emit(`const ${point}: ${T} = ${make(Array.from({ length: d }, () => this.e(vars, 1)))};`);
    const r = this.fresh("r");
    const f = this.fresh("rowSum");
    const bound = uneven || this.chance(0.3) ? "row.length" : "x.length";
    switch (this.int(0, 2)) {
      case 0: {
        // The nearest row: its squared distance.
        const loop = this.chance(0.5)
          ? "for (const row of rows) {"
          : "for (let j = 0; j < rows.length; j++) {\n    const row = rows[j];";
        // The distance inline, or from a helper (whose derivative reverse mode then calls once,
        // for the nearest row: differentiate/last-write.ts).
        const helper = this.chance(0.5) ? this.fresh("distance") : undefined;
        if (helper)
          this.decl(`function ${helper}(a: ${T}, b: ${T}): number {
  let s = 0;
  for (let i = 0; i < ${bound === "row.length" ? "b" : "a"}.length; i++) {
    const diff = a[i] - b[i];
    s += diff * diff;
  }
  return s;
}`);
        const distance = helper
          ? `const dist = ${helper}(x, row);`
          : `let dist = 0;
    for (let i = 0; i < ${bound}; i++) {
      const diff = x[i] - row[i];
      dist += diff * diff;
    }`;
        this.decl(`function ${f}(rows: ${T}[], x: ${T}): number {
  let best = Infinity;
  ${loop}
    ${distance}
    if (dist < best) best = dist;
  }
  return best;
}`);
        this.emit(`let ${r} = ${f}(${rows}, ${point});`);
        break;
      }
      case 1: {
        // A matrix-vector product into an array; in place (into the vector) when square.
        const out = this.fresh("out");
        this.decl(`function ${f}(m: ${T}[], x: ${T}, out: ${T}): void {
  for (let j = 0; j < m.length; j++) {
    const row = m[j];
    let s = ${this.constant()};
    for (let i = 0; i < ${bound}; i++) s += row[i] * x[i];
    out[j] = s;
  }
}`);
        const inPlace = n === d && !uneven && this.chance(0.5);
        if (inPlace) this.emit(`const ${out} = ${point};`);
        else
          this.emit(
            `const ${out}: ${T} = ${typed ? `new Float64Array(${n})` : `new Array(${n}).fill(0)`};`,
          );
        this.emit(`${f}(${rows}, ${point}, ${out});`);
        this.emit(`let ${r} = 0;`);
        this.emit(`for (const v of ${out}) ${r} += v * ${this.contraction()};`);
        break;
      }
      default: {
        // Sums weighted by each row's first number, over the rest.
        this.decl(`function ${f}(rows: ${T}[], x: ${T}, scale: number): number {
  let total = 0;
  for (const row of rows) {
    const w = row[0];
    let s = 0;
    let n = 1;
    for (let i = 1; i < ${bound}; i++) {
      s += (row[i] * x[i]) / scale;
      n = n + -(row[i] * row[i]) * w;
    }
    total += s / (1 + n * n);
  }
  return total;
}`);
        this.emit(`let ${r} = ${f}(${rows}, ${point}, 2 + ${this.contraction()});`);
      }
    }
    this.result(r, vars, mutable);
  }

  /**
   * Helpers written for any array of numbers (`number[] | Float64Array`, `ArrayLike<number>`,
   * `readonly number[]`), called with plain and typed arrays (also made by `Float64Array.of`
   * and `Array.of`); one writes into the array it is given.
   */
  arrayKinds(vars: string[], mutable: string[]): void {
    const readKinds = this.pick([
      "number[] | Float64Array",
      "ArrayLike<number>",
      "readonly number[] | Float64Array",
      "Float64Array | readonly number[]",
    ]);
    const n = this.int(1, 4);
    const items = () => Array.from({ length: n }, () => this.e(vars, 1)).join(", ");
    const plain = this.fresh("plain");
    const typed = this.fresh("typed");
    this.emit(`const ${plain} = ${this.pick([`[${items()}]`, `Array.of(${items()})`])};`);
    this.emit(
      `const ${typed} = ${this.pick([`Float64Array.of(${items()})`, `new Float64Array([${items()}])`])};`,
    );
    const f = this.fresh("weighted");
    const c = this.contraction();
    this.decl(`function ${f}(v: ${readKinds}, w: number): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * (w + i * ${c});
  return s;
}`);
    if (this.chance(0.5)) {
      const scale = this.fresh("scaleAll");
      this.decl(`function ${scale}(v: number[] | Float64Array, k: number): void {
  for (let i = 0; i < v.length; i++) v[i] *= k;
}`);
      this.emit(`${scale}(${this.pick([plain, typed])}, ${this.e(vars, 1)});`);
    }
    const r = this.fresh("r");
    this.emit(
      `let ${r} = ${f}(${plain}, ${this.e(vars, 1)}) + ${f}(${typed}, ${this.constant()}) * ${this.contraction()};`,
    );
    this.result(r, vars, mutable);
  }

  /**
   * `Object.assign` onto a new literal (a copy), onto the object itself (the same object
   * returned), and objects pushed as literals that leave an optional field out.
   */
  objectAssign(vars: string[], mutable: string[]): void {
    const P = this.fresh("P");
    this.decl(`interface ${P} {\n  a: number;\n  b: number;\n  w?: number;\n}`);
    const p = this.fresh("p");
    const q = this.fresh("q");
    const r = this.fresh("r");
    this.emit(`const ${p}: ${P} = { a: ${this.e(vars, 1)}, b: ${this.e(vars, 1)} };`);
    const [c1, c2, c3] = [this.constant(), this.constant(), this.constant()];
    switch (this.int(0, 3)) {
      case 0:
        // A copy: writing it leaves p as it was.
        this.emit(`const ${q} = Object.assign({}, ${p}, { b: ${this.e(vars, 1)} });`);
        this.emit(`${q}.a *= ${this.e(vars, 1)};`);
        this.emit(`let ${r} = ${p}.a * ${c1} + ${q}.a * ${c2} + ${q}.b * ${p}.b * ${c3};`);
        break;
      case 1:
        this.emit(`Object.assign(${p}, { a: ${this.e(vars, 1)} }, { b: ${p}.a * ${c1} });`);
        this.emit(`let ${r} = ${p}.a * ${p}.b + ${c2};`);
        break;
      case 2:
        // The target returned: writing it writes p.
        this.emit(`const ${q}: ${P} = Object.assign(${p}, { b: ${this.e(vars, 1)} });`);
        this.emit(`${q}.a = ${this.e([...vars, `${p}.b`], 2)};`);
        this.emit(`let ${r} = ${p}.a * ${c1} + ${q}.b * ${c2};`);
        break;
      default: {
        const ps = this.fresh("ps");
        const i = this.fresh("i");
        const k = this.int(1, 3);
        this.emit(`const ${ps}: ${P}[] = [${p}];`);
        this.emit(
          `for (let ${i} = 0; ${i} < ${k}; ${i}++) ${ps}.push({ a: ${this.e([...vars, i], 1)}, b: ${i} });`,
        );
        this.emit(`${ps}[${this.int(0, k)}].w = ${this.e(vars, 1)};`);
        this.emit(`let ${r} = 0;`);
        this.emit(`for (const e of ${ps}) ${r} += e.a * (e.w ?? ${c1}) + e.b * ${c2};`);
      }
    }
    this.result(r, vars, mutable);
  }

  /**
   * Text computed inside: a class whose `key()` and `toString()` return strings, a map keyed by
   * them, a function naming a bucket, and string methods deciding branches.
   */
  textKeys(vars: string[], mutable: string[]): void {
    const C = this.fresh("Tagged");
    const bucket = this.fresh("bucketOf");
    const limit = this.constant();
    this.decl(`class ${C} {
  constructor(
    readonly id: number,
    public value: number,
  ) {}
  key(): string {
    return "k" + this.id;
  }
  toString(): string {
    return \`\${this.key()}=\${this.value > ${limit} ? "high" : "low"}\`;
  }
}`);
    this.decl(`function ${bucket}(v: number): string {
  if (v < ${limit}) return "below";
  return v < ${limit} + 1 ? "near" : "above";
}`);
    const items = this.fresh("tagged");
    const byKey = this.fresh("byKey");
    const r = this.fresh("r");
    const n = this.int(1, 4);
    this.emit(
      `const ${items} = [${Array.from({ length: n }, (_, k) => `new ${C}(${k}, ${this.e(vars, 1)})`).join(", ")}];`,
    );
    this.emit(`const ${byKey} = new Map<string, number>();`);
    this.emit(`for (const t of ${items}) ${byKey}.set(t.key(), t.value * ${this.contraction()});`);
    this.emit(`let ${r} = ${byKey}.get("k${this.int(0, n)}") ?? ${this.constant()};`);
    const test = this.pick([
      `t.toString().endsWith("high")`,
      `${bucket}(t.value).startsWith("a")`,
      `t.toString().toUpperCase().includes("LOW")`,
      `${bucket}(t.value).length > 4`,
    ]);
    this.emit(`for (const t of ${items}) if (${test}) ${r} += t.value * ${this.contraction()};`);
    this.result(r, vars, mutable);
  }

  /**
   * Shapes as a TypeScript developer types them: an enum-typed field, a subclass with no
   * fields, `instanceof` with its narrowing, an array of a subclass used as one of the base,
   * a tuple spread, the rest of a record, a table `as const`.
   */
  typedShapes(vars: string[], mutable: string[]): void {
    const Kind = this.fresh("Kind");
    const Shape = this.fresh("Shape");
    const Disk = this.fresh("Disk");
    const Box = this.fresh("Box");
    const Dot = this.fresh("Dot");
    const table = this.fresh("OFFSETS");
    this.decl(`enum ${Kind} {
  Round,
  Flat = 3,
}`);
    this.decl(`abstract class ${Shape} {
  abstract area(): number;
}`);
    this.decl(`class ${Disk} extends ${Shape} {
  kind: ${Kind} = ${Kind}.Round;
  constructor(public r: number) {
    super();
  }
  area(): number {
    return ${this.constant()} * this.r * this.r;
  }
}`);
    this.decl(`class ${Box} extends ${Shape} {
  readonly kind = ${Kind}.Flat;
  constructor(public side: number) {
    super();
  }
  area(): number {
    return this.side * this.side;
  }
}`);
    this.decl(`class ${Dot} extends ${Shape} {
  area(): number {
    return ${this.constant()};
  }
}`);
    this.decl(`const ${table} = [[1, ${this.constant()}], [0, 2]] as const;`);
    const r = this.fresh("r");
    const shapes = this.fresh("shapes");
    const disks = this.fresh("disks");
    const s = this.fresh("s");
    this.emit(`let ${r} = 0;`);
    this.emit(`const ${disks} = [new ${Disk}(${this.e(vars, 1)})];`);
    this.emit(
      `const ${shapes}: ${Shape}[] = [new ${Dot}(), new ${Box}(${this.e(vars, 1)}), ...${disks}];`,
    );
    this.emit(`for (const ${s} of ${shapes}) {`);
    this.emit(
      `  if (${s} instanceof ${Disk}) ${r} += ${s}.area() * ${this.contraction()} + (${s}.kind === ${Kind}.Round ? ${s}.r : 0);`,
    );
    this.emit(`  else if (${s} instanceof ${Box}) ${r} += ${s}.side * ${this.contraction()};`);
    this.emit(`  else ${r} += ${s}.area();`);
    this.emit(`}`);
    const asBase = this.fresh("asBase");
    this.emit(`const ${asBase}: ${Shape}[] = ${disks};`);
    this.emit(`${r} += ${asBase}[0].area() * ${this.contraction()};`);
    const point = this.fresh("point");
    const more = this.fresh("more");
    this.emit(
      `const ${point}: [number, number, number] = [${this.e(vars, 1)}, ${this.e(vars, 1)}, ${this.constant()}];`,
    );
    this.emit(`const ${more} = [...${point}, ${this.e(vars, 1)}];`);
    this.emit(`${r} += ${more}[3] * ${more}[0] * ${this.contraction()};`);
    const record = this.fresh("weights");
    const first = this.fresh("first");
    const rest = this.fresh("rest");
    const k = this.fresh("k");
    this.emit(
      `const ${record}: Record<string, number> = { a: ${this.e(vars, 1)}, "b-c": ${this.e(vars, 1)}, d: ${this.constant()} };`,
    );
    this.emit(`const { a: ${first}, ...${rest} } = ${record};`);
    this.emit(
      `for (const ${k} in ${rest}) ${r} += ${rest}[${k}] * ${first} * ${this.contraction()};`,
    );
    const [p, q] = [this.fresh("p"), this.fresh("q")];
    this.emit(
      `for (const [${p}, ${q}] of ${table}) ${r} += ${p} * ${this.e(vars, 1)} + ${q} * ${this.contraction()};`,
    );
    this.result(r, vars, mutable);
  }

  /**
   * Arrays used as stacks and queues (`pop`, `shift`, `splice`, `unshift`, `length = n`), of
   * numbers and of objects: slots freed and filled again, elements moved down.
   */
  stacksQueues(vars: string[], mutable: string[]): void {
    const Item = this.fresh("Item");
    this.decl(`interface ${Item} {
  w: number;
  tag: string;
}`);
    const r = this.fresh("r");
    const stack = this.fresh("stack");
    const i = this.fresh("i");
    const inner = [...vars, i];
    this.emit(`let ${r} = 0;`);
    this.emit(`const ${stack}: number[] = [${this.e(vars, 1)}];`);
    this.emit(`for (let ${i} = 0; ${i} < ${this.int(1, 6)}; ${i}++) {`);
    this.nested(() => {
      this.emit(`${stack}.push(${this.e(inner, 2)});`);
      if (this.chance(0.5))
        this.emit(`if (${this.condition(inner)}) ${r} += ${stack}.pop()! * ${this.contraction()};`);
      else this.emit(`if (${stack}.length > 2) ${r} += ${stack}.shift()! * ${this.contraction()};`);
    });
    this.emit("}");
    if (this.chance(0.5))
      this.emit(
        `while (${stack}.length > ${this.int(0, 2)}) ${r} += ${stack}.pop()! * ${this.contraction()};`,
      );
    else this.emit(`${stack}.length = Math.min(${stack}.length, ${this.int(0, 3)});`);
    this.emit(`${r} += ${stack}.reduce((a, b) => a + b * ${this.constant()}, 0);`);
    const items = this.fresh("items");
    const removed = this.fresh("removed");
    const tags = ["a", "b", "c"];
    this.emit(
      `const ${items}: ${Item}[] = [${tags.map((t) => `{ w: ${this.e(vars, 1)}, tag: "${t}" }`).join(", ")}];`,
    );
    const inserted = this.chance(0.5) ? `, { w: ${this.e(vars, 1)}, tag: "n" }` : "";
    this.emit(
      `const ${removed} = ${items}.splice(${this.int(-2, 2)}, ${this.int(0, 2)}${inserted});`,
    );
    if (this.chance(0.5)) this.emit(`${items}.unshift({ w: ${this.e(vars, 1)}, tag: "u" });`);
    this.emit(`${r} += (${removed}[0]?.w ?? 0) * ${this.contraction()} + ${items}.length;`);
    const last = this.fresh("last");
    this.emit(`const ${last} = ${items}.pop();`);
    this.emit(
      `${r} += (${last}?.w ?? 1) * ${this.contraction()} + (${items}[0]?.w ?? 0) * ${this.contraction()};`,
    );
    this.result(r, vars, mutable);
  }

  /** Unrelated classes used through their union (`Disk | Square`), narrowed by `instanceof`. */
  classUnions(vars: string[], mutable: string[]): void {
    const Disk = this.fresh("Disk");
    const Square = this.fresh("Square");
    this.decl(`class ${Disk} {
  constructor(public radius: number) {}
  area(): number {
    return ${this.constant()} * this.radius * this.radius;
  }
}`);
    this.decl(`class ${Square} {
  constructor(public side: number) {}
  area(): number {
    return this.side * this.side;
  }
}`);
    const r = this.fresh("r");
    const shapes = this.fresh("shapes");
    const s = this.fresh("s");
    this.emit(`let ${r} = 0;`);
    const written = this.chance(0.5) ? `Array<${Disk} | ${Square}>` : `(${Disk} | ${Square})[]`;
    this.emit(`const ${shapes}: ${written} = [new ${Disk}(${this.e(vars, 1)})];`);
    this.emit(`${shapes}.push(new ${Square}(${this.e(vars, 1)}));`);
    this.emit(`for (const ${s} of ${shapes}) {`);
    this.emit(`  ${r} += ${s}.area() * ${this.contraction()};`);
    this.emit(
      `  ${r} += (${s} instanceof ${Disk} ? ${s}.radius : ${s}.side) * ${this.contraction()};`,
    );
    this.emit("}");
    this.result(r, vars, mutable);
  }

  /** The group-by idiom: a reduction into a record that starts as `{}` (or an array, `[]`). */
  groupBy(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    const groups = this.fresh("groups");
    const v = this.fresh("v");
    const acc = this.fresh("acc");
    const inner = [...vars, v];
    this.emit(`let ${r} = 0;`);
    const values = `[${this.e(vars, 1)}, ${this.e(vars, 1)}, ${this.e(vars, 1)}]`;
    const typed = this.chance(0.5)
      ? `.reduce<Record<string, number>>((${acc}, ${v}) => {`
      : `.reduce((${acc}: Record<string, number>, ${v}) => {`;
    this.emit(`const ${groups} = ${values}${typed}`);
    this.emit(`  const key = ${this.condition(inner)} ? "hi" : "lo";`);
    this.emit(`  ${acc}[key] = (${acc}[key] ?? 0) + ${this.e(inner, 2)};`);
    this.emit(`  return ${acc};`);
    this.emit("}, {});");
    this.emit(
      `${r} += (${groups}["hi"] ?? 0) * ${this.contraction()} + (${groups}["lo"] ?? ${this.constant()}) * ${this.contraction()};`,
    );
    const squares = this.fresh("squares");
    this.emit(`const ${squares} = ${values}.reduce<number[]>((${acc}, ${v}) => {`);
    this.emit(`  if (${this.condition(inner)}) ${acc}.push(${this.e(inner, 2)});`);
    this.emit(`  return ${acc};`);
    this.emit("}, []);");
    this.emit(`${r} += ${squares}.length + (${squares}[0] ?? 0) * ${this.contraction()};`);
    this.result(r, vars, mutable);
  }

  /**
   * Statements written for their effect: `c && list.push(v);`, `done || list.push(v);`, and a
   * compound assignment whose right side calls a closure that changes the same variable.
   */
  effectStatements(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    const kept = this.fresh("kept");
    const v = this.fresh("v");
    const inner = [...vars, v];
    this.emit(`let ${r} = 0;`);
    this.emit(`const ${kept}: number[] = [];`);
    this.emit(
      `for (const ${v} of [${this.e(vars, 1)}, ${this.e(vars, 1)}]) ${this.condition(inner)} && ${kept}.push(${this.e(inner, 2)});`,
    );
    const done = this.fresh("done");
    this.emit(`let ${done} = ${this.chance(0.5)};`);
    this.emit(`${done} || ${kept}.push(${this.e(vars, 1)});`);
    this.emit(`${r} += ${kept}.reduce((a, b) => a + b * ${this.constant()}, 0);`);
    const cost = this.fresh("cost");
    const penalize = this.fresh("penalize");
    const p = this.fresh("p");
    this.emit(`let ${cost} = ${this.e(vars, 1)};`);
    this.emit(`const ${penalize} = (${p}: number) => {`);
    this.emit(`  ${cost} ${this.pick(["+=", "-=", "*="])} ${this.constant()} * ${p};`);
    this.emit(`  return ${p};`);
    this.emit("};");
    this.emit(
      `${cost} ${this.pick(["+=", "-="])} ${penalize}(${this.e(vars, 1)}) * ${penalize}(${this.e(vars, 1)});`,
    );
    this.emit(`${r} += ${cost} * ${this.contraction()};`);
    this.result(r, vars, mutable);
  }

  /**
   * An interface with an optional hook (`reset?(): void`) some classes implement, called with
   * `?.`; and a constant a subclass inherits from its base, read through the subclass.
   */
  lifecycleHooks(vars: string[], mutable: string[]): void {
    const Stage = this.fresh("Stage");
    const Smooth = this.fresh("Smooth");
    const Scale = this.fresh("Scale");
    const Tuned = this.fresh("Tuned");
    this.decl(`interface ${Stage} {
  step(v: number): number;
  reset?(): void;
}`);
    this.decl(`class ${Smooth} implements ${Stage} {
  static readonly RATE = ${this.constant()};
  private level = 0;
  step(v: number): number {
    this.level += ${Smooth}.RATE * (v - this.level);
    return this.level;
  }
  reset(): void {
    this.level = 0;
  }
}`);
    this.decl(`class ${Tuned} extends ${Smooth} {}`);
    this.decl(`class ${Scale} implements ${Stage} {
  constructor(private readonly k: number) {}
  step(v: number): number {
    return this.k * v;
  }
}`);
    const r = this.fresh("r");
    const stages = this.fresh("stages");
    const pass = this.fresh("pass");
    const st = this.fresh("st");
    const v = this.fresh("v");
    this.emit(`let ${r} = 0;`);
    this.emit(
      `const ${stages}: ${Stage}[] = [new ${Tuned}(), new ${Scale}(${this.e(vars, 1)}), new ${Smooth}()];`,
    );
    this.emit(`for (let ${pass} = 0; ${pass} < 2; ${pass}++) {`);
    this.emit(`  let ${v} = ${this.e(vars, 1)} + ${pass};`);
    this.emit(`  for (const ${st} of ${stages}) ${v} = ${st}.step(${v});`);
    this.emit(`  ${r} += ${v} * ${Tuned}.RATE;`);
    this.emit(
      `  if (${this.chance(0.5) ? `${pass} === 0` : "true"}) for (const ${st} of ${stages}) ${st}.reset?.();`,
    );
    this.emit("}");
    this.result(r, vars, mutable);
  }

  // ---- recursion, class hierarchies in arrays, iterables, returned functions ----

  /** `vars` without the names a local function's own parameters take. */
  private outer(vars: string[], own: string[]): string[] {
    const left = vars.filter((v) => !own.includes(v));
    return left.length ? left : ["x"];
  }

  /** A name nabla might give a generated local, or a plain one. */
  private paramName(plain: string): string {
    return this.pick([plain, plain, "t", "tape", "node", "dt", "seed"]);
  }

  /**
   * Local functions calling themselves, inside the function they serve: a tree summed by an
   * arrow recursing through `reduce` (optional children, read with `??`), a `function walk`
   * declaration recursing with a depth and reading a `let` reassigned between calls, a
   * memoized recursion keeping its cache in a `Map`, a visitor counting calls and adding into
   * the enclosing function's `let`s (main's own `acc` among them), an expression evaluator
   * given to `map` by name.
   */
  recursiveLocals(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    const uses = this.int(1, 2);
    for (let u = 0; u < uses; u++) {
      switch (this.int(0, 5)) {
        case 0:
          this.recursiveTotal(r, vars);
          break;
        case 1:
          this.recursiveWalk(r, vars);
          break;
        case 2:
          this.recursiveNumbers(r, vars);
          break;
        case 3:
          this.memoizedRecursion(r, vars);
          break;
        case 4:
          this.recursiveVisitor(r, vars);
          break;
        default:
          this.recursiveEvaluator(r, vars);
      }
    }
    this.result(r, vars, mutable);
  }

  /** A tree type with optional children (and sometimes an optional weight), and a literal of it. */
  private treeOf(vars: string[]): { T: string; tree: string; weighted: boolean } {
    const T = this.fresh("Tree");
    const weighted = this.chance(0.4);
    this.decl(
      this.chance(0.5)
        ? `type ${T} = { value: number; children?: ${T}[]${weighted ? "; weight?: number" : ""} };`
        : `interface ${T} {\n  value: number;\n  children?: ${T}[];${weighted ? "\n  weight?: number;" : ""}\n}`,
    );
    const build = (depth: number): string => {
      const w = weighted && this.chance(0.4) ? `, weight: ${this.contraction()}` : "";
      if (depth === 0 || this.chance(0.25)) return `{ value: ${this.e(vars, 1)}${w} }`;
      const n = this.int(0, 3);
      const kids = Array.from({ length: n }, () => build(depth - 1));
      return `{ value: ${this.e(vars, 1)}${w}, children: [${kids.join(", ")}] }`;
    };
    const tree = this.fresh("tree");
    this.emit(`const ${tree}: ${T} = ${build(this.int(1, 3))};`);
    return { T, tree, weighted };
  }

  /** `const total = (t: Tree): number => t.value * k + (t.children ?? []).reduce(…total(c)…)`. */
  private recursiveTotal(r: string, vars: string[]): void {
    const { T, tree, weighted } = this.treeOf(vars);
    const k = this.fresh("k");
    this.emit(`const ${k} = ${this.e(vars, 1)};`);
    const total = this.fresh("total");
    const p = this.paramName("t");
    const w = weighted ? ` * (${p}.weight ?? 1)` : "";
    switch (this.int(0, 2)) {
      case 0:
        this.emit(
          `const ${total} = (${p}: ${T}): number =>\n    ${p}.value * ${k}${w} + (${p}.children ?? []).reduce((s, c) => s + ${total}(c), 0);`,
        );
        break;
      case 1:
        this.emit(`const ${total} = (${p}: ${T}): number => {`);
        this.nested(() => {
          this.emit(`let out = Math.tanh(${p}.value * ${k})${w};`);
          this.emit(
            `for (const c of ${p}.children ?? []) out += ${total}(c) * ${this.contraction()};`,
          );
          this.emit(`return out;`);
        });
        this.emit(`};`);
        break;
      default:
        this.emit(`function ${total}(${p}: ${T}): number {`);
        this.nested(() => {
          this.emit(`if (!${p}.children) return ${p}.value * ${k};`);
          this.emit(
            `return ${p}.value${w} + ${p}.children.map(${total}).reduce((a, b) => a + b * ${this.contraction()}, 0);`,
          );
        });
        this.emit(`}`);
    }
    this.emit(`${r} += ${total}(${tree}) * ${this.contraction()};`);
    if (this.chance(0.4)) {
      // A copy of the root with another value, its children shared.
      const copy = this.fresh("copy");
      this.emit(`const ${copy} = { ...${tree}, value: ${this.e(vars, 1)} };`);
      this.emit(`${r} += ${total}(${copy}) * ${this.contraction()};`);
    }
    if (this.chance(0.3))
      this.emit(`${r} += (${tree}.children ?? []).map(${total}).reduce((a, b) => a + b, 0) * 0.5;`);
  }

  /** `function walk(n: Node | undefined, depth: number)`, reading a `let` changed between calls. */
  private recursiveWalk(r: string, vars: string[]): void {
    const N = this.fresh("Node");
    this.decl(`interface ${N} {\n  w: number;\n  left?: ${N};\n  right?: ${N};\n}`);
    const build = (depth: number): string => {
      const parts = [`w: ${this.e(vars, 1)}`];
      if (depth > 0 && this.chance(0.7)) parts.push(`left: ${build(depth - 1)}`);
      if (depth > 0 && this.chance(0.5)) parts.push(`right: ${build(depth - 1)}`);
      return `{ ${parts.join(", ")} }`;
    };
    const root = this.fresh("root");
    this.emit(`const ${root}: ${N} = ${build(this.int(1, 3))};`);
    const decay = this.fresh("decay");
    this.emit(`let ${decay} = Math.tanh(${this.e(vars, 1)}) * 0.9;`);
    const walk = this.fresh("walk");
    const n = this.paramName("n");
    this.emit(`function ${walk}(${n}: ${N} | undefined, depth: number): number {`);
    this.nested(() => {
      this.emit(`if (!${n}) return 0;`);
      if (this.chance(0.3)) this.emit(`if (depth > ${this.int(1, 3)}) return ${n}.w;`);
      this.emit(
        `return ${n}.w * ${decay} ** depth + ${walk}(${n}.left, depth + 1) + ${walk}(${n}.right, depth + 1);`,
      );
    });
    this.emit(`}`);
    this.emit(`${r} += ${walk}(${root}, 0);`);
    if (this.chance(0.6)) {
      this.emit(`${decay} = ${this.e(vars, 1)} * 0.5;`);
      this.emit(`${r} += ${walk}(${root}.left, 1) * ${this.contraction()};`);
    }
  }

  /** A recursion on numbers with a depth, reading what the enclosing function computed. */
  private recursiveNumbers(r: string, vars: string[]): void {
    const walk = this.fresh("refine");
    const c = this.fresh("c");
    this.emit(`const ${c} = ${this.e(vars, 1)};`);
    const v = this.paramName("v");
    const inner = [...this.outer(vars, [v, "depth"]), v];
    if (this.chance(0.5)) {
      this.emit(`const ${walk} = (${v}: number, depth: number): number =>`);
      this.emit(
        `  depth <= 0 ? ${v} : ${walk}(Math.tanh(${v} * ${this.contraction()} + ${c}), depth - 1) * ${this.contraction()} + ${v};`,
      );
    } else {
      this.emit(`function ${walk}(${v}: number, depth = ${this.int(2, 4)}): number {`);
      this.nested(() => {
        this.emit(`if (depth === 0) return ${v} * ${c};`);
        this.emit(`const next = Math.sin(${this.e(inner, 1)}) * ${this.contraction()};`);
        this.emit(`return ${v} + ${walk}(next, depth - 1) * ${this.contraction()};`);
      });
      this.emit(`}`);
    }
    this.emit(`${r} += ${walk}(${this.e(vars, 1)}, ${this.int(0, 5)});`);
  }

  /** A recursion memoized in a `Map<number, number>` of the enclosing function. */
  private memoizedRecursion(r: string, vars: string[]): void {
    const cache = this.fresh("cache");
    const fib = this.fresh("fib");
    const [a, b] = [this.fresh("a"), this.fresh("b")];
    this.emit(`const ${a} = ${this.e(vars, 1)};`);
    this.emit(`const ${b} = ${this.e(vars, 1)};`);
    this.emit(`const ${cache} = new Map<number, number>();`);
    const n = this.paramName("n");
    this.emit(`const ${fib} = (${n}: number): number => {`);
    this.nested(() => {
      this.emit(`if (${n} < 2) return ${n} === 0 ? ${a} : ${b};`);
      if (this.chance(0.5)) {
        this.emit(`const hit = ${cache}.get(${n});`);
        this.emit(`if (hit !== undefined) return hit;`);
      } else {
        this.emit(`if (${cache}.has(${n})) return ${cache}.get(${n})!;`);
      }
      this.emit(
        `const value = Math.tanh(${fib}(${n} - 1) * ${this.contraction()} + ${fib}(${n} - 2) * ${this.contraction()} + ${a} * ${this.contraction()});`,
      );
      this.emit(`${cache}.set(${n}, value);`);
      this.emit(`return value;`);
    });
    this.emit(`};`);
    const top = this.int(2, 12);
    this.emit(`${r} += ${fib}(${top});`);
    if (this.chance(0.5))
      this.emit(`${r} += ${fib}(${top - 1}) * ${this.contraction()} + ${cache}.size * 0.01;`);
  }

  /** A visitor assigning the enclosing function's `let`s: a count, a sum, main's `acc`. */
  private recursiveVisitor(r: string, vars: string[]): void {
    const { T, tree } = this.treeOf(vars);
    const count = this.fresh("count");
    const sum = this.fresh("sum");
    this.emit(`let ${count} = 0;`);
    this.emit(`let ${sum} = ${this.chance(0.5) ? "0" : this.e(vars, 1)};`);
    const visit = this.fresh("visit");
    const p = this.paramName("t");
    const touchAcc = this.chance(0.4);
    const body = () => {
      this.emit(`${count}++;`);
      this.emit(`${sum} += ${p}.value * ${this.contraction()};`);
      if (touchAcc) this.emit(`acc += ${p}.value * ${this.contraction()};`);
      if (this.chance(0.3)) this.emit(`${sum} = Math.tanh(${sum});`);
    };
    if (this.chance(0.5)) {
      this.emit(`const ${visit} = (${p}: ${T}): void => {`);
      this.nested(() => {
        body();
        this.emit(`for (const c of ${p}.children ?? []) ${visit}(c);`);
      });
      this.emit(`};`);
      this.emit(`${visit}(${tree});`);
    } else {
      this.emit(`function ${visit}(${p}: ${T}, depth = 0): void {`);
      this.nested(() => {
        body();
        this.emit(`${sum} += ${p}.value * ${this.contraction()} ** depth;`);
        this.emit(`${p}.children?.forEach((c) => ${visit}(c, depth + 1));`);
      });
      this.emit(`}`);
      this.emit(`${visit}(${tree});`);
    }
    this.emit(`${r} += ${sum} + ${count} * ${this.contraction()};`);
  }

  /** An expression evaluator given to `map` by name (`e.args.map(evaluate)`), counting visits. */
  private recursiveEvaluator(r: string, vars: string[]): void {
    const E = this.fresh("Expr");
    this.decl(
      `type ${E} =\n  | { op: "num"; v: number }\n  | { op: "add" | "mul"; args: ${E}[] }\n  | { op: "neg"; arg: ${E} };`,
    );
    const build = (depth: number): string => {
      if (depth === 0 || this.chance(0.3)) return `{ op: "num", v: ${this.e(vars, 1)} }`;
      if (this.chance(0.2)) return `{ op: "neg", arg: ${build(depth - 1)} }`;
      const n = this.int(1, 3);
      const args = Array.from({ length: n }, () => build(depth - 1));
      return `{ op: "${this.pick(["add", "mul"])}", args: [${args.join(", ")}] }`;
    };
    const ex = this.fresh("expr");
    this.emit(`const ${ex}: ${E} = ${build(this.int(1, 3))};`);
    const visited = this.fresh("visited");
    const counted = this.chance(0.5);
    if (counted) this.emit(`let ${visited} = 0;`);
    const evaluate = this.fresh("evaluate");
    const p = this.paramName("e");
    this.emit(`const ${evaluate} = (${p}: ${E}): number => {`);
    this.nested(() => {
      if (counted) this.emit(`${visited}++;`);
      this.emit(`if (${p}.op === "num") return ${p}.v;`);
      this.emit(`if (${p}.op === "neg") return -${evaluate}(${p}.arg);`);
      this.emit(`const values = ${p}.args.map(${evaluate});`);
      this.emit(
        `return ${p}.op === "add" ? values.reduce((a, b) => a + b, 0) : values.reduce((a, b) => a * b, 1);`,
      );
    });
    this.emit(`};`);
    this.emit(`${r} += Math.tanh(${evaluate}(${ex}))${counted ? ` * ${visited}` : ""};`);
  }

  /**
   * Classes and their subclasses in unannotated array literals (`[new Square(x), new
   * Circle(y)]`), mapped, looped over, filtered, copied, their overriding methods called; and
   * array literals holding an empty array (`[[x], [y, x], []]`).
   */
  subclassArrays(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    if (this.chance(0.75)) this.shapesArray(r, vars);
    if (this.chance(0.5)) this.emptyInnerArrays(r, vars);
    this.result(r, vars, mutable);
  }

  private shapesArray(r: string, vars: string[]): void {
    const [S, C, R] = [this.fresh("Shape"), this.fresh("Circle"), this.fresh("Rect")];
    const viaInterface = this.chance(0.3);
    const makes: ((vs: string[]) => string)[] = [];
    if (viaInterface) {
      this.decl(`interface ${S} {\n  size: number;\n  area(): number;\n}`);
      this.decl(
        `class ${C} implements ${S} {\n  constructor(public size: number) {}\n  area(): number {\n    return Math.PI * this.size ** 2;\n  }\n}`,
      );
      this.decl(
        `class ${R} implements ${S} {\n  constructor(\n    public size: number,\n    readonly aspect = ${this.constant()},\n  ) {}\n  area(): number {\n    return this.size * this.size * this.aspect;\n  }\n  scaled(k: number): number {\n    return this.area() * k;\n  }\n}`,
      );
      makes.push(
        (vs) => `new ${C}(${this.e(vs, 1)})`,
        (vs) => `new ${R}(${this.e(vs, 1)})`,
        (vs) => `new ${R}(${this.e(vs, 1)}, ${this.e(vs, 1)})`,
      );
    } else {
      this.decl(
        [
          `class ${S} {`,
          `  constructor(public size: number) {}`,
          `  area(): number {`,
          `    return this.size * this.size;`,
          `  }`,
          `  get perimeter(): number {`,
          `    return 4 * this.size;`,
          `  }`,
          `  scaled(k: number): number {`,
          `    return this.area() * k;`,
          `  }`,
          `}`,
        ].join("\n"),
      );
      this.decl(
        `class ${C} extends ${S} {\n  override area(): number {\n    return Math.PI * this.size ** 2;\n  }\n  override get perimeter(): number {\n    return 2 * Math.PI * this.size;\n  }\n}`,
      );
      this.decl(
        `class ${R} extends ${S} {\n  constructor(\n    size: number,\n    readonly aspect = ${this.constant()},\n  ) {\n    super(size);\n  }\n  override area(): number {\n    return super.area() * this.aspect;\n  }\n}`,
      );
      makes.push(
        (vs) => `new ${S}(${this.e(vs, 1)})`,
        (vs) => `new ${C}(${this.e(vs, 1)})`,
        (vs) => `new ${R}(${this.e(vs, 1)}, ${this.e(vs, 1)})`,
        (vs) => `new ${R}(${this.e(vs, 1)})`,
      );
    }
    const shapes = this.fresh("shapes");
    const n = this.int(2, 4);
    // At least two different classes, in any order.
    const chosen = [makes[0]!, makes[1]!, ...Array.from({ length: n - 2 }, () => this.pick(makes))];
    chosen.sort(() => this.random() - 0.5);
    this.emit(`const ${shapes} = [${chosen.map((m) => m(vars)).join(", ")}];`);
    // TypeScript types the literal as the union of the classes (or their base): a method only
    // one class has is not there to call.
    const scaled = viaInterface
      ? (s: string, k: string) => `${s}.area() * ${k}`
      : (s: string, k: string) => `${s}.scaled(${k})`;
    const uses = this.int(2, 4);
    for (let u = 0; u < uses; u++) {
      const s = this.paramName("s");
      switch (this.int(0, 6)) {
        case 0:
          this.emit(
            `${r} += ${shapes}.map((${s}) => ${s}.area()).reduce((a, b) => a + b, 0) * ${this.contraction()};`,
          );
          break;
        case 1:
          this.emit(`for (const ${s} of ${shapes}) ${r} += ${scaled(s, this.contraction())};`);
          break;
        case 2:
          this.emit(`${shapes}.forEach((${s}, i) => {`);
          this.nested(() =>
            this.emit(`${r} += ${s}.area() * ${this.contraction()} + ${s}.size * i;`),
          );
          this.emit(`});`);
          break;
        case 3: {
          const big = this.fresh("big");
          this.emit(`const ${big} = ${shapes}.filter((${s}) => ${s}.area() > ${this.constant()});`);
          this.emit(
            `${r} += ${big}.length * ${this.contraction()} + (${big}[0]?.size ?? ${this.constant()});`,
          );
          break;
        }
        case 4: {
          const copy = this.fresh("copy");
          this.emit(`const ${copy} = ${this.copyOf(shapes, chosen.length).text};`);
          this.emit(`${copy}[0].size *= ${this.contraction()};`);
          this.emit(
            `for (let i = 0; i < ${copy}.length; i++) ${r} += ${copy}[i].area() * ${this.contraction()};`,
          );
          break;
        }
        case 5:
          if (!viaInterface)
            this.emit(
              `${r} += ${shapes}.reduce((p, ${s}) => p + ${s}.perimeter, 0) * ${this.contraction()};`,
            );
          else this.emit(`${r} += ${shapes}.map((${s}) => ${s}.size).reduce((a, b) => a * b, 1);`);
          break;
        default:
          this.emit(`${shapes}[${this.int(0, chosen.length - 1)}].size = ${this.e(vars, 1)};`);
          this.emit(
            `${r} += ${shapes}[${this.int(0, chosen.length - 1)}].area() * ${this.contraction()};`,
          );
      }
    }
  }

  /** `[[x], [y, x], []]`: an array literal holding an empty array, read and pushed onto. */
  private emptyInnerArrays(r: string, vars: string[]): void {
    const groups = this.fresh("groups");
    const rows = Array.from({ length: this.int(2, 4) }, (): string =>
      this.chance(0.35)
        ? "[]"
        : `[${Array.from({ length: this.int(1, 3) }, () => this.e(vars, 1)).join(", ")}]`,
    );
    if (!rows.includes("[]")) rows[this.int(0, rows.length - 1)] = "[]";
    if (!rows.some((row) => row !== "[]")) rows[0] = `[${this.e(vars, 1)}]`;
    this.emit(`const ${groups} = [${rows.join(", ")}];`);
    if (this.chance(0.4)) this.emit(`${groups}[${rows.indexOf("[]")}].push(${this.e(vars, 1)});`);
    const g = this.paramName("g");
    switch (this.int(0, 3)) {
      case 0:
        this.emit(
          `${r} += ${groups}.flatMap((${g}) => ${g}.map((v) => v * ${this.contraction()})).reduce((a, b) => a + b, 0);`,
        );
        break;
      case 1:
        this.emit(
          `for (const ${g} of ${groups}) ${r} += ${g}.length ? Math.max(...${g}) : ${this.constant()};`,
        );
        break;
      case 2:
        this.emit(
          `${r} += ${groups}.map((${g}) => ${g}.reduce((s, v) => s + v, 0)).reduceRight((a, b) => a * ${this.contraction()} + b, 0);`,
        );
        break;
      default:
        this.emit(
          `for (let i = 0; i < ${groups}.length; i++) for (let j = 0; j < ${groups}[i].length; j++) ${r} += ${groups}[i][j] * (i + ${this.contraction()});`,
        );
    }
    this.emit(`${r} += ${groups}.flat().length * ${this.contraction()};`);
  }

  /**
   * A class iterable by a generator `*[Symbol.iterator]()`, spread into an array, given to
   * `Array.from` (with and without a callback), to `Math.max`/`Math.min`, walked by
   * `for…of`; and `Math[this.fn](x)` of a field typed as a union of Math functions' names.
   */
  iterableSpread(vars: string[], mutable: string[]): void {
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    if (this.chance(0.75)) this.iterableClass(r, vars);
    if (this.chance(0.5)) this.mathKeys(r, vars);
    this.result(r, vars, mutable);
  }

  private iterableClass(r: string, vars: string[]): void {
    const P = this.fresh("Polyline");
    const pairs = this.chance(0.3);
    const elem = pairs ? "[number, number]" : "number";
    const ret = this.pick([
      `: Iterator<${elem}>`,
      `: Generator<${elem}>`,
      `: IterableIterator<${elem}>`,
      "",
    ]);
    const implementsIt = this.chance(0.5) ? ` implements Iterable<${elem}>` : "";
    const yielded = pairs
      ? `yield [this.xs[i] * this.scale, this.xs[(i + 1) % this.xs.length]];`
      : this.pick([`yield this.xs[i] * this.scale;`, `yield Math.tanh(this.xs[i]) * this.scale;`]);
    this.decl(
      [
        `class ${P}${implementsIt} {`,
        `  constructor(`,
        `    private readonly xs: number[],`,
        `    public scale = 1,`,
        `  ) {}`,
        `  *[Symbol.iterator]()${ret} {`,
        `    for (let i = 0; i < this.xs.length; i++) ${yielded}`,
        `  }`,
        `  get count(): number {`,
        `    return this.xs.length;`,
        `  }`,
        `}`,
      ].join("\n"),
    );
    const line = this.fresh("line");
    const n = this.int(2, 4);
    const xs = `[${Array.from({ length: n }, () => this.e(vars, 1)).join(", ")}]`;
    this.emit(`const ${line} = new ${P}(${xs}${this.chance(0.6) ? `, ${this.e(vars, 1)}` : ""});`);
    if (this.chance(0.3)) this.emit(`${line}.scale *= ${this.contraction()};`);
    const uses = this.int(2, 3);
    for (let u = 0; u < uses; u++) {
      if (pairs) {
        switch (this.int(0, 2)) {
          case 0:
            this.emit(`for (const [a, b] of ${line}) ${r} += a * b * ${this.contraction()};`);
            break;
          case 1:
            this.emit(
              `${r} += [...${line}].map(([a, b]) => a - b * ${this.contraction()}).reduce((s, v) => s + v, 0);`,
            );
            break;
          default:
            this.emit(
              `${r} += Array.from(${line}, ([a, b]) => Math.hypot(a, b)).reduce((s, v) => s + v * ${this.contraction()}, 0);`,
            );
        }
        continue;
      }
      switch (this.int(0, 5)) {
        case 0:
          this.emit(`${r} += Math.max(...${line}) * ${this.contraction()};`);
          break;
        case 1: {
          const pts = this.fresh("pts");
          this.emit(`const ${pts} = [...${line}];`);
          this.emit(`${pts}[0] += ${this.e(vars, 1)};`);
          this.emit(`${r} += ${pts}.reduce((s, v, i) => s + v * (i + ${this.contraction()}), 0);`);
          break;
        }
        case 2:
          this.emit(
            `${r} += Array.from(${line}).length * ${this.contraction()} + Array.from(${line}, (v, i) => v * i).reduce((a, b) => a + b, 0);`,
          );
          break;
        case 3:
          this.emit(
            // Not Math.hypot(a, ...line): nabla folds a spread pairwise (hypot(hypot(0, a), v)…),
            // whose value differs from one Math.hypot call in the last bit (reported, review79).
            `${r} += Math.max(${this.e(vars, 1)}, ...${line}) - Math.min(${this.e(vars, 1)}, ...${line}) * ${this.contraction()};`,
          );
          break;
        case 4:
          this.emit(`for (const v of ${line}) ${r} += Math.sin(v) * ${this.contraction()};`);
          break;
        default:
          this.emit(
            `${r} += [${this.e(vars, 1)}, ...${line}, ${line}.count].reduce((a, b) => a * ${this.contraction()} + b);`,
          );
      }
    }
  }

  /** `Math[this.fn](v)` of a field `fn: "sin" | "exp"`, and of a local key or a loop's key. */
  private mathKeys(r: string, vars: string[]): void {
    const names = ["sin", "cos", "tanh", "exp", "atan"];
    const keys = [...names].sort(() => this.random() - 0.5).slice(0, this.int(2, 3));
    const K = keys.map((k) => `"${k}"`).join(" | ");
    switch (this.int(0, 2)) {
      case 0: {
        const U = this.fresh("Unit");
        this.decl(
          `class ${U} {\n  constructor(\n    readonly fn: ${K},\n    readonly k = 1,\n  ) {}\n  apply(v: number): number {\n    return Math[this.fn](Math.tanh(v) * this.k);\n  }\n}`,
        );
        const units = this.fresh("units");
        this.emit(
          `const ${units} = [${keys.map((k) => `new ${U}("${k}"${this.chance(0.5) ? `, ${this.contraction()}` : ""})`).join(", ")}];`,
        );
        this.emit(
          `for (const u of ${units}) ${r} += u.apply(${this.e(vars, 1)}) * ${this.contraction()};`,
        );
        break;
      }
      case 1: {
        const fn = this.fresh("fn");
        this.emit(`const ${fn}: ${K} = ${this.condition(vars)} ? "${keys[0]}" : "${keys[1]}";`);
        this.emit(`${r} += Math[${fn}](Math.tanh(${this.e(vars, 1)}));`);
        break;
      }
      default: {
        const f = this.paramName("f");
        this.emit(
          `for (const ${f} of [${keys.map((k) => `"${k}"`).join(", ")}] as const) ${r} += Math[${f}](Math.tanh(${this.e(this.outer(vars, [f]), 1)})) * ${this.contraction()};`,
        );
      }
    }
  }

  /**
   * A function returning one of the program's functions (`pick(name): (x: number) => number`,
   * by a conditional or a `switch`), called at once (`pick(n)(x)`) or through a name
   * (`const fn = pick(n); fn(x)`), the name chosen by a loop or by a condition on the inputs.
   */
  returnedFunctions(vars: string[], mutable: string[]): void {
    const [A, B, C] = [this.fresh("lossA"), this.fresh("lossB"), this.fresh("lossC")];
    const Fn = this.fresh("LossFn");
    const named = this.chance(0.5);
    if (named) this.decl(`type ${Fn} = (x: number) => number;`);
    const fnType = named ? Fn : "(x: number) => number";
    this.decl(
      `function ${A}(x: number): number {\n  return x * x * ${this.constant()} + Math.sin(x);\n}`,
    );
    this.decl(
      this.chance(0.5)
        ? `const ${B} = (x: number): number => Math.tanh(x * ${this.constant()}) + 0.5 * x;`
        : `const ${B}: ${fnType} = (t) => Math.log(1 + t * t) * ${this.constant()};`,
    );
    this.decl(
      `function ${C}(t: number, delta = ${this.pick(["0.5", "1"])}): number {\n  const r = Math.abs(t);\n  return r < delta ? 0.5 * r * r : delta * (r - 0.5 * delta);\n}`,
    );
    const pick = this.fresh("pick");
    const union = this.chance(0.5);
    const N = this.fresh("LossName");
    if (union) this.decl(`type ${N} = "a" | "b" | "c";`);
    const nameType = union ? N : "string";
    this.decl(
      this.chance(0.5)
        ? `function ${pick}(name: ${nameType}): ${fnType} {\n  return name === "a" ? ${A} : name === "b" ? ${B} : ${C};\n}`
        : `function ${pick}(name: ${nameType}): ${fnType} {\n  switch (name) {\n    case "a":\n      return ${A};\n    case "b":\n      return ${B};\n    default:\n      return ${C};\n  }\n}`,
    );
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    const asName = union ? ` as ${N}` : "";
    const uses = this.int(2, 3);
    for (let u = 0; u < uses; u++) {
      switch (this.int(0, 3)) {
        case 0:
          this.emit(
            `${r} += ${pick}("${this.pick(["a", "b", "c"])}")(${this.e(vars, 1)}) * ${this.contraction()};`,
          );
          break;
        case 1: {
          const fn = this.paramName("fn");
          const outer = this.outer(vars, [fn]);
          this.emit(`{`);
          this.nested(() => {
            this.emit(
              `const ${fn} = ${pick}(${this.condition(outer)} ? "a" : "${this.pick(["b", "c"])}");`,
            );
            this.emit(
              `${r} += ${fn}(${this.e(outer, 1)}) + ${fn}(${this.e(outer, 1)}) * ${this.contraction()};`,
            );
          });
          this.emit(`}`);
          break;
        }
        case 2: {
          const n = this.fresh("n");
          const list = union ? `(["a", "b", "c"] as ${N}[])` : `["a", "b", "c"]`;
          this.emit(
            `for (const ${n} of ${list}) ${r} += ${pick}(${n})(${this.e(vars, 1)}) * ${this.contraction()};`,
          );
          break;
        }
        default: {
          const fns = this.fresh("fns");
          this.emit(
            `const ${fns} = [${pick}("a"${asName}), ${pick}("${this.pick(["b", "c"])}"${asName})];`,
          );
          this.emit(
            `${r} += ${fns}.reduce((s, f) => s + f(${this.e(vars, 1)}), 0) * ${this.contraction()};`,
          );
        }
      }
    }
    this.result(r, vars, mutable);
  }

  /**
   * Nested differentiation: a module-level `const gradE = gradient(energy)` (or `derivative(f)`)
   * called inside the differentiated function, its result read by index, destructured, summed.
   */
  nestedGradients(vars: string[], mutable: string[]): void {
    const imports = (this.chunk!.imports ??= []);
    const r = this.fresh("r");
    this.emit(`let ${r} = 0;`);
    const uses = this.int(1, 2);
    for (let u = 0; u < uses; u++) {
      switch (this.int(0, 3)) {
        case 0: {
          const energy = this.fresh("energy");
          const g = this.fresh("gradE");
          this.decl(
            `function ${energy}(a: number, b: number): number {\n  return a * a * b * ${this.constant()} + Math.sin(a * b) + Math.cos(b) * ${this.constant()};\n}`,
          );
          this.decl(`const ${g} = gradient(${energy});`);
          imports.push("gradient");
          if (this.chance(0.5)) {
            this.emit(`const [${g}x, ${g}y] = ${g}(${this.e(vars, 1)}, ${this.e(vars, 1)});`);
            this.emit(`${r} += ${g}x * ${this.contraction()} + Math.tanh(${g}x * ${g}y);`);
          } else {
            const v = this.fresh("g");
            this.emit(`const ${v} = ${g}(${this.e(vars, 1)}, ${this.e(vars, 1)});`);
            this.emit(`${r} += Math.tanh(${v}[0]) + ${v}[1] * ${this.contraction()};`);
          }
          break;
        }
        case 1: {
          const s = this.fresh("sigmoid");
          const d = this.fresh("dSigmoid");
          if (this.chance(0.5)) {
            this.decl(`function ${s}(t: number): number {\n  return 1 / (1 + Math.exp(-t));\n}`);
            this.decl(`const ${d} = derivative(${s});`);
          } else {
            this.decl(`const ${d} = derivative((t: number) => Math.tanh(t) * t);`);
          }
          imports.push("derivative");
          this.emit(`${r} += ${d}(${this.e(vars, 1)}) * ${this.constant()};`);
          break;
        }
        case 2: {
          const energy = this.fresh("potential");
          const g = this.fresh("dPotential");
          this.decl(
            `function ${energy}(p: number[]): number {\n  let s = 0;\n  for (let i = 0; i < p.length; i++) s += p[i] * p[i] * (i + 1) + Math.sin(p[i]) * ${this.constant()};\n  return s;\n}`,
          );
          this.decl(`const ${g} = gradient(${energy});`);
          imports.push("gradient");
          const gs = this.fresh("gs");
          this.emit(
            `const ${gs} = ${g}([${Array.from({ length: this.int(2, 3) }, () => this.e(vars, 1)).join(", ")}]);`,
          );
          this.emit(`for (const v of ${gs}) ${r} += Math.tanh(v) * ${this.contraction()};`);
          break;
        }
        default: {
          const energy = this.fresh("spring");
          const g = this.fresh("dSpring");
          this.decl(
            `function ${energy}(k: number, q: number): number {\n  return 0.5 * k * q * q + Math.exp(Math.sin(q)) * ${this.constant()};\n}`,
          );
          // One parameter differentiated: the gradient is a number.
          this.decl(`const ${g} = gradient(${energy}, { wrt: ${this.pick(["[1]", "1"])} });`);
          imports.push("gradient");
          this.emit(
            `${r} += ${g}(${this.e(vars, 1)}, ${this.e(vars, 1)}) * ${this.contraction()};`,
          );
        }
      }
    }
    this.result(r, vars, mutable);
  }

  scalar(vars: string[], mutable: string[]): void {
    this.statement(vars, mutable);
  }

  /** The final `return`: an expression of x and y plus what the idioms added up. */
  finalReturn(): void {
    this.emit(`return ${this.e(["x", "y"], 2)} + acc;`);
  }
}

const METHODS: Record<IdiomName, (g: IdiomGenerator, vars: string[], mutable: string[]) => void> = {
  "index-fill": (g, v, m) => g.indexFill(v, m),
  "push-grow": (g, v, m) => g.pushGrow(v, m),
  "copy-arrays": (g, v, m) => g.copyArrays(v, m),
  "copy-objects": (g, v, m) => g.copyObjects(v, m),
  "copy-matrix": (g, v, m) => g.copyMatrix(v, m),
  "optional-field": (g, v, m) => g.optionalField(v, m),
  "optional-param": (g, v, m) => g.optionalParam(v, m),
  "out-of-range": (g, v, m) => g.outOfRange(v, m),
  "optional-chaining": (g, v, m) => g.optionalChaining(v, m),
  "generated-names": (g, v, m) => g.generatedNames(v, m),
  "shadowed-globals": (g, v, m) => g.shadowedGlobals(v, m),
  "class-instances": (g, v, m) => g.classInstances(v, m),
  "nested-objects": (g, v, m) => g.nestedObjects(v, m),
  "objects-in-loops": (g, v, m) => g.objectsInLoops(v, m),
  "array-helpers": (g, v, m) => g.arrayHelpers(v, m),
  "inferred-types": (g, v, m) => g.inferredTypes(v, m),
  "generic-helpers": (g, v, m) => g.genericHelpers(v, m),
  "default-params": (g, v, m) => g.defaultParams(v, m),
  "optional-callbacks": (g, v, m) => g.optionalCallbacks(v, m),
  "function-lists": (g, v, m) => g.functionLists(v, m),
  "module-state": (g, v, m) => g.moduleState(v, m),
  "row-sums": (g, v, m) => g.rowSums(v, m),
  "array-kinds": (g, v, m) => g.arrayKinds(v, m),
  "object-assign": (g, v, m) => g.objectAssign(v, m),
  "text-keys": (g, v, m) => g.textKeys(v, m),
  "typed-shapes": (g, v, m) => g.typedShapes(v, m),
  "stacks-queues": (g, v, m) => g.stacksQueues(v, m),
  "class-unions": (g, v, m) => g.classUnions(v, m),
  "group-by": (g, v, m) => g.groupBy(v, m),
  "effect-statements": (g, v, m) => g.effectStatements(v, m),
  "lifecycle-hooks": (g, v, m) => g.lifecycleHooks(v, m),
  "constructed-classes": (g, v, m) => g.constructedClasses(v, m),
  "closure-factories": (g, v, m) => g.closureFactories(v, m),
  "everyday-arrays": (g, v, m) => g.everydayArrays(v, m),
  "records-maps": (g, v, m) => g.recordsMaps(v, m),
  "union-variants": (g, v, m) => g.unionVariants(v, m),
  "expression-trees": (g, v, m) => g.expressionTrees(v, m),
  "everyday-syntax": (g, v, m) => g.everydaySyntax(v, m),
  generators: (g, v, m) => g.generators(v, m),
  "function-fields": (g, v, m) => g.functionFields(v, m),
  "module-settings": (g, v, m) => g.moduleSettings(v, m),
  "function-records": (g, v, m) => g.functionRecords(v, m),
  "interface-strategies": (g, v, m) => g.interfaceStrategies(v, m),
  "private-members": (g, v, m) => g.privateMembers(v, m),
  "recursive-locals": (g, v, m) => g.recursiveLocals(v, m),
  "subclass-arrays": (g, v, m) => g.subclassArrays(v, m),
  "iterable-spread": (g, v, m) => g.iterableSpread(v, m),
  "returned-functions": (g, v, m) => g.returnedFunctions(v, m),
  "nested-gradients": (g, v, m) => g.nestedGradients(v, m),
};

/**
 * A program of the given idioms, from its seed: one to three uses of each (in a random order
 * for several), with scalar statements between them.
 */
export function randomIdiomProgram(seed: number, idioms: readonly IdiomName[]): IdiomProgram {
  const name = `main_${seed}`;
  const g = new IdiomGenerator(
    seed,
    name,
    idioms.some((idiom) => WHOLE_MATH.includes(idiom)),
  );
  const vars = ["x", "y"];
  const mutable: string[] = [];
  const chunks: Chunk[] = [{ idiom: "start", decls: [], body: ["  let acc = 0;"], env: [] }];
  const uses = idioms.length === 1 ? 1 + (seed % 3) : idioms.length + (seed % 2);
  for (let k = 0; k < uses; k++) {
    const idiom = k < idioms.length ? idioms[k]! : idioms[(seed >>> k) % idioms.length]!;
    if ((seed >>> (k + 3)) % 3 === 0)
      chunks.push(g.collect("scalar", () => g.scalar(vars, mutable)));
    chunks.push(g.collect(idiom, () => METHODS[idiom](g, vars, mutable)));
  }
  chunks.push(g.collect("return", () => g.finalReturn()));
  return { seed, idioms: [...idioms], name, chunks };
}
