import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { REPO_ROOT, writeProgram, childStderr } from "./support/harness.js";
import { nabla, USAGE_LINE } from "./support/cli.js";

// The real `nabla` command, run as a child process on programs in temporary folders (which
// have no node_modules: `nabla` must resolve to the running nabla).

const CUBE = `import { derivative } from "nabla";
const d = derivative((x: number) => x * x * x);
console.log(d(4));
console.log(JSON.stringify(process.argv.slice(1)));
`;

const BAD = `import { derivative } from "nabla";
console.log("SHOULD NOT RUN");
function f(x: number): number {
  return Number(x.toFixed(2));
}
export const d = derivative(f);
`;

/** What `check` and `run` print for BAD (paths relative to the working folder). */
const BAD_DIAGNOSTICS = `main.ts:4:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  3 | function f(x: number): number {
> 4 |   return Number(x.toFixed(2));
    |                 ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:6:18: note: when differentiating 'f' for 'derivative'
> 6 | export const d = derivative(f);
    |                  ^^^^^^^^^^^^^

1 error
`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

test("run: prints the program's output and passes extra arguments in process.argv", () => {
  const dir = writeProgram({ "main.ts": CUBE });
  const r = nabla(["run", "main.ts", "alpha", "--flag", "3"], dir);
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
  const [value, argv] = r.stdout.split("\n");
  assert.equal(value, "48");
  // argv[1] is the program itself, as with `node main.js alpha --flag 3`.
  assert.deepEqual(JSON.parse(argv!), [join(dir, "main.ts"), "alpha", "--flag", "3"]);
});

test("run: a program in a folder without node_modules imports nabla", () => {
  const dir = writeProgram({
    "main.ts": `import { valueWithDerivative, differential } from "nabla";
import * as nabla from "nabla";
const v = valueWithDerivative((x: number) => Math.sin(x) * x)(0);
const jvp = differential((x: number, y: number) => x * y, { wrt: [0, 1] })(2, 3);
const d = nabla.derivative((t: number) => Math.exp(2 * t))(0);
console.log(v.value, v.derivative, jvp(1, 0), jvp(0, 1), d);
`,
  });
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    assert.ok(!existsSync(join(d, "node_modules")), `${d} has node_modules`);
  }
  const r = nabla(["run", join(dir, "main.ts")], REPO_ROOT);
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
  assert.equal(r.stdout, "0 0 3 2 2\n");
});

test("run: programs spread over several files and folders", () => {
  const dir = writeProgram({
    "main.ts": `import { derivative } from "nabla";
import { cube } from "./lib/poly.js";
import * as poly from "./lib/poly.ts";
const d = derivative((x: number) => cube(x) + poly.square(x));
console.log(d(2));
`,
    "lib/poly.ts": `import { times } from "../util.ts";
export function square(x: number): number {
  return times(x, x);
}
export function cube(x: number): number {
  return times(square(x), x);
}
`,
    "util.ts": `export const times = (a: number, b: number): number => a * b;\n`,
  });
  const r = nabla(["run", "main.ts"], dir);
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
  assert.equal(r.stdout, "16\n");
});

test("run: a program with errors is not run, and the exit code is 1", () => {
  const dir = writeProgram({ "main.ts": BAD });
  const r = nabla(["run", "main.ts"], dir);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, BAD_DIAGNOSTICS);
});

test("run: warnings are printed and the program runs", () => {
  const dir = writeProgram({
    "main.ts": `import { derivative } from "nabla";
console.log(derivative((x: number) => 3)(1));
`,
  });
  const r = nabla(["run", "main.ts"], dir);
  assert.equal(r.status, 0);
  assert.equal(r.stdout, "0\n");
  assert.match(r.stderr, /^main\.ts:2:24: warning NABLA201: /);
  assert.match(r.stderr, /\n1 warning\n$/);
});

