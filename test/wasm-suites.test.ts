import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./support/harness.js";

// Both backends pass the same derivative tests: these suites run again with every operator
// call that names no backend in WebAssembly (NABLA_BACKEND=wasm, which the loader takes as the
// program-wide backend): their checks against finite differences, forward against reverse
// mode, hand-written derivatives and GradBench's references hold for wasm's results too.
// Suites that look at the JavaScript tape (`tapeStats`), which wasm does not use, or only at
// generated JavaScript, are not among them.

const SUITES = [
  "gradbench",
  "attached-derivatives",
  "operators-on-function-parameters",
  "math-rules",
  "programs",
  "optimizations",
  "function-values",
  "structured",
  "array-copies",
  "everyday",
  "everyday-syntax",
  "names",
  "forward-jacobian",
  "aux-and-mode",
  // Integer typed arrays as data: labels, CSR structure, counts, stores that wrap or clamp.
  "integer-typed-arrays",
  // Programs as people write them: captured variables, destructuring, generators, `??` (whose
  // calls with an argument left out rerun as JavaScript), and the random program generators.
  "closures",
  "destructuring",
  "generators",
  "nullish",
  "literal-methods",
  "random-idioms",
  "random-structured",
  "random-programs",
];

/** This process's environment without the test runner's mark (the child runs its own). */
function childEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/**
 * Each failing test's TAP line and the block under it (its error and stack), the first lines
 * of each: what a CI log needs to show why, where the output's tail shows only passing tests.
 */
function failureDetails(lines: string[]): string {
  const blocks: string[] = [];
  lines.forEach((line, i) => {
    if (!/^\s*not ok /.test(line)) return;
    const end = lines.findIndex((l, k) => k > i && /^\s*\.\.\.$/.test(l));
    blocks.push(lines.slice(i, Math.min(end < 0 ? lines.length : end, i + 40)).join("\n"));
  });
  return blocks.join("\n\n").slice(0, 20_000);
}

test("derivative suites under the wasm backend: all pass, with most calls in wasm", () => {
  const files = SUITES.map((name) => join(REPO_ROOT, "dist/test", `${name}.test.js`));
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", ...files], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    env: { ...childEnvironment(), NABLA_BACKEND: "wasm", NABLA_CACHE: "0" },
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = run.stdout.split("\n");
  const failures = lines.filter((line) => /^\s*not ok /.test(line));
  assert.deepEqual(failures, [], failureDetails(lines));
  assert.equal(run.status, 0, run.stderr.slice(-4000));
  // Each suite's process reports its calls at exit (test/support/harness.ts).
  let inWasm = 0;
  let fellBack = 0;
  for (const [, wasm, javascript] of run.stdout.matchAll(
    /nabla wasm calls: (\d+) in wasm, (\d+) fell back/g,
  )) {
    inWasm += Number(wasm);
    fellBack += Number(javascript);
  }
  // About 560,000 calls ran in wasm when this test was written, 160 fell back (index out of
  // range, arguments not of the declared types: JavaScript's answer by design).
  assert.ok(inWasm > 400_000, `only ${inWasm} calls ran in wasm`);
  assert.ok(fellBack < inWasm / 100, `${fellBack} calls fell back, ${inWasm} in wasm`);
});
