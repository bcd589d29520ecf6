import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { transformSync } from "esbuild";
import {
  derivative,
  differential,
  gradient,
  jacobian,
  NotCompiledError,
  valueWithGradient,
} from "../src/runtime/index.js";
import { REPO_ROOT, writeProgram, childStderr } from "./support/harness.js";

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
  // Found in this file (tsc's output, which is what runs): named by its real path and line.
  assert.throws(
    () => derivative(rounded)(1),
    /could not differentiate 'rounded' at run time:\n\/.*\/dist\/test\/fallback\.test\.js:\d+:\d+: error NABLA10\d/,
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
  assert.equal(childStderr(run), "");
  // d/dx = -2(1-x) - 400x(y-x²), d/dy = 200(y-x²)
  assert.equal(run.stdout, `${-2 * (1 - 1.5) - 400 * 1.5 * (2 - 2.25)} ${200 * (2 - 2.25)}\n`);
});

const RUNTIME = JSON.stringify(join(REPO_ROOT, "dist/src/runtime/index.js"));

/** Runs `main` of `files` with plain node (no loader, no nabla); its stdout and stderr. */
function runPlain(dir: string, main: string, nodeOptions: string[] = []) {
  const run = spawnSync(process.execPath, [...nodeOptions, join(dir, main)], { encoding: "utf8" });
  assert.equal(childStderr(run), "");
  return run.stdout.trim().split("\n");
}

/** Prints, for each function of `cases`, f′(0.7) by forward and reverse mode and by differences. */
const CHECK_CASES = [
  "for (const [name, f] of Object.entries(cases)) {",
  "  const x = 0.7, h = 1e-6;",
  "  const difference = (f(x + h) - f(x - h)) / (2 * h);",
  "  console.log(JSON.stringify({ name, forward: derivative(f)(x), reverse: gradient(f)(x), difference }));",
  "}",
];

function checkCases(lines: string[], names: string[]) {
  const results = lines.map(
    (line) =>
      JSON.parse(line) as { name: string; forward: number; reverse: number; difference: number },
  );
  assert.deepEqual(
    results.map((r) => r.name),
    names,
  );
  for (const r of results) {
    assert.equal(typeof r.forward, "number", r.name);
    close(r.forward, r.reverse, 1e-12);
    close(r.forward, r.difference);
  }
}

test("every shape of function text, run by plain node: forward = reverse = differences", () => {
  const dir = writeProgram({
    "shapes.mjs": [
      `import { derivative, gradient } from ${RUNTIME};`,
      "const cases = {};",
      // What the issue reported: a paren-less arrow, the most common form.
      "cases.parenless = x => x * x;",
      "cases.parenlessBlock = t => { const s = Math.sin(t); return s * s * t; };",
      "cases.arrowBlock = (x) => { let y = 0; for (let i = 1; i <= 3; i++) y += x ** i / i; return y; };",
      "cases.functionExpression = function (x) { return Math.exp(x) / (1 + x * x); };",
      "function declared(x) { return Math.log(1 + x * x) * x; }",
      "cases.declaration = declared;",
      "cases.namedExpression = function cube(x) { return x * x * x; };",
      "const o = {",
      "  method(x) { return x ** 3 - x; },",
      '  "quoted name"(x) { return Math.cos(x) * x; },',
      "  [`computed ${1 + 1}`](x) { return x / (1 + x * x); },",
      "  function(x) { return Math.sqrt(x) * x; },",
      "  async(x) { return Math.atan(x) * x; },",
      "};",
      "cases.method = o.method;",
      'cases.quotedMethod = o["quoted name"];',
      'cases.computedMethod = o["computed 2"];',
      "cases.methodNamedFunction = o.function;",
      "cases.methodNamedAsync = o.async;",
      "class Shapes {",
      "  static scale(x) { return 3 * x * x; }",
      "  static #hidden(x) { return Math.tanh(x) * x; }",
      "  static get hidden() { return Shapes.#hidden; }",
      "}",
      "cases.staticMethod = Shapes.scale;",
      "cases.privateStaticMethod = Shapes.hidden;",
      // esbuild's output with keepNames, which tsx turns on: __name calls inside the function.
      "var __name = (target, value) => Object.defineProperty(target, 'name', { value, configurable: true });",
      "cases.keepNames = /* @__PURE__ */ __name((x) => {",
      '  const sq = /* @__PURE__ */ __name((t) => t * t, "sq");',
      '  const cube = /* @__PURE__ */ __name(function (t) { return t * t * t; }, "cube");',
      "  return sq(x) + cube(x);",
      '}, "keepNames");',
      ...CHECK_CASES,
      "",
    ].join("\n"),
  });
  checkCases(runPlain(dir, "shapes.mjs"), [
    "parenless",
    "parenlessBlock",
    "arrowBlock",
    "functionExpression",
    "declaration",
    "namedExpression",
    "method",
    "quotedMethod",
    "computedMethod",
    "methodNamedFunction",
    "methodNamedAsync",
    "staticMethod",
    "privateStaticMethod",
    "keepNames",
  ]);
});