test("run: an error thrown by the program exits 1 with a stack into the .ts files", () => {
  const dir = writeProgram({
    "main.ts": `import { derivative } from "nabla";
import { check } from "./lib.ts";
function f(x: number): number {
  return x * x;
}
const d = derivative(f);
check(d(1));
check(d(10));
`,
    "lib.ts": `export function check(v: number): number {
  if (v > 5) {
    throw new RangeError("too big: " + v);
  }
  return v;
}
`,
  });
  const r = nabla(["run", "main.ts"], dir);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "");
  const lines = r.stderr.split("\n");
  assert.equal(lines[0], "RangeError: too big: 20");
  // Source-mapped: the TypeScript files, with their own lines and columns.
  assert.equal(lines[1]?.trim(), `at check (${join(dir, "lib.ts")}:3:11)`);
  assert.match(
    lines[2]!,
    new RegExp(`^\\s+at .*\\(?${escapeRegExp(join(dir, "main.ts"))}:8:1\\)?$`),
  );
});

test("run: the stack is mapped on lines where an operator call was replaced", () => {
  const dir = writeProgram({
    "main.ts": `import { derivative, valueWithDerivative } from "nabla";
function f(x: number): number {
  return x * x;
}
const v = derivative(f)(3) + valueWithDerivative(f)(2).derivative; if (v > 0) throw new Error("v = " + v);
`,
  });
  const r = nabla(["run", "main.ts"], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^Error: v = 10\n/);
  assert.ok(r.stderr.includes(`${join(dir, "main.ts")}:5:85`), r.stderr);
});

test("run: an error thrown later, in a callback, also points at the .ts file", () => {
  const dir = writeProgram({
    "main.ts": `const n: number = 2;
setTimeout(() => {
  throw new Error("later " + n);
}, 1);
`,
  });
  const r = nabla(["run", "main.ts"], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /\nError: later 2\n/);
  assert.ok(r.stderr.includes(`${join(dir, "main.ts")}:3:9`), r.stderr);
});

test("run: the program's own exit code is kept", () => {
  const dir = writeProgram({ "main.ts": `console.log("done");\nprocess.exitCode = 3;\n` });
  const r = nabla(["run", "main.ts"], dir);
  assert.equal(r.stdout, "done\n");
  assert.equal(r.status, 3);
});

