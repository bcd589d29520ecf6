import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import {
  derivative,
  differential,
  gradient,
  jacobian,
  NotCompiledError,
  valueWithGradient,
} from "../src/runtime/index.js";
import { REPO_ROOT, writeProgram } from "./support/harness.js";

// The no-build fallback: this file is compiled by tsc, not by nabla, so every operator here
// runs uncompiled and compiles its self-contained function from source text at run time.
// Gradients are checked against central differences and against forward mode.

const close = (actual: number, expected: number, tolerance = 1e-6) =>
  assert.ok(
    Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)),
    `${actual} vs ${expected}`,
  );

function centralDifference(f: (x: number[]) => number, x: number[], i: number): number {
  const h = 1e-6;
  const up = [...x];
  const down = [...x];
  up[i]! += h;
  down[i]! -= h;
  return (f(up) - f(down)) / (2 * h);
}

function loss(w: number[], xs: number[], ys: number[]): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) {
    let prediction = 0;
    for (let j = 0; j < w.length; j++) prediction += w[j]! * xs[i]! ** j;
    const r = Math.tanh(prediction) - ys[i]!;
    sum += r * r;
  }
  return sum / xs.length;
}

test("a self-contained function is compiled at run time: gradient = differences = forward mode", () => {
  const xs = [0, 0.5, 1, 1.5];
  const ys = [0.1, 0.4, 0.7, 0.8];
  const w = [0.2, 0.3, -0.1];
  const g = gradient(loss, { wrt: 0 })(w, xs, ys);
  const forward = differential(loss, { wrt: 0 })(w, xs, ys);
  for (let i = 0; i < w.length; i++) {
    close(
      g[i]!,
      centralDifference((v) => loss(v, xs, ys), w, i),
    );
    const basis = w.map((_, j) => (j === i ? 1 : 0));
    close(g[i]!, forward(basis), 1e-12);
  }
});

test("the fallback takes objects and typed arrays, with the types of the first call's arguments", () => {
  const energy = (p: { x: number; v: Float64Array }) => p.x * p.x + p.v[0]! * p.v[1]!;
  const result = valueWithGradient(energy)({ x: 3, v: new Float64Array([2, 5]) });
  assert.equal(result.value, 19);
  assert.equal(result.gradient.x, 6);
  assert.deepEqual([...result.gradient.v], [5, 2]);

  // Another kind of argument compiles another derivative of the same function.
  const sumSquares = (v: ArrayLike<number>) => {
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
    return s;
  };
  assert.deepEqual(gradient(sumSquares)([1, 2]), [2, 4]);
  assert.deepEqual([...(gradient(sumSquares)(new Float64Array([3])) as Float64Array)], [6]);
});

test("local functions, methods and nested operators in a self-contained function", () => {
  const shapes = {
    area(r: number) {
      const square = (t: number) => t * t;
      return Math.PI * square(r);
    },
  };
  close(derivative(shapes.area)(2), 4 * Math.PI, 1e-12);
  const slopeOfSlope = (x: number) => derivative((t: number) => t * t * t)(x);
  close(derivative(slopeOfSlope)(2), 12, 1e-12);
  assert.deepEqual(jacobian((v: number[]) => [v[0]! * v[1]!, v[0]! + v[1]!])([2, 3]), [
    [3, 2],
    [1, 1],
  ]);
});

test("a closure over a free variable gets the documented error, naming the variable", () => {
  const k = 3;
  assert.throws(
    () => gradient((x: number) => k * x),
    (error: unknown) => {
      assert.ok(error instanceof NotCompiledError);
      assert.equal(error.freeVariable, "k");
      assert.match(error.message, /^nabla: gradient\(…\) ran without being compiled/);
      assert.match(error.message, /it uses 'k', defined outside it/);
      assert.match(
        error.message,
        /'nabla run file\.ts' or 'node --import nabla\/register file\.ts'/,
      );
      assert.match(error.message, /'nabla\/plugin', or pass 'k' to it as a parameter\.$/);
      return true;
    },
  );
  // A call to a function defined elsewhere is a free variable too.
  assert.throws(() => derivative((x: number) => loss([x], [1], [0])), /it uses 'loss'/);
});

test("a function with no source, or that nabla cannot differentiate, says so", () => {
  assert.throws(
    () => derivative(Math.sin),
    /'sin' cannot be compiled .*: its source text is not a plain function/,
  );
  const rounded = (x: number) => Number(x.toFixed(2)) * x;
  assert.throws(
    () => derivative(rounded)(1),
    /could not differentiate 'rounded' at run time:\n\/run-time\/derivative\(rounded\)\.ts:2:\d+: error NABLA101/,
  );
  assert.throws(
    () => gradient((p: Map<string, number>) => p.size)(new Map()),
    /argument 1 is a Map/,
  );
  assert.throws(() => gradient(3 as never), {
    name: "TypeError",
    message: "nabla: gradient needs a function, and was given number",
  });
});

test("a plain JavaScript file run by node uses the fallback", () => {
  const runtime = join(REPO_ROOT, "dist/src/runtime/index.js");
  const dir = writeProgram({
    "plain.mjs": [
      `import { gradient } from ${JSON.stringify(runtime)};`,
      "const rosenbrock = (x, y) => (1 - x) ** 2 + 100 * (y - x * x) ** 2;",
      "console.log(gradient(rosenbrock)(1.5, 2).join(' '));",
      "",
    ].join("\n"),
  });
  const run = spawnSync(process.execPath, [join(dir, "plain.mjs")], { encoding: "utf8" });
  assert.equal(run.stderr, "");
  // d/dx = -2(1-x) - 400x(y-x²), d/dy = 200(y-x²)
  assert.equal(run.stdout, `${-2 * (1 - 1.5) - 400 * 1.5 * (2 - 2.25)} ${200 * (2 - 2.25)}\n`);
});