test("shapes nabla cannot compile at run time get a clear NotCompiledError", () => {
  const dir = writeProgram({
    "refused.mjs": [
      `import { derivative } from ${RUNTIME};`,
      "const o = { get g() { return 1; }, set s(v) {}, async m(x) { return x; }, *gen(x) { yield x; } };",
      "const cases = {",
      "  async: async (x) => x,",
      "  asyncParenless: async x => x,",
      "  generator: function* (x) { yield x; },",
      "  asyncMethod: o.m,",
      "  generatorMethod: o.gen,",
      "  getter: Object.getOwnPropertyDescriptor(o, 'g').get,",
      "  setter: Object.getOwnPropertyDescriptor(o, 's').set,",
      "  bound: ((x) => x * x).bind(null),",
      "  native: Math.sin,",
      "  class: class K { static f(x) { return x; } },",
      "  destructured: ([a, b]) => a * b,",
      "  defaults: (x, k = 2) => x * k,",
      "  rest: (...xs) => xs[0],",
      "};",
      "for (const [name, f] of Object.entries(cases)) {",
      "  try { derivative(f); console.log(name, 'compiled'); }",
      "  catch (e) { console.log(name, e.name, e.message.split(' at run time: ')[1].split('. Let nabla')[0]); }",
      "}",
      "",
    ].join("\n"),
  });
  const async = "NotCompiledError it is async, which nabla cannot differentiate";
  const generator = "NotCompiledError it is a generator, which nabla cannot differentiate";
  const noText =
    "NotCompiledError its source text is not a plain function: a built-in or bound function has none";
  const params =
    "NotCompiledError its parameters are destructured, rest parameters or have defaults; give it plain parameters";
  assert.deepEqual(runPlain(dir, "refused.mjs"), [
    `async ${async}`,
    `asyncParenless ${async}`,
    `generator ${generator}`,
    `asyncMethod ${async}`,
    `generatorMethod ${generator}`,
    "getter NotCompiledError it is a getter; give nabla a function that takes the values to differentiate",
    "setter NotCompiledError it is a setter; give nabla a function that takes the values to differentiate",
    `bound ${noText}`,
    `native ${noText}`,
    "class NotCompiledError it is a class; give nabla a function",
    `destructured ${params}`,
    `defaults ${params}`,
    `rest ${params}`,
  ]);
});