test("emit: prints JavaScript with the generated $jvp function and no types", () => {
  const dir = writeProgram({
    "main.ts": `import { derivative } from "nabla";
interface Point {
  x: number;
}
type Scalar = number;
function f(x: number): number {
  const y: number = x * x;
  return y * x;
}
const p: Point = { x: 4 };
const unused: Scalar = 0;
console.log(derivative(f)(p.x as number));
`,
  });
  const r = nabla(["emit", "main.ts"], dir);
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^export function f\$jvp\w*\(x, dx\) \{$/m);
  assert.match(r.stdout, /^function f\(x\) \{$/m);
  assert.doesNotMatch(r.stdout, /: number|: Scalar|: Point|interface |type Scalar| as number/);
  // It is valid JavaScript.
  const out = join(dir, "out.mjs");
  writeFileSync(out, r.stdout);
  const check = spawnSync(process.execPath, ["--check", out], { encoding: "utf8" });
  assert.equal(check.stderr, "");
  assert.equal(check.status, 0);
});

test("emit: several files are printed one after the other, entry first", () => {
  const dir = writeProgram({
    "main.ts": `import { derivative } from "nabla";
import { sq } from "./sub/lib.ts";
console.log(derivative((x: number) => sq(x) * x)(2));
`,
    "sub/lib.ts": `export function sq(x: number): number {
  return x * x;
}
`,
  });
  const r = nabla(["emit", "main.ts"], dir);
  assert.equal(r.status, 0);
  const headers = [...r.stdout.matchAll(/^\/\/ ==== (.*) ====$/gm)].map((m) => m[1]);
  assert.deepEqual(headers, [join(dir, "main.ts"), join(dir, "sub/lib.ts")]);
  assert.match(r.stdout, /export function sq\$jvp\w*\(x, dx\)/);
});

test("emit --ir: prints the IR of the primal and derivative functions", () => {
  const dir = writeProgram({ "main.ts": CUBE });
  const r = nabla(["emit", "main.ts", "--ir"], dir);
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
  const primal = /^func @(\w+)\(%x\.\d+: number\) -> number \{$/m.exec(r.stdout);
  assert.ok(primal, r.stdout);
  const jvp = new RegExp(
    `^func @${primal[1]}\\$jvp\\w*\\(%x\\.\\d+: number, %dx\\.\\d+: number\\) -> `,
    "m",
  );
  assert.match(r.stdout, jvp);
  assert.match(r.stdout, /^ {2}return /m);
});

test("emit --print-after: each function right after one pass, and what a pass name can be", () => {
  const dir = writeProgram({
    "main.ts": `import { gradient } from "nabla";
function sumSquares(xs: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i] * xs[i];
  return s;
}
console.log(gradient(sumSquares)([1, 2]));
`,
  });
  const r = nabla(["emit", "main.ts", "--print-after", "licm"], dir);
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
  const headers = [...r.stdout.matchAll(/^\/\/ after licm \((\w+) pipeline\)$/gm)].map((m) => m[1]);
  // The linearization (before it is split into sweeps), then the two sweeps.
  assert.deepEqual(headers, ["reverse", "sweep", "sweep"], r.stdout);
  assert.match(r.stdout, /^func @sumSquares\$fwd[\w$]*\(/m);
  assert.match(r.stdout, /^func @sumSquares\$bwd[\w$]*\(/m);

  const forwardOnly = writeProgram({ "main.ts": CUBE });
  const none = nabla(["emit", "main.ts", "--print-after", "licm"], forwardOnly);
  assert.equal(none.status, 0);
  assert.match(none.stderr, /no function of this program went through 'licm'.*sweep pipeline/);

  const unknown = nabla(["emit", "main.ts", "--print-after", "cse2"], dir);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown pass 'cse2' for --print-after; the passes are cse, dce/);
  assert.match(unknown.stderr, USAGE_LINE);
});

test("emit --activity: each value of a differentiated function marked, then its IR", () => {
  const dir = writeProgram({
    "main.ts": `import { gradient } from "nabla";
function f(x: number, n: number): number {
  const k = n * 3;
  const scale = x > 1 ? 2 : 1;
  return x * k * scale;
}
console.log(gradient(f, { wrt: 0 })(2, 1));
`,
  });
  const r = nabla(["emit", "main.ts", "--activity"], dir);
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
  const lines = r.stdout.split("\n");
  assert.equal(lines[0], "// activity of @f with respect to [0]");
  // x is differentiated; n and what depends on it only are useful; the product of both is active.
  assert.ok(lines.includes("[ACTIVE] %x.0: number"), r.stdout);
  assert.ok(lines.includes("[USEFUL] %n.1: number"), r.stdout);
  assert.match(r.stdout, /^\[USEFUL\] %k\.\d+: number$/m);
  assert.match(r.stdout, /^\[NONE\] %\d+: boolean$/m);
  assert.match(r.stdout, /^func @f\(/m);
  const both = nabla(["emit", "main.ts", "--activity", "--print-after", "dce"], dir);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /--activity and --print-after print different things/);
});

test("check: exit code 0 on a good program", () => {
  const dir = writeProgram({ "main.ts": CUBE });
  const r = nabla(["check", "main.ts"], dir);
  assert.equal(r.status, 0);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, "nabla: no errors in main.ts and the files it imports\n");
});

test("check: exit code 1 and the diagnostics on stderr for a bad program", () => {
  const dir = writeProgram({ "main.ts": BAD });
  const r = nabla(["check", "main.ts"], dir);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, BAD_DIAGNOSTICS);
});

test("emit: a program with errors prints the diagnostics and no code", () => {
  const dir = writeProgram({ "main.ts": BAD });
  const r = nabla(["emit", "main.ts"], dir);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, BAD_DIAGNOSTICS);
});

test("check: diagnostics in other files are shown relative to the working folder", () => {
  const dir = writeProgram({
    "app/main.ts": `import { derivative } from "nabla";
import { g } from "../lib/g.ts";
export const d = derivative(g);
`,
    "lib/g.ts": `export function g(x: number): number {
  return parseFloat(String(x));
}
`,
  });
  const r = nabla(["check", "app/main.ts"], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^lib\/g\.ts:2:21: error NABLA104: 'String' is not differentiable/);
  assert.match(r.stderr, /\napp\/main\.ts:3:18: note: when differentiating 'g' for 'derivative'\n/);
});

