import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertClose,
  finiteGradient,
  loadProgram,
  type Fn,
} from "./support/harness.js";

// Local functions in differentiated code (`const f = (t: number) => a * Math.sin(b * t)`):
// nabla inlines each call where it is made, in the scope the function was written in, so the
// function reads the current values of what it closes over and its writes to them are seen
// after the call. Every gradient is checked against finite differences, and against forward
// mode (the differential along each basis direction).

type Differential = (...xs: number[]) => (...ts: number[]) => number;

const PROGRAM = `import { gradient, differential } from "nabla";

/** A closure over two parameters, called twice. */
export function wave(a: number, b: number, x: number): number {
  const f = (t: number) => a * Math.sin(b * t);
  return f(x) + f(2 * x);
}

/** A closure that changes a local it captures, called in a loop. */
export function counter(x: number, y: number): number {
  let total = 0;
  const add = (v: number): void => {
    total += v * x;
  };
  for (let i = 0; i < 3; i++) add(i + y);
  return total * y;
}

/** Closures nested two levels, the inner one reading the outer one's parameter. */
export function nested(x: number, y: number): number {
  const outer = (s: number) => {
    const inner = (t: number) => t * y + s;
    return inner(s * x) * inner(x);
  };
  return outer(x + 1);
}

/** A block declares another k after the closure: the closure still reads its own k. */
export function shadowing(x: number, y: number): number {
  const k = y;
  const f = (t: number) => t * k;
  let r = 0;
  {
    const k = 100;
    r = f(x) + k * x;
  }
  return r;
}

/** A closure called from an array method's callback and inside a branch. */
export function mapped(x: number, y: number): number {
  const squash = (t: number) => Math.tanh(t * y);
  const values = [x, 2 * x, 3 * y].map((v) => squash(v) + 1);
  let s = 0;
  for (const v of values) s += v > 1.5 ? squash(v) : v * v;
  return s;
}

/** A closure with a block body and a local of its own, writing into a captured array. */
export function filler(x: number, y: number): number {
  const out = [0, 0, 0];
  const put = (i: number, v: number): void => {
    const scaled = v * y;
    out[i] = scaled * scaled;
  };
  for (let i = 0; i < 3; i++) put(i, x + i);
  return out[0] + out[1] * out[2];
}

/** A local function whose const has a function type, its parameter typed from it. */
export function typed(x: number, y: number): number {
  const cube: (t: number) => number = (t) => t * t * t * y;
  return cube(x) - cube(y);
}

export const g = {
  wave: gradient(wave),
  counter: gradient(counter),
  nested: gradient(nested),
  shadowing: gradient(shadowing),
  mapped: gradient(mapped),
  filler: gradient(filler),
  typed: gradient(typed),
};
export const d = {
  wave: differential(wave),
  counter: differential(counter),
  nested: differential(nested),
  shadowing: differential(shadowing),
  mapped: differential(mapped),
  filler: differential(filler),
  typed: differential(typed),
};
`;

const POINTS: number[][] = [
  [0.4, 1.3],
  [-0.7, 0.55],
  [1.1, -0.9],
];

test("local functions: gradients agree with finite differences and with forward mode", async () => {
  const m = await loadProgram<{
    g: Record<string, (...xs: number[]) => number[]>;
    d: Record<string, Differential>;
    [name: string]: unknown;
  }>({ "main.ts": PROGRAM });
  for (const name of Object.keys(m.g)) {
    const f = m[name] as Fn;
    for (const point of POINTS) {
      const args = name === "wave" ? [1.5, ...point] : point;
      const gradient = m.g[name]!(...args);
      const expected = finiteGradient(f, args);
      gradient.forEach((gi, i) => {
        assertClose(gi, expected[i]!, 1e-6, `${name} at ${args}: ∂/∂x${i}, finite differences`);
        const basis = args.map((_, j) => (j === i ? 1 : 0));
        const forward = m.d[name]!(...args)(...basis);
        assertClose(gi, forward, 1e-12, `${name} at ${args}: ∂/∂x${i}, forward mode`);
      });
    }
  }
});

