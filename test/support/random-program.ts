// A generator of random small differentiable programs: arithmetic, Math calls, branches,
// loops with break/continue, early returns and calls to helper functions. Values are kept
// bounded (squashing functions, contracting updates) so finite differences stay meaningful.
// Programs are derived from a seed, so a failure is reproduced from the seed it prints.

export interface RandomProgram {
  seed: number;
  /** Source of the helper functions and `main_<seed>(x: number, y: number): number`. */
  source: string;
  name: string;
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Generator {
  protected readonly random: () => number;
  protected readonly lines: string[] = [];
  protected indentLevel = 1;
  protected counter = 0;
  protected loopDepth = 0;

  constructor(
    seed: number,
    private readonly helpers: string[],
  ) {
    this.random = rng(seed);
  }

  protected pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  protected chance(p: number): boolean {
    return this.random() < p;
  }

  /** A literal, parenthesized when negative so it can stand anywhere (even before `**`). */
  protected constant(): string {
    const c = Math.round((this.random() * 4 - 2) * 100) / 100;
    return c < 0 ? `(${c})` : String(c);
  }

  /** A bounded-ish expression over the variables in scope. */
  expression(vars: string[], depth: number): string {
    if (depth <= 0 || this.chance(0.25))
      return this.chance(0.8) ? this.leaf(vars) : this.constant();
    // Operands are parenthesized, so each function gets the argument it was meant to.
    const a = () => `(${this.expression(vars, depth - 1)})`;
    switch (Math.floor(this.random() * 12)) {
      case 0:
        return `${a()} + ${a()}`;
      case 1:
        return `${a()} - ${a()}`;
      case 2:
        return `${a()} * ${this.constant()}`;
      case 3:
        return `Math.sin(${a()}) * ${a()}`;
      case 4:
        return `Math.tanh(${a()} * ${a()})`;
      case 5:
        return `${a()} / (1 + ${a()} ** 2)`;
      case 6:
        return `Math.log(1 + Math.abs(${a()}) + ${a()} ** 2)`;
      case 7:
        return `Math.sqrt(1 + ${a()} ** 2)`;
      case 8:
        return `Math.exp(Math.sin(${a()}))`;
      case 9:
        return `Math.atan2(${a()}, 1 + ${a()} ** 2)`;
      case 10:
        return this.helpers.length
          ? `${this.pick(this.helpers)}(${a()}, ${a()})`
          : `Math.cos(${a()})`;
      default:
        return `(${this.condition(vars)} ? ${a()} : ${a()})`;
    }
  }

  /** A variable of `vars`; subclasses add other leaves (element reads, calls). */
  protected leaf(vars: string[]): string {
    return this.pick(vars);
  }

  /** The statement an early exit runs (`return <expression>;`, or `return;` in a void function). */
  protected earlyReturn(vars: string[]): string {
    return `return ${this.expression(vars, 2)};`;
  }

  condition(vars: string[]): string {
    const op = this.pick(["<", ">", "<=", ">="]);
    const base = `${this.expression(vars, 1)} ${op} ${this.constant()}`;
    return this.chance(0.2)
      ? `${base} && ${this.pick(vars)} ${this.pick(["<", ">"])} ${this.constant()}`
      : base;
  }

  protected emit(line: string): void {
    this.lines.push("  ".repeat(this.indentLevel) + line);
  }

  protected block(vars: string[], statements: number, mutable: string[]): void {
    for (let i = 0; i < statements; i++) this.statement(vars, mutable);
  }

  statement(vars: string[], mutable: string[]): void {
    const roll = this.random();
    if (roll < 0.3 || mutable.length === 0) {
      const v = `v${this.counter++}`;
      this.emit(`let ${v} = ${this.expression(vars, 2)};`);
      vars.push(v);
      mutable.push(v);
    } else if (roll < 0.5) {
      const v = this.pick(mutable);
      const op = this.pick(["=", "+=", "-=", "*="]);
      const rhs = op === "*=" ? `Math.cos(${this.expression(vars, 1)})` : this.expression(vars, 2);
      this.emit(`${v} ${op} ${rhs};`);
      if (op !== "*=") this.emit(`${v} = Math.tanh(${v} * 0.5) * 4;`);
    } else if (roll < 0.65) {
      this.emit(`if (${this.condition(vars)}) {`);
      this.nested(() => this.block([...vars], 1 + Math.floor(this.random() * 2), [...mutable]));
      if (this.chance(0.6)) {
        this.emit("} else {");
        this.nested(() => this.block([...vars], 1 + Math.floor(this.random() * 2), [...mutable]));
      }
      this.emit("}");
    } else if (roll < 0.8 && this.loopDepth < 2) {
      this.loop(vars, mutable);
    } else if (roll < 0.87) {
      this.emit(`if (${this.condition(vars)}) ${this.earlyReturn(vars)}`);
    } else if (this.loopDepth > 0 && roll < 0.95) {
      this.emit(`if (${this.condition(vars)}) ${this.pick(["break", "continue"])};`);
    } else {
      const v = this.pick(mutable);
      this.emit(`${v} ${this.pick(["++", "--"])};`);
    }
  }

  protected loop(vars: string[], mutable: string[]): void {
    const i = `i${this.counter++}`;
    const n = 1 + Math.floor(this.random() * 5);
    const kind = this.pick(["for", "while", "do"]);
    this.loopDepth++;
    const body = () =>
      this.nested(() => this.block([...vars, i], 1 + Math.floor(this.random() * 3), [...mutable]));
    if (kind === "for") {
      this.emit(`for (let ${i} = 0; ${i} < ${n}; ${i}++) {`);
      body();
      this.emit("}");
    } else if (kind === "while") {
      this.emit(`let ${i} = 0;`);
      this.emit(`while (${i} < ${n}) {`);
      this.nested(() => this.emit(`${i}++;`));
      body();
      this.emit("}");
    } else {
      this.emit(`let ${i} = 0;`);
      this.emit("do {");
      this.nested(() => this.emit(`${i} += 1;`));
      body();
      this.emit(`} while (${i} < ${n});`);
    }
    this.loopDepth--;
  }

  protected nested(fn: () => void): void {
    this.indentLevel++;
    fn();
    this.indentLevel--;
  }

  body(params: string[]): string {
    const vars = [...params];
    const mutable: string[] = [];
    this.block(vars, 3 + Math.floor(this.random() * 4), mutable);
    this.emit(`return ${this.expression(vars, 2)};`);
    return this.lines.join("\n");
  }
}

export function randomProgram(seed: number): RandomProgram {
  const helperCount = seed % 3;
  const helpers: string[] = [];
  const parts: string[] = [];
  for (let h = 0; h < helperCount; h++) {
    const name = `helper_${seed}_${h}`;
    const body = new Generator(seed * 31 + h + 1, [...helpers]).body(["a", "b"]);
    parts.push(`function ${name}(a: number, b: number): number {\n${body}\n}`);
    helpers.push(name);
  }
  const name = `main_${seed}`;
  parts.push(
    `export function ${name}(x: number, y: number): number {\n${new Generator(seed, helpers).body(["x", "y"])}\n}`,
  );
  return { seed, source: parts.join("\n\n"), name };
}