test("check: warnings only is exit code 0", () => {
  const dir = writeProgram({
    "main.ts": `import { derivative } from "nabla";
export const d = derivative((x: number) => 3);
`,
  });
  const r = nabla(["check", "main.ts"], dir);
  assert.equal(r.status, 0);
  assert.match(r.stderr, /^main\.ts:2:29: warning NABLA201: /);
});

test("usage: no arguments prints the usage and fails", () => {
  const r = nabla([]);
  assert.notEqual(r.status, 0);
  assert.match(r.stdout + r.stderr, USAGE_LINE);
});

test("usage: --help prints the usage and succeeds", () => {
  for (const flag of ["--help", "-h", "help"]) {
    const r = nabla([flag]);
    assert.equal(r.status, 0, flag);
    assert.match(r.stdout, USAGE_LINE, flag);
  }
});

test("usage: an unknown command exits 2 with the usage", () => {
  const r = nabla(["frobnicate", "main.ts"]);
  assert.equal(r.status, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^nabla: unknown command 'frobnicate'\n/);
  assert.match(r.stderr, USAGE_LINE);
});

test("usage: a command without its file exits 2 with the usage", () => {
  // In a folder without a tsconfig.json here or above (check and build would take its project).
  const dir = writeProgram({});
  for (const command of ["run", "emit", "check", "build"]) {
    const r = nabla([command], dir);
    assert.equal(r.status, 2, command);
    assert.match(r.stderr, new RegExp(`^nabla: 'nabla ${command}' needs`), command);
    assert.match(r.stderr, USAGE_LINE, command);
  }
});

test("usage: a missing file exits 1 and names the file", () => {
  const dir = writeProgram({});
  for (const command of ["run", "emit", "check"]) {
    const r = nabla([command, "missing.ts"], dir);
    assert.equal(r.status, 1, command);
    assert.equal(r.stdout, "", command);
    assert.equal(r.stderr, "nabla: cannot find 'missing.ts'\n", command);
  }
});

test("--version prints the version of package.json", () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  for (const flag of ["--version", "-v"]) {
    const r = nabla([flag]);
    assert.equal(r.status, 0);
    assert.equal(r.stdout, `${pkg.version}\n`);
  }
});

// ---------------------------------------------------------------------------------------------
// Regressions: behaviours that were wrong once.

test("usage: an unknown option is a usage error (exit 2), not a crash", () => {
  const dir = writeProgram({ "main.ts": CUBE });
  const r = nabla(["emit", "main.ts", "--bogus"], dir);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^nabla: unknown option '--bogus'/i);
  assert.match(r.stderr, USAGE_LINE);
  assert.doesNotMatch(r.stderr, /NABLA_DEBUG/);
});

test("run: a folder instead of a file is reported plainly", () => {
  const dir = writeProgram({ "src/main.ts": CUBE });
  const r = nabla(["run", "src"], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^nabla: 'src' is a (directory|folder)/);
  assert.doesNotMatch(r.stderr, /EISDIR|NABLA_DEBUG/);
});

/**
 * Prints g's derivative at 1.5 three ways (forward, reverse, central difference); g calls f
 * and a higher-order function of another file, so generated code imports derivatives and
 * specializations across the odd path.
 */
const ODD_MAIN = (lib: string) => `import { derivative, gradient } from "nabla";
import { f, apply } from ${JSON.stringify(lib)};
function g(x: number): number {
  return apply((t: number) => f(t) * t, x);
}
const h = 1e-6;
const fd = (g(1.5 + h) - g(1.5 - h)) / (2 * h);
console.log(JSON.stringify([derivative(g)(1.5), gradient(g)(1.5), fd]));
`;
const ODD_LIB = `export function f(x: number): number {
  return Math.sin(x) * x;
}
/** Specialized for the lambda it is given: the key names the lambda's key, path and all. */
export function apply(h: (t: number) => number, x: number): number {
  return h(x);
}
`;

