import { constantNumber, loopCounters, type LoopCounter } from "./loop-counters.js";
import type { Op, Region, Value } from "./types.js";

// Stores whose index is known to name an element of the array: a whole number from 0 to below
// its length, so the write neither falls outside a typed array (JavaScript ignores such a
// write; differentiate/backward-sweep.ts) nor leaves holes in a plain one (lower/hole-checks.ts).
// Known: a constant below the length of a literal or an allocation of constant size, and the
// counter of a loop stepping up from a whole number ≥ 0 while below the array's length (or
// down to 0 from below it), as in `for (let i = 0; i < a.length; i++) a[i] = …`. The length is
// the one the array was made with: a typed array's never changes, and the caller rules out a
// plain array that a function shortens.

/** Where a loop counter runs: its loop's test says `p < bound` (or `p >= 0` counting down). */
interface CounterInLoop {
  counter: LoopCounter;
  /** The condition's test, and which of the `before` parameters the counter is. */
  test: Op | undefined;
  before: Value;
}

export class StoreBounds {
  private readonly definitions = new Map<number, Op>();
  private readonly counters = new Map<number, CounterInLoop>();

  constructor(body: Region) {
    const visit = (region: Region) => {
      for (const op of region.ops) {
        for (const r of op.results) this.definitions.set(r.id, op);
        op.regions.forEach(visit);
      }
    };
    visit(body);
    const definitionOf = (id: number) => this.definitions.get(id);
    const loops = (region: Region) => {
      for (const op of region.ops) {
        op.regions.forEach(loops);
        if (op.opcode !== "loop") continue;
        const [before, after] = op.regions as [Region, Region];
        const condition = before.ops[before.ops.length - 1]!;
        const test = this.definitions.get(condition.operands[0]!.id);
        const found = loopCounters(op, definitionOf);
        after.params.forEach((q, k) => {
          const counter = found.get(q.id);
          if (counter) this.counters.set(q.id, { counter, test, before: before.params[k]! });
        });
      }
    };
    loops(body);
  }

  /** Whether `array[index] = …` writes an element `array` has whenever it runs. */
  within(array: Value, index: Value): boolean {
    const length = this.lengthOf(array);
    const at = this.constant(index);
    if (at !== undefined) {
      const size = length.startsWith("c") ? Number(length.slice(1)) : undefined;
      return size !== undefined && Number.isInteger(at) && at >= 0 && at < size;
    }
    const loop = this.counters.get(index.id);
    if (!loop) return false;
    const { counter, test, before } = loop;
    const start = this.constant(counter.init);
    const step = counter.step;
    if (!Number.isInteger(step) || step === 0 || !test) return false;
    const [a, b] = test.operands as [Value, Value];
    if (step > 0) {
      // `for (let i = k; i < n; i += s)`, k ≥ 0 a whole number, n the array's length.
      const upTo =
        test.opcode === "lt" && a === before
          ? b
          : test.opcode === "gt" && b === before
            ? a
            : undefined;
      return (
        start !== undefined &&
        Number.isInteger(start) &&
        start >= 0 &&
        upTo !== undefined &&
        this.lengthOfNumber(upTo) === length
      );
    }
    // `for (let i = n - k; i >= 0; i -= s)`, k ≥ 1 a whole number, n the array's length.
    const downTo =
      (test.opcode === "ge" && a === before && this.constant(b) === 0) ||
      (test.opcode === "gt" && a === before && this.constant(b) === -1);
    const init = this.definitions.get(counter.init.id);
    if (!downTo || init?.opcode !== "sub") return false;
    const [n, k] = init.operands as [Value, Value];
    const less = this.constant(k);
    return (
      less !== undefined && Number.isInteger(less) && less >= 1 && this.lengthOfNumber(n) === length
    );
  }

  /**
   * Whether `index` is at most `array.length` whenever it is a whole number ≥ 0: 0,
   * `a.length` (an append), `a.length - k` (k ≥ 0), a constant within a literal, or within().
   * A write there leaves no hole (a negative or fractional index names a property).
   */
  atMostLength(array: Value, index: Value): boolean {
    const at = this.constant(index);
    if (at !== undefined) {
      if (!Number.isInteger(at) || at <= 0) return true;
      const length = this.lengthOf(array);
      return length.startsWith("c") && at <= Number(length.slice(1));
    }
    const def = this.definitions.get(index.id);
    if (def?.opcode === "length") return def.operands[0] === array;
    if (def?.opcode === "sub") {
      const [n, k] = def.operands as [Value, Value];
      const less = this.constant(k);
      const length = this.definitions.get(n.id);
      if (less !== undefined && less >= 0 && length?.opcode === "length")
        return length.operands[0] === array;
    }
    return this.within(array, index);
  }

  private constant(v: Value): number | undefined {
    return constantNumber(v, (id) => this.definitions.get(id));
  }

  /** A name for an array's length: arrays with the same name have the same length. */
  private lengthOf(array: Value): string {
    const def = this.definitions.get(array.id);
    if (def?.opcode === "alloc") return this.lengthOfNumber(def.operands[0]!);
    if (def?.opcode === "literal") return `c${def.operands.length}`;
    if (def?.opcode === "zeros") return this.lengthOf(def.operands[0]!);
    return `a${array.id}`;
  }

  /** The name of the length a number is: `a.length`, a constant, or itself. */
  private lengthOfNumber(n: Value): string {
    const def = this.definitions.get(n.id);
    if (def?.opcode === "length") return this.lengthOf(def.operands[0]!);
    const k = this.constant(n);
    return k !== undefined ? `c${k}` : `n${n.id}`;
  }
}
