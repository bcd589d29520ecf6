import assert from "node:assert/strict";
import { test } from "node:test";
import {
  assertClose,
  centralDifference,
  compileFiles,
  diagnosticsText,
  loadProgram,
} from "./support/harness.js";

// An arrow given to an operator inside a method reads the instance through `this`, as
// JavaScript's arrows do (`valueWithGradient((p) => this.loss(p))`): the instance is a capture
// of the arrow (resolve/captures.ts), bound to the method's `this` where the operator is called.

const SPRING = `import { derivative, differential, gradient, hessian, jacobian, pullback, valueWithGradient } from "nabla";

export class Spring {
  constructor(public k: number, public rest: number, private readonly damping = 0.1) {}
  energy(x: number): number {
    return 0.5 * this.k * (x - this.rest) ** 2 + this.damping * x;
  }
  force(x: number): number {
    return -derivative((u: number) => this.energy(u), { backend: BACKEND })(x);
  }
  stiffness(x: number): number {
    return derivative((u: number) => derivative((v: number) => this.energy(v))(u))(x);
  }
  grad(p: number[]): number[] {
    return gradient((q: number[]) => this.energy(q[0]) * q[1] + this.k * q[0], { backend: BACKEND })(p);
  }
  hess(p: number[]): number[][] {
    return hessian((q: number[]) => this.energy(q[0]) * q[1])(p);
  }
  jac(p: number[]): number[][] {
    return jacobian((q: number[]) => [this.energy(q[0]), q[1] * this.rest])(p);
  }
  mixed(x: number): number {
    const { value, gradient: g } = valueWithGradient((u: number) =>
      [1, 2].reduce((s, w) => s + w * this.energy(u), 0),
    )(x);
    return value + g + pullback((u: number) => this.energy(u) * 2)(x)(1) + differential((u: number) => this.energy(u))(x)(1);
  }
  dEdk(x: number): number[] {
    return gradient((p: number[]) => {
      const old = this.k;
      this.k = p[0];
      const e = this.energy(x) * p[1];
      this.k = old;
      return e;
    })([this.k, 2]);
  }
  get slope(): number {
    return derivative((u: number) => this.energy(u))(this.rest + 1);
  }
}
`;

interface Spring {
  k: number;
  energy(x: number): number;
  force(x: number): number;
  stiffness(x: number): number;
  grad(p: number[]): number[];
  hess(p: number[]): number[][];
  jac(p: number[]): number[][];
  mixed(x: number): number;
  dEdk(x: number): number[];
  slope: number;
}

async function springs(backend: string): Promise<Spring> {
  const m = await loadProgram<{ Spring: new (k: number, rest: number) => Spring }>({
    "main.ts": SPRING.replaceAll("BACKEND", JSON.stringify(backend)),
  });
  return new m.Spring(3, 1.5);
}

test("'this' in arrows given to every operator inside methods: the instance's values, checked against differences", async () => {
  const s = await springs("js");
  const x = 2.2;
  const de = (u: number) => centralDifference((v) => s.energy(v), u);
  assertClose(s.force(x), -de(x), 1e-7, "force");
  assertClose(s.stiffness(x), 3, 1e-12, "stiffness (nested derivative)");
  const [g0, g1] = s.grad([x, 2]);
  assertClose(g0!, 2 * de(x) + 3, 1e-7, "gradient, ∂/∂q0");
  assertClose(g1!, s.energy(x), 1e-12, "gradient, ∂/∂q1");
  assert.deepEqual(
    s.hess([x, 2]).map((r) => r.map((v) => Math.round(v * 1e9) / 1e9)),
    [
      [6, Math.round(de(x) * 1e6) / 1e6],
      [Math.round(de(x) * 1e6) / 1e6, 0],
    ],
  );
  const j = s.jac([x, 2]);
  assertClose(j[0]![0]!, de(x), 1e-7, "jacobian");
  assert.equal(j[1]![1], 1.5);
  assertClose(
    s.mixed(x),
    3 * s.energy(x) + 6 * de(x),
    1e-7,
    "valueWithGradient, pullback, differential",
  );
  const [dk, dscale] = s.dEdk(2.5);
  assertClose(dk!, 0.5 * 2, 1e-12, "a field of 'this' written inside the arrow, reverse mode");
  assertClose(dscale!, s.energy(2.5), 1e-12, "∂/∂p1");
  assert.equal(s.k, 3, "the field written back");
  assertClose(s.slope, 3.1, 1e-12, "in a getter");
});