/** Forward, reverse and finite difference of ODD_MAIN agree with d/dx (sin(x)·x²). */
function assertOddDerivatives(stdout: string): void {
  const [forward, reverse, fd] = JSON.parse(stdout) as number[];
  const x = 1.5;
  const exact = Math.cos(x) * x * x + 2 * x * Math.sin(x);
  assert.ok(Math.abs(forward! - exact) < 1e-12, `forward ${forward} vs ${exact}`);
  assert.ok(Math.abs(reverse! - forward!) < 1e-12, `reverse ${reverse} vs forward ${forward}`);
  assert.ok(Math.abs(fd! - forward!) < 1e-6, `finite difference ${fd} vs forward ${forward}`);
}

for (const odd of ["c#", "100%", "a b", "why?", "größe€", "%41", "x#1?y %z ü"]) {
  test(`run, check and emit: a path with ${JSON.stringify(odd)} in folder and file names`, () => {
    const dir = writeProgram({
      "package.json": '{ "type": "module" }\n',
      [`${odd}/main.ts`]: ODD_MAIN(`./sub ${odd}/lib ${odd}.js`),
      [`${odd}/sub ${odd}/lib ${odd}.ts`]: ODD_LIB,
    });
    const folder = join(dir, odd);
    for (let i = 0; i < 2; i++) {
      // Twice: compiled, then from the disk cache.
      const r = nabla(["run", "main.ts"], folder);
      assert.equal(r.stderr, "");
      assert.equal(r.status, 0);
      assertOddDerivatives(r.stdout);
    }
    const absolute = nabla(["run", join(folder, "main.ts")], REPO_ROOT);
    assert.equal(absolute.stderr, "");
    assertOddDerivatives(absolute.stdout);
    const check = nabla(["check", join(folder, "main.ts")], REPO_ROOT);
    assert.equal(check.status, 0, check.stderr);
    const emit = nabla(["emit", "main.ts"], folder);
    assert.equal(emit.status, 0, emit.stderr);
    assert.ok(
      emit.stdout.includes(`from ${JSON.stringify(`./sub ${odd}/lib ${odd}.ts`)};`),
      emit.stdout,
    );
  });
}

test("run: worker threads started by the program get the loader (a path and a URL)", () => {
  const dir = writeProgram({
    "main.ts": `import { Worker } from "node:worker_threads";
const results: string[] = [];
let exited = 0;
for (const where of ["./work er#1.ts", new URL("./work er#1.ts".replace("#", "%23"), import.meta.url)]) {
  const worker = new Worker(where, { workerData: 1.5 });
  worker.on("message", (m: string) => results.push(m));
  worker.on("error", (e: Error) => results.push("error: " + e.message));
  worker.on("exit", () => {
    if (++exited === 2) console.log(results.join("\\n"));
  });
}
`,
    "work er#1.ts": `import { parentPort, workerData } from "node:worker_threads";
import { derivative, gradient } from "nabla";
const f = (x: number): number => Math.exp(x) * x;
const x: number = workerData;
const h = 1e-6;
const fd = (f(x + h) - f(x - h)) / (2 * h);
parentPort!.postMessage(JSON.stringify([derivative(f)(x), gradient(f)(x), fd]));
`,
  });
  const r = nabla(["run", "main.ts"], dir);
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
  const lines = r.stdout.trim().split("\n");
  assert.equal(lines.length, 2, r.stdout);
  const exact = Math.exp(1.5) * 2.5;
  for (const line of lines) {
    const [forward, reverse, fd] = JSON.parse(line) as number[];
    assert.ok(Math.abs(forward! - exact) < 1e-12, `forward ${forward} vs ${exact}`);
    assert.ok(Math.abs(reverse! - forward!) < 1e-12, `reverse ${reverse} vs ${forward}`);
    assert.ok(Math.abs(fd! - forward!) < 1e-5, `finite difference ${fd} vs ${forward}`);
  }
});

