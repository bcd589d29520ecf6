import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build as esbuild } from "esbuild";
import { compileProgram } from "../src/compiler/index.js";
import { commentLines } from "../src/compiler/emit/js/wasm-requests.js";
import nabla from "../src/plugin/index.js";
import { BIN, nabla as nablaCommand, nablaEnv, USAGE_LINE } from "./support/cli.js";
import { REPO_ROOT, writeProgram } from "./support/harness.js";

// The program-wide backend (CompileOptions.backend, the plugin's `backend`, `--backend`):
// operator calls that name no backend take it, a call's own option wins, and a program-wide
// "wasm" does not warn at each call that stays JavaScript.

const MAIN = `import { gradient, differential } from "nabla";
export { wasmStats } from "nabla";
function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.sin(a[i]!) * b[i]!;
  return s;
}
interface P { a: number; b: number; label: string }
function obj(p: P): number {
  return p.label < "b" ? p.a * p.b : p.a + p.b;
}
export const g = gradient(dot);
export const d = differential(dot, { wrt: 0 });
export const gJs = gradient(dot, { backend: "js" });
export const gObj = gradient(obj);
`;

interface Main {
  g: (a: Float64Array, b: Float64Array) => Float64Array[];
  d: (a: Float64Array, b: Float64Array) => (da: Float64Array) => number;
  gJs: (a: Float64Array, b: Float64Array) => Float64Array[];
  gObj: (p: { a: number; b: number; label: string }) => { a: number; b: number };
  wasmStats: { wasm: number; javascript: number };
}

const a = Float64Array.from([0.1, 0.2, 0.3]);
const b = Float64Array.from([4, 5, 6]);
const expected = [[...a].map((x, i) => Math.cos(x) * b[i]!), [...a].map(Math.sin)];

/** Calls every export of the program: what ran in wasm, and the values. */
function exercise(m: Main) {
  const before = m.wasmStats.wasm;
  const g = m.g(a, b).map((r) => [...r]);
  const afterG = m.wasmStats.wasm;
  const d = m.d(a, b)(Float64Array.from([1, 0, 0]));
  const afterD = m.wasmStats.wasm;
  const gJs = m.gJs(a, b).map((r) => [...r]);
  const afterJs = m.wasmStats.wasm;
  return {
    g,
    d,
    gJs,
    obj: m.gObj({ a: 2, b: 3, label: "area" }),
    inWasm: [afterG - before, afterD - afterG, afterJs - afterD],
  };
}

test("compileProgram's backend: calls naming none take it, a call's own wins, no warning per call", () => {
  const dir = writeProgram({ "main.ts": MAIN });
  const file = join(dir, "main.ts");
  const plain = compileProgram([file]);
  const wasm = compileProgram([file], { backend: "wasm" });
  assert.deepEqual(plain.diagnostics, []);
  // The program-wide "wasm": `gObj` (it orders P's string field) stays JavaScript without a
  // NABLA202, with the comment.
  assert.deepEqual(wasm.diagnostics, []);
  const code = wasm.outputs.get(file)!.code;
  assert.match(code, /\/\/ gradient\(obj\) at main\.ts:15:\d+: JavaScript, not WebAssembly/);
  assert.equal(code.match(/wasmFunction/g)?.length ?? 0, 2, "the twins of g and d only");
  // "js" is the default: the same output as no option at all.
  const js = compileProgram([file], { backend: "js" });
  assert.equal(js.outputs.get(file)!.code, plain.outputs.get(file)!.code);
  assert.doesNotMatch(plain.outputs.get(file)!.code, /wasmFunction/);
});

test("a call's own backend: 'wasm' still warns under a program-wide 'wasm'", () => {
  const dir = writeProgram({
    "main.ts": `import { gradient } from "nabla";
interface P { a: number; b: number; label: string }
function obj(p: P): number {
  return p.label < "b" ? p.a * p.b : p.a + p.b;
}
export const g = gradient(obj, { backend: "wasm" });
`,
  });
  const result = compileProgram([join(dir, "main.ts")], { backend: "wasm" });
  assert.deepEqual(
    result.diagnostics.map((d) => d.code),
    ["NABLA202"],
  );
});

test("the plugin's backend option: the bundle runs the calls in wasm, with JavaScript's values", async () => {
  const dir = writeProgram({ "main.ts": MAIN });
  const results = [];
  for (const backend of [undefined, "wasm"] as const) {
    const out = join(mkdtempSync(join(tmpdir(), "nabla-backend-")), "bundle.mjs");
    await esbuild({
      entryPoints: [join(dir, "main.ts")],
      bundle: true,
      format: "esm",
      platform: "node",
      outfile: out,
      logLevel: "silent",
      plugins: [nabla.esbuild(backend ? { backend } : undefined)],
    });
    results.push(exercise((await import(pathToFileURL(out).href)) as Main));
  }
  const [js, wasm] = results;
  assert.deepEqual(js!.inWasm, [0, 0, 0]);
  // `g` and `d` in wasm; `gJs` names "js", which wins.
  assert.deepEqual(wasm!.inWasm, [1, 1, 0]);
  assert.deepEqual(wasm!.g, js!.g);
  assert.equal(wasm!.d, js!.d);
  assert.deepEqual(wasm!.gJs, js!.gJs);
  assert.deepEqual(wasm!.obj, js!.obj);
  expected.forEach((row, i) =>
    row.forEach((x, j) => assert.ok(Math.abs(js!.g[i]![j]! - x) < 1e-12)),
  );
  assert.throws(
    () => nabla.esbuild({ backend: "wsm" as "wasm" }),
    /the plugin's 'backend' option is "js", "wasm" or "auto", not "wsm"/,
  );
});

