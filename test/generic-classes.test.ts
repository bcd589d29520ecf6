import assert from "node:assert/strict";
import { test } from "node:test";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Generic classes (types/generic-classes.ts): each list of type arguments the program uses a
// class with is a class of its own to nabla, its fields typed and its methods lowered with the
// type parameters standing for them. Checked against central differences and forward mode
// against reverse mode.

test("a moving average over a RingBuffer<number>: explicit type argument, methods, a getter, fields read and written", async () => {
  // Before, NABLA101 "'new RingBuffer': a generic class ('RingBuffer<T>') is not supported".
  await checkTwoWays(`class RingBuffer<T> {
  private items: T[] = [];
  private start = 0;
  constructor(private readonly capacity: number) {}
  push(x: T): void {
    if (this.items.length < this.capacity) {
      this.items.push(x);
    } else {
      this.items[this.start] = x;
      this.start = (this.start + 1) % this.capacity;
    }
  }
  get size(): number {
    return this.items.length;
  }
  get(i: number): T {
    return this.items[(this.start + i) % this.items.length];
  }
}

function smooth(signal: number[], window: number): number[] {
  const buffer = new RingBuffer<number>(window);
  const out: number[] = [];
  for (const sample of signal) {
    buffer.push(sample);
    let sum = 0;
    for (let i = 0; i < buffer.size; i++) sum += buffer.get(i);
    out.push(sum / buffer.size);
  }
  return out;
}

export function f(x: number, y: number): number {
  const smoothed = smooth([x, y, x * y, Math.sin(x), y * y, x - y], 3);
  return smoothed.reduce((total, s) => total + s * s, 0);
}`);
});

test("a Pair<Vec, number> with inferred type arguments, passed to a function typed with the instantiation", async () => {
  await checkTwoWays(`interface Vec {
  x: number;
  y: number;
}

class Pair<A, B> {
  constructor(
    public first: A,
    public second: B,
  ) {}
  withSecond(second: B): Pair<A, B> {
    return new Pair(this.first, second);
  }
}

function weighted(p: Pair<Vec, number>): number {
  return (p.first.x * p.first.x + p.first.y) * p.second;
}

export function f(x: number, y: number): number {
  const p = new Pair({ x, y }, x * y);
  const q = p.withSecond(Math.exp(y));
  q.first = { x: y, y: x };
  return weighted(p) + weighted(q);
}`);
});

test("one generic Stack<T> used with numbers and with a class in one program, instances kept in an array", async () => {
  await checkTwoWays(`class Stack<T> {
  private items: T[] = [];
  push(item: T): void {
    this.items.push(item);
  }
  pop(): T {
    const top = this.items[this.items.length - 1];
    this.items.length -= 1;
    return top;
  }
  peek(): T {
    return this.items[this.items.length - 1];
  }
  get depth(): number {
    return this.items.length;
  }
}

class Particle {
  constructor(
    public position: number,
    public mass: number,
  ) {}
  energy(): number {
    return 0.5 * this.mass * this.position * this.position;
  }
}

export function f(x: number, y: number): number {
  const numbers = new Stack<number>();
  const particles: Stack<Particle> = new Stack();
  for (let i = 1; i <= 3; i++) {
    numbers.push(x * i);
    particles.push(new Particle(y + i, x));
  }
  const stacks: Stack<number>[] = [numbers, new Stack<number>()];
  stacks[1].push(y);
  let total = stacks[1].peek() * numbers.depth;
  while (particles.depth > 1) total += particles.pop().energy() * numbers.pop();
  return total + particles.peek().energy();
}`);
});

test("a linked list of ListNode<T> built with inferred type arguments, an arrow field and a method returning Box<T>", async () => {
  await checkTwoWays(`class ListNode<T> {
  next: ListNode<T> | undefined = undefined;
  constructor(public value: T) {}
}

class Box<T> {
  constructor(public value: T) {}
  weigh = (k: number) => k * 2;
  with(value: T): Box<T> {
    return new Box(value);
  }
}

export function f(x: number, y: number): number {
  const head = new ListNode(x);
  head.next = new ListNode(y);
  head.next.next = new ListNode(x * y);
  let sumOfSquares = 0;
  for (let node: ListNode<number> | undefined = head; node; node = node.next)
    sumOfSquares += node.value * node.value;
  const box = new Box(x);
  const other = box.with(box.value * y);
  return sumOfSquares + other.value + box.weigh(y);
}`);
});

test("methods of a generic class returning 'this' for chaining, unannotated and annotated ': this'", async () => {
  // Before, NABLA101 "calling a property access on a number": the checker's type of their
  // result is Stack<T>, which nabla has no type for, and it took them to return a number.
  await checkTwoWays(`class Stack<T> {
  private items: T[] = [];
  push(v: T) {
    this.items.push(v);
    return this;
  }
  pushAll(vs: T[]): this {
    for (const v of vs) this.push(v);
    return this;
  }
  pop(): T | undefined {
    return this.items.pop();
  }
  get size() {
    return this.items.length;
  }
}
export function f(x: number, y: number): number {
  const s = new Stack<number>();
  s.push(x).push(y).pushAll([x * y, 2]).push(y);
  let acc = 0;
  while (s.size > 1) {
    const a = s.pop()!;
    const b = s.pop()!;
    s.push(a * b + 1);
    acc += a;
  }
  return acc + (s.pop() ?? 0);
}`);
});

test("a subclass of a generic class, or a generic class whose type arguments cannot be told, is still reported", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
class Stack<T> {
  items: T[] = [];
  push(item: T): void {
    this.items.push(item);
  }
}
class NumberStack extends Stack<number> {
  sum(): number {
    return this.items.reduce((a, b) => a + b, 0);
  }
}
class Box<T> {
  constructor(public value: T) {}
}
export function f(x: number) {
  const s = new NumberStack();
  s.push(x);
  return s.sum();
}
export function g(x: number) {
  return new Box<number | string>(x).value === x ? x : 0;
}
export const df = gradient(f);
export const dg = gradient(g);
`,
    }),
  );
  assert.match(
    text,
    /main\.ts:17:13: error NABLA101: 'new NumberStack': a generic class \('Stack<T>'\) that extends a class or that classes extend is not supported in differentiable code yet\n[^]*help: declare the classes of the hierarchy without type parameters \(the type you use in place of 'T'\); a generic class outside a hierarchy is supported/,
  );
  assert.match(
    text,
    /main\.ts:22:10: error NABLA101: 'new Box': nabla cannot tell which types this instance of the generic class 'Box<T>' is of, or cannot differentiate through them\n[^]*help: write the type arguments where the instance is made \('new Box<number>\(…\)'\): numbers, arrays, interfaces or classes of the program/,
  );
});