test("a closure that changes what it captures: its writes are seen after the call", async () => {
  const m = await loadProgram<{ counter: Fn }>({ "main.ts": PROGRAM });
  // total = Σᵢ (i + y)·x = x(3 + 3y); the result is x(3 + 3y)·y.
  assert.equal(m.counter(2, 0.5), 2 * (3 + 1.5) * 0.5);
});

test("a local function that calls itself, in a lambda given to an operator, runs as a function of its own", async () => {
  // It was NABLA101 "calls itself" (see recursive-local-functions.test.ts).
  const m = await loadProgram<{ g: (x: number) => number }>({
    "main.ts": `import { gradient } from "nabla";
export const g = gradient((x: number) => {
  const f = (n: number): number => (n > 0 ? x * f(n - 1) : 1);
  return f(3);
});
`,
  });
  assertClose(m.g(1.3), 3 * 1.3 * 1.3, 1e-15, "d(x³)/dx");
});

test("a nested lambda's own parameter is not a capture, even where the enclosing function declares that name later", async () => {
  const m = await loadProgram<{ solve: () => number[] }>({
    "main.ts": `import { gradient } from "nabla";
function descend(loss: (p: number[]) => number, p: number[]): number[] {
  const g = gradient(loss)(p);
  return [p[0]! - 0.1 * g[0]!];
}
function sumOf(f: (x: number) => number): number {
  return f(1) + f(2);
}
export function solve(): number[] {
  const step = descend((p: number[]) => sumOf((b) => b * p[0]! + ({ b: 2 }).b), [1]);
  const b = 5;
  return [step[0]!, b];
}
`,
  });
  // d/dp (1·p + 2 + 2·p + 2) = 3: one step of 0.1 from 1.
  assert.deepEqual(m.solve(), [0.7, 5]);
});

test("a local function that returns early: each call merges its returns, in forward and reverse mode", async () => {
  const m = await loadProgram<{
    piecewise: Fn;
    g: (...xs: number[]) => number[];
    d: Differential;
    mode: (x: number, y: number) => number;
  }>({
    "main.ts": `import { gradient, differential } from "nabla";
export function piecewise(x: number, y: number): number {
  const clamp = (t: number): number => {
    if (t < -1) return -1;
    if (t > 1) {
      return 1 + 0.1 * (t - 1);
    }
    for (let k = 0; k < 3; k++) {
      if (t * k > 0.5) return t * k;
    }
    return t * t;
  };
  const pair = (t: number): number[] => {
    if (t > 0) return [t, y * t];
    return [y, t];
  };
  let s = 0;
  for (let i = 0; i < 4; i++) {
    const p = pair(x - i * 0.3);
    s += clamp(x * i - y) * p[0] + p[1];
  }
  return s;
}
export const g = gradient(piecewise);
export const d = differential(piecewise);
export const mode = (x: number, y: number) => piecewise(x, y);
`,
  });
  for (const point of [
    [0.4, 1.3],
    [-0.7, 0.55],
    [1.1, -0.9],
    [2.2, 0.1],
  ]) {
    const gradient = m.g(...point);
    const expected = finiteGradient(m.piecewise, point);
    gradient.forEach((gi, i) => {
      assertClose(gi, expected[i]!, 1e-6, `at ${point}: ∂/∂x${i}, finite differences`);
      const basis = point.map((_, j) => (j === i ? 1 : 0));
      assertClose(gi, m.d(...point)(...basis), 1e-12, `at ${point}: ∂/∂x${i}, forward mode`);
    });
  }
});

test("a local function that returns early takes its return type from TypeScript", async () => {
  const m = await loadProgram<{ f: Fn; g: Fn; d: (x: number) => number }>({
    "main.ts": `import { derivative, gradient } from "nabla";
export function f(x: number): number {
  const h = (t: number) => {
    if (t > 0) return t;
    return -t;
  };
  return h(x) * x;
}
export const g = gradient(f);
export const d = derivative(f);
`,
  });
  for (const x of [0.7, -1.3]) {
    assertClose(m.g(x), 2 * Math.abs(x), 1e-12, `gradient at ${x}`);
    assertClose(m.d(x), 2 * Math.abs(x), 1e-12, `derivative at ${x}`);
  }
});