for (const entry of ["main.js", "main.mjs"]) {
  test(`check: a JavaScript entry (${entry}) that run runs is accepted, its TypeScript imports checked`, () => {
    const dir = writeProgram({
      "package.json": '{ "type": "module" }\n',
      // Untyped: compiled at run time by the fallback, not by nabla ahead of time.
      [entry]: `import { derivative } from "nabla";
import { g } from "./cube.ts";
function f(x) {
  return x * x;
}
console.log(derivative(f)(3), g(2));
`,
      "cube.ts": `import { derivative } from "nabla";
export const g = derivative((x: number) => x * x * x);
`,
    });
    const run = nabla(["run", entry], dir);
    assert.equal(childStderr(run), "");
    assert.equal(run.stdout, "6 12\n");
    const check = nabla(["check", entry], dir);
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stderr, new RegExp(`^nabla: ${entry.replace(".", "\\.")} is JavaScript`));
    assert.match(check.stderr, /no errors in/);
    // An error in the TypeScript it imports is an error of both.
    writeFileSync(join(dir, "cube.ts"), BAD);
    const bad = nabla(["check", entry], dir);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /cube\.ts:4:17: error NABLA104/);
    assert.equal(nabla(["run", entry], dir).status, 1);
  });
}

test("usage: an unknown option or a missing value gets nabla's own words, per command", () => {
  const dir = writeProgram({ "main.ts": CUBE });
  const unknown = nabla(["check", "--frob", "main.ts"], dir);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^nabla: unknown option '--frob' for 'nabla check'\n/);
  assert.doesNotMatch(unknown.stderr, /positional argument|"--frob"/);
  const missing = nabla(["check", "main.ts", "--format"], dir);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^nabla: option '--format' of 'nabla check' needs a value\n/);
  const wrong = nabla(["check", "main.ts", "--format", "xml"], dir);
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /'--format' is 'text' or 'json', not 'xml'/);
});

test("check: several files and folders at once, every TypeScript file of a folder, node_modules left out", () => {
  const dir = writeProgram({
    "src/a.ts": CUBE,
    "src/deep/b.ts": BAD,
    "src/types.d.ts": "declare const nothing: number;\n",
    "src/node_modules/x/index.ts": "this is not TypeScript (\n",
    "other.ts": CUBE,
  });
  const folder = nabla(["check", "src"], dir);
  assert.equal(folder.status, 1);
  assert.match(folder.stderr, /src\/deep\/b\.ts:4:17: error NABLA104/);
  assert.doesNotMatch(folder.stderr, /node_modules|types\.d\.ts/);
  const clean = nabla(["check", "src/a.ts", "other.ts"], dir);
  assert.equal(clean.status, 0, clean.stderr);
  assert.match(clean.stderr, /no errors in 2 files/);
  const empty = writeProgram({ "lib/readme.md": "no code\n" });
  assert.equal(nabla(["check", "lib"], empty).status, 1);
});

test("check --format json: diagnostics as data on stdout, with 1-based lines and columns", () => {
  const dir = writeProgram({ "main.ts": BAD });
  const r = nabla(["check", "main.ts", "--format", "json"], dir);
  assert.equal(r.status, 1);
  const report = JSON.parse(r.stdout) as {
    errors: number;
    warnings: number;
    diagnostics: {
      file: string;
      line: number;
      column: number;
      code: string;
      severity: string;
      notes: { message: string; line?: number }[];
    }[];
  };
  assert.equal(report.errors, 1);
  assert.equal(report.warnings, 0);
  const [d] = report.diagnostics;
  assert.equal(d!.file, join(dir, "main.ts"));
  assert.deepEqual([d!.line, d!.column, d!.code, d!.severity], [4, 17, "NABLA104", "error"]);
  assert.ok(d!.notes.length > 0 && d!.notes.every((n) => typeof n.message === "string"));
  const okDir = writeProgram({ "main.ts": CUBE });
  const ok = nabla(["check", "--format", "json", "main.ts"], okDir);
  assert.equal(ok.status, 0);
  assert.deepEqual(JSON.parse(ok.stdout), {
    errors: 0,
    warnings: 0,
    files: [join(okDir, "main.ts")],
    diagnostics: [],
  });
});
