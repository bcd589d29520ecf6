import { isArray } from "../ir/type-system.js";
import { constantNumber, loopCounters, type LoopCounter } from "../ir/loop-counters.js";
import type { IRFunction, Op, Region, Value } from "../ir/types.js";

// Stores into a typed array that cannot fall outside it. JavaScript ignores a write to a
// Float64Array past its end (or at -1, or 1.5), and so does the write to its shadow; the
// backward sweep then finds no element where it takes the write's adjoint back (undefined, a
// NaN gradient), so it reads one as zero — except where the index is known in range, which
// keeps the code of the usual loops (`for (let i = 0; i < a.length; i++) a[i] = …`) as it
// was. A typed array's length never changes, and its shadow's is the array's.

/** Where a loop counter runs: its loop's test says `p < bound` (or `p >= 0` counting down). */
interface CounterInLoop {
  counter: LoopCounter;
  /** The condition's test, and which of the `before` parameters the counter is. */
  test: Op | undefined;
  before: Value;
}

export class TypedStoreBounds {
  private readonly definitions = new Map<number, Op>();
  private readonly counters = new Map<number, CounterInLoop>();

  constructor(fn: IRFunction) {
    const visit = (region: Region) => {
      for (const op of region.ops) {
        for (const r of op.results) this.definitions.set(r.id, op);
        op.regions.forEach(visit);
      }
    };
    visit(fn.body);
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
    loops(fn.body);
  }

  /** Whether `array[index] = …` writes an element of `array` whenever it runs. */
  inBounds(array: Value, index: Value): boolean {
    if (!isArray(array.type) || array.type.storage === "Array") return true;
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