test("'this' in an arrow given to an operator with backend 'wasm': JavaScript's results to the bit", async () => {
  const js = await springs("js");
  const wasm = await springs("wasm");
  for (const x of [0.3, 2.2, -1.7]) {
    assert.ok(Object.is(wasm.force(x), js.force(x)), `force(${x})`);
    assert.deepEqual(wasm.grad([x, 2]), js.grad([x, 2]));
  }
});

test("'this' in an arrow in a static method, where there is no instance, is refused", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { derivative } from "nabla";
export class Units {
  static scale = 2;
  static slope(x: number): number {
    return derivative((u: number) => u * this.scale)(x);
  }
}
`,
    }),
  );
  assert.match(text, /main\.ts:5:42: error NABLA101: 'this' is only supported in methods/);
});

test("'this' read by a local function an operator is given, by an arrow passed to a function that differentiates it, and two operators deep", async () => {
  const m = await loadProgram<{
    Model: new (w: number) => { slope(x: number): number; twice(x: number): number };
    Cubic: new (a: number) => { root(): number };
  }>({
    "main.ts": `import { derivative } from "nabla";
export class Model {
  constructor(private w: number) {}
  out(x: number): number {
    return Math.sin(this.w * x);
  }
  slope(x: number): number {
    const f = (u: number) => this.out(u) * 2;
    const df = derivative(f);
    return df(x);
  }
  twice(x: number): number {
    const inner = (u: number) => derivative((v: number) => this.out(v))(u);
    return derivative(inner)(x);
  }
}
function newton(f: (x: number) => number, x0: number): number {
  let x = x0;
  const df = derivative(f);
  for (let i = 0; i < 30; i++) x -= f(x) / df(x);
  return x;
}
export class Cubic {
  constructor(private a: number) {}
  value(x: number): number {
    return x * x * x - this.a;
  }
  root(): number {
    return newton((x) => this.value(x), 1);
  }
}
`,
  });
  const model = new m.Model(1.3);
  assertClose(model.slope(0.4), 2 * 1.3 * Math.cos(1.3 * 0.4), 1e-12, "a local function");
  assertClose(model.twice(0.4), -1.3 * 1.3 * Math.sin(1.3 * 0.4), 1e-12, "nested");
  assertClose(new m.Cubic(8).root(), 2, 1e-12, "passed to newton, which differentiates it");
});

test("'this' in an arrow an operator is given in a constructor (kept in a field), and in jacobian and hessian with several parameters", async () => {
  const m = await loadProgram<{
    Fit: new (
      xs: number[],
      ys: number[],
    ) => {
      g(p: number[]): number[];
      jac2(a: number, b: number): unknown;
      hess2(a: number, b: number): unknown;
    };
  }>({
    "main.ts": `import { gradient, hessian, jacobian } from "nabla";
export class Fit {
  private readonly grad: (p: number[]) => number[];
  constructor(private xs: number[], private ys: number[]) {
    this.grad = gradient((p: number[]) => this.loss(p));
  }
  loss(p: number[]): number {
    return this.xs.reduce((s, x, i) => s + (p[0] * x + p[1] - this.ys[i]) ** 2, 0);
  }
  g(p: number[]) {
    return this.grad(p);
  }
  jac2(a: number, b: number) {
    return jacobian((u: number, v: number) => [u * this.xs[0], v * u * this.ys[1]], { wrt: [0, 1] })(a, b);
  }
  hess2(a: number, b: number) {
    return hessian((u: number, v: number) => this.xs[0] * u * u * v, { wrt: [0, 1] })(a, b);
  }
}
`,
  });
  const fit = new m.Fit([1, 2], [3, 5]);
  assert.deepEqual(fit.g([1, 1]), [-10, -6]);
  assert.deepEqual(fit.jac2(2, 3), [
    [1, 0],
    [15, 10],
  ]);
  assert.deepEqual(fit.hess2(2, 3), [
    [6, 4],
    [4, 0],
  ]);
});