test("diagnostics of a plain .mjs file name its path, line and column, with its code", () => {
  const dir = writeProgram({
    "helper.mjs": ["export const scaled = (x) =>", "  x.toFixed(1) * x;", ""].join("\n"),
    "main.mjs": [
      `import { derivative } from ${RUNTIME};`,
      'import { scaled } from "./helper.mjs";',
      "const rounded = (x) =>",
      "  Number(x.toFixed(2)) * x;",
      "const show = (run) => { try { run(); } catch (e) { console.log(JSON.stringify(e.message)); } };",
      "show(() => derivative(rounded)(1));",
      "show(() => derivative(x => x.toFixed(2) * x)(1));",
      "show(() => derivative(scaled)(1));",
      // A program's own prepareStackTrace may make a stack anything: then no place is named.
      "Error.prepareStackTrace = (error, frames) => frames;",
      "show(() => derivative((t) => t.toFixed(3) * t)(1));",
      "",
    ].join("\n"),
  });
  const main = join(dir, "main.mjs");
  const [rounded, inline, imported, unplaced] = runPlain(dir, "main.mjs").map(
    (l) => JSON.parse(l) as string,
  );
  // Where the function is, in the file that calls the operator.
  assert.match(
    rounded!,
    new RegExp(
      `^nabla could not differentiate 'rounded' at run time:\n${main}:4:10: error NABLA10\\d: .*\n  3 \\| const rounded = \\(x\\) =>\n> 4 \\|   Number\\(x\\.toFixed\\(2\\)\\) \\* x;\n`,
    ),
  );
  assert.match(rounded!, new RegExp(`\n${main}:6:12: note: when differentiating 'rounded'`));
  assert.match(
    inline!,
    new RegExp(
      `^nabla could not differentiate this function at run time:\n${main}:7:28: error NABLA10\\d`,
    ),
  );
  assert.doesNotMatch(rounded! + inline!, /run-time/);
  assert.match(
    unplaced!,
    /^nabla could not differentiate this function at run time:\n<function>:1:8: error NABLA10\d/,
  );
  // Defined in another module: its text is shown as it is, and the call site is named.
  assert.match(
    imported!,
    new RegExp(
      `^nabla could not differentiate 'scaled' \\(given to derivative at ${main}:8:12\\) at run time:\n<scaled>:2:3: error NABLA10\\d: .*\n  1 \\| \\(x\\) =>\n> 2 \\|   x\\.toFixed`,
    ),
  );
});

test("a .ts file transpiled as tsx does (esbuild, keepNames, source maps) runs through the fallback", () => {
  const dir = writeProgram({});
  const main = join(dir, "main.ts");
  const source = [
    `import { derivative, gradient } from ${RUNTIME};`,
    "const cases: Record<string, (x: number) => number> = {};",
    "cases.parenless = x => x * x;",
    "cases.typed = (x: number): number => {",
    "  const sq = (t: number): number => t * t;",
    "  const cube = function (t: number): number { return t * t * t; };",
    "  return sq(x) + cube(Math.sin(x));",
    "};",
    "function declared(x: number): number { const k: number = 2; return Math.exp(k * x) / k; }",
    "cases.declared = declared;",
    "cases.untyped = (x) => x ** 3 / 3;",
    ...CHECK_CASES.map((line) => line.replace("const x = 0.7", "const x: number = 0.7")),
    "try {",
    "  derivative((x: number) => Number(x.toFixed(2)) * x)(1);",
    "} catch (e) {",
    "  console.log(JSON.stringify((e as Error).message));",
    "}",
    "",
  ].join("\n");
  writeFileSync(main, source);
  const { code } = transformSync(source, {
    loader: "ts",
    format: "esm",
    keepNames: true,
    sourcemap: "inline",
    sourcefile: main,
  });
  writeFileSync(join(dir, "main.mjs"), code);
  const lines = runPlain(dir, "main.mjs", ["--enable-source-maps"]);
  checkCases(lines.slice(0, -1), ["parenless", "typed", "declared", "untyped"]);
  // The running text is esbuild's, in no file: shown as it is, with the call named in main.ts.
  const line = source.split("\n").findIndex((l) => l.includes("Number(x.toFixed(2))")) + 1;
  assert.match(
    JSON.parse(lines.at(-1)!) as string,
    new RegExp(
      `^nabla could not differentiate this function \\(given to derivative at ${main}:${line}:3\\) at run time:\n<function>:1:\\d+: error NABLA10\\d: .*\n> 1 \\| \\(x\\) => Number\\(x\\.toFixed\\(2\\)\\) \\* x\n`,
    ),
  );
});