test("nabla run --backend wasm and nabla build --backend wasm; a bad value is a usage error", () => {
  const dir = writeProgram({
    "main.ts": `${MAIN.replace('export { wasmStats } from "nabla";', 'import { wasmStats } from "nabla";')}
const before = wasmStats.wasm;
const value = g(Float64Array.from([0.1, 0.2, 0.3]), Float64Array.from([4, 5, 6]));
gJs(Float64Array.from([0.1]), Float64Array.from([1]));
console.log(JSON.stringify({ wasm: wasmStats.wasm - before, value: value.map((r) => [...r]) }));
`,
  });
  const file = join(dir, "main.ts");
  const runs = ["js", "wasm"].map((backend) => {
    const r = nablaCommand(["run", "--backend", backend, file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, "");
    return JSON.parse(r.stdout) as { wasm: number; value: number[][] };
  });
  assert.equal(runs[0]!.wasm, 0);
  assert.equal(runs[1]!.wasm, 1);
  assert.deepEqual(runs[1]!.value, runs[0]!.value);
  expected.forEach((row, i) =>
    row.forEach((x, j) => assert.ok(Math.abs(runs[1]!.value[i]![j]! - x) < 1e-12)),
  );

  const out = join(dir, "out");
  const built = nablaCommand(["build", file, "--out-dir", out, "--backend=wasm"]);
  assert.equal(built.status, 0, built.stderr);
  const emitted = nablaCommand(["emit", file, "--backend", "auto"]);
  assert.match(emitted.stdout, /wasmFunction/);

  for (const args of [
    ["run", "--backend", "wsm", file],
    ["build", file, "--out-dir", out, "--backend", "wsm"],
    ["check", file, "--backend", "WASM"],
  ]) {
    const bad = nablaCommand(args);
    assert.equal(bad.status, 2, args.join(" "));
    assert.match(bad.stderr, /'--backend' is 'js', 'wasm' or 'auto', not '(wsm|WASM)'/);
    assert.match(bad.stderr, USAGE_LINE);
  }
});

/** A program printing how many of its gradient calls ran in wasm. */
const COUNTS_WASM = `${MAIN.replace('export { wasmStats } from "nabla";', 'import { wasmStats } from "nabla";')}
const before = wasmStats.wasm;
g(Float64Array.from([0.1, 0.2, 0.3]), Float64Array.from([4, 5, 6]));
console.log("in wasm:", wasmStats.wasm - before);
`;

test("NABLA_BACKEND gives node --import nabla/register a program-wide backend; a bad value says so", () => {
  const dir = writeProgram({ "package.json": '{ "type": "module" }\n', "main.ts": COUNTS_WASM });
  const register = join(REPO_ROOT, "dist/src/register/index.js");
  const node = (backend: string) =>
    spawnSync(process.execPath, ["--import", register, "main.ts"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...nablaEnv(), NABLA_CACHE: "0", NABLA_BACKEND: backend },
    });
  for (const [backend, count] of [
    ["wasm", 1],
    ["auto", 1],
    ["js", 0],
    ["", 0],
  ] as const) {
    const r = node(backend);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `in wasm: ${count}\n`, `NABLA_BACKEND=${backend}`);
  }
  const bad = node("WASM");
  assert.notEqual(bad.status, 0);
  assert.match(
    bad.stderr,
    /NABLA_BACKEND \(nabla's program-wide backend\) is 'js', 'wasm' or 'auto', not 'WASM'/,
  );
});

test("nabla run --watch --backend wasm: the watched program's calls run in wasm", async () => {
  const dir = writeProgram({ "main.ts": COUNTS_WASM });
  const child = spawn(process.execPath, [BIN, "run", "--watch", "--backend", "wasm", "main.ts"], {
    cwd: dir,
    env: nablaEnv(),
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const closed = new Promise<void>((done) => child.stdout.on("close", () => done()));
  try {
    const start = Date.now();
    while (!/in wasm: \d/.test(out)) {
      if (Date.now() - start > 20_000) assert.fail(`no output from the watched program:\n${out}`);
      await new Promise((done) => setTimeout(done, 50));
    }
    assert.match(out, /in wasm: 1\n/);
  } finally {
    child.kill("SIGTERM");
  }
  await closed;
});

test("a reason over several lines stays in its comment", () => {
  // wabt's errors come with a code frame; a line break left in a `//` comment would end it.
  const lines = commentLines(
    "f: its WebAssembly could not be assembled: wabt:\nline 2\r\nline 3\u2028end",
  );
  assert.deepEqual(lines, [
    "// f: its WebAssembly could not be assembled: wabt:",
    "// line 2",
    "// line 3",
    "// end",
  ]);
  assert.doesNotThrow(() => new Function(lines.join("\n")));
});
