import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT, writeProgram } from "./support/harness.js";

// The GradBench tool (gradbench/tool.ts), run as GradBench runs it: a child process that reads
// JSON messages on stdin and answers each with one JSON line on stdout. The inputs are small
// and generated here; the last test also runs the reference workloads of
// /work/shared/gradbench (or $GRADBENCH_DATA) when they are there.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Response {
  id: number | null;
  success?: boolean;
  output?: Json;
  timings?: { name: string; nanoseconds: number }[];
  error?: string;
  tool?: string;
}

/** A running tool, driven one message at a time. */
class Session {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: ((line: string) => void)[] = [];
  private readonly early: string[] = [];
  private nextId = 0;
  stderr = "";
  readonly exited: Promise<number | null>;

  constructor(args: string[] = []) {
    const env = { ...process.env };
    delete env.NABLA_DEBUG;
    delete env.NABLA_GRADBENCH_HAND;
    delete env.NABLA_GRADBENCH_DIR;
    this.child = spawn(process.execPath, ["bin/nabla.js", "run", "gradbench/tool.ts", ...args], {
      cwd: REPO_ROOT,
      env,
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => (this.stderr += chunk));
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on("line", (line) => {
      const waiter = this.pending.shift();
      if (waiter) waiter(line);
      else this.early.push(line); // an unasked-for line: send() reports it
    });
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
  }

  /** Sends a message (its id is the next consecutive integer) and returns the parsed answer. */
  async send(message: Record<string, Json>): Promise<Response> {
    assert.deepEqual(this.early, [], "the tool wrote lines nobody asked for");
    const id = this.nextId++;
    const line = new Promise<string>((resolve, reject) => {
      this.pending.push(resolve);
      this.exited.then((code) =>
        reject(new Error(`the tool exited (${code}) before answering:\n${this.stderr}`)),
      );
    });
    this.child.stdin.write(JSON.stringify({ id, ...message }) + "\n");
    const text = await line;
    let response: Response;
    try {
      response = JSON.parse(text) as Response;
    } catch {
      assert.fail(`stdout line is not JSON: ${text}`);
    }
    assert.equal(response.id, id, `answer to message ${id} has id ${response.id}`);
    return response;
  }

  /** The id of the last message sent. */
  lastId(): number {
    return this.nextId - 1;
  }

  /** Closes stdin; the tool must exit with status 0 and have written nothing more. */
  async close(): Promise<void> {
    this.child.stdin.end();
    const code = await this.exited;
    assert.equal(code, 0, `exit code ${code}; stderr:\n${this.stderr}`);
    assert.deepEqual(this.early, [], "the tool wrote lines nobody asked for");
  }
}

function evaluateTimings(r: Response): number[] {
  assert.ok(Array.isArray(r.timings), "evaluate response has timings");
  for (const t of r.timings!) {
    assert.ok(Number.isInteger(t.nanoseconds) && t.nanoseconds >= 0, `timing ${JSON.stringify(t)}`);
  }
  return r.timings!.filter((t) => t.name === "evaluate").map((t) => t.nanoseconds);
}

function assertClose(actual: Json | undefined, expected: number, what: string): void {
  assert.equal(typeof actual, "number", `${what}: ${JSON.stringify(actual)}`);
  const a = actual as number;
  assert.ok(
    Math.abs(a - expected) <= 1e-10 * Math.max(1, Math.abs(expected)),
    `${what}: got ${a}, expected ${expected}`,
  );
}

function assertCloseArray(actual: Json | undefined, expected: number[], what: string): void {
  assert.ok(Array.isArray(actual), `${what}: ${JSON.stringify(actual)}`);
  assert.equal(actual.length, expected.length, `${what}: length`);
  expected.forEach((e, i) => assertClose((actual as Json[])[i], e, `${what}[${i}]`));
}

/** A small deterministic pseudo-random sequence in [0, 1). */
function uniforms(count: number, seed: number): number[] {
  let s = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.push(s / 2 ** 32);
  }
  return out;
}

/** llsq written out directly: y = ½ Σ_i (sign(t_i) − Σ_j x_j t_i^j)², and dy/dx. */
function llsqDirect(x: number[], n: number): { value: number; gradient: number[] } {
  let value = 0;
  const gradient = x.map(() => 0);
  for (let i = 0; i < n; i++) {
    const t = -1 + (2 * i) / (n - 1);
    let r = Math.sign(t);
    for (let j = 0; j < x.length; j++) r -= x[j] * t ** j;
    value += (r * r) / 2;
    for (let j = 0; j < x.length; j++) gradient[j] -= r * t ** j;
  }
  return { value, gradient };
}

test("a GradBench session: hello, llsq and lse give the right outputs and one timing per run", async () => {
  const tool = new Session();
  try {
    const start = await tool.send({ kind: "start", eval: "llsq" });
    assert.equal(start.tool, "nabla");

    const defineHello = await tool.send({ kind: "define", module: "hello" });
    assert.equal(defineHello.success, true, defineHello.error);
    const square = await tool.send({
      kind: "evaluate",
      module: "hello",
      function: "square",
      input: 3,
    });
    assert.equal(square.success, true, square.error);
    assert.equal(square.output, 9);
    assert.equal(evaluateTimings(square).length, 1, "hello inputs have no min_runs: one run");
    assert.deepEqual(await tool.send({ kind: "analysis", of: 2, valid: true }), { id: 3 });
    const double = await tool.send({
      kind: "evaluate",
      module: "hello",
      function: "double",
      input: 3,
    });
    assert.equal(double.output, 6);

    const x = uniforms(6, 7).map((u) => 2 * u - 1);
    const n = 11;
    const direct = llsqDirect(x, n);
    assert.equal((await tool.send({ kind: "define", module: "llsq" })).success, true);
    const input = { x, n, min_runs: 3, min_seconds: 0 };
    const primal = await tool.send({
      kind: "evaluate",
      module: "llsq",
      function: "primal",
      input,
      description: "n=11,m=6",
    });
    assert.equal(primal.success, true, primal.error);
    assertClose(primal.output, direct.value, "llsq primal");
    assert.equal(evaluateTimings(primal).length, 3, "min_runs 3: exactly 3 evaluate timings");
    assert.equal(primal.timings!.filter((t) => t.name === "prepare").length, 1);
    const grad = await tool.send({ kind: "evaluate", module: "llsq", function: "gradient", input });
    assert.equal(grad.success, true, grad.error);
    assertCloseArray(grad.output, direct.gradient, "llsq gradient");
    assert.equal(evaluateTimings(grad).length, 3);
    await tool.send({
      kind: "analysis",
      of: tool.lastId(),
      valid: false,
      error: "made up, for the test",
    });

    assert.equal((await tool.send({ kind: "define", module: "lse" })).success, true);
    const v = uniforms(5, 11);
    const a = Math.max(...v);
    const sum = v.reduce((s, vi) => s + Math.exp(vi - a), 0);
    const lse = await tool.send({
      kind: "evaluate",
      module: "lse",
      function: "primal",
      input: { x: v, min_runs: 1, min_seconds: 0.05 },
    });
    assertClose(lse.output, a + Math.log(sum), "lse primal");
    const runs = evaluateTimings(lse).length;
    assert.ok(runs > 3, `min_seconds 0.05 repeats a microsecond function (${runs} runs)`);
    const softmax = await tool.send({
      kind: "evaluate",
      module: "lse",
      function: "gradient",
      input: { x: v, min_runs: 3, min_seconds: 0 },
    });
    assertCloseArray(
      softmax.output,
      v.map((vi) => Math.exp(vi - a) / sum),
      "lse gradient",
    );
    assert.equal(evaluateTimings(softmax).length, 3);

    const unknownEval = await tool.send({ kind: "define", module: "no_such_eval" });
    assert.equal(unknownEval.success, false);
    assert.match(unknownEval.error ?? "", /no_such_eval/);
    const badName = await tool.send({ kind: "define", module: "../tool" });
    assert.equal(badName.success, false);
    const unknownFn = await tool.send({
      kind: "evaluate",
      module: "llsq",
      function: "hessian",
      input,
    });
    assert.equal(unknownFn.success, false);
    assert.match(unknownFn.error ?? "", /hessian/);
    const undefinedModule = await tool.send({
      kind: "evaluate",
      module: "det",
      function: "primal",
      input: { A: [1], ell: 1 },
    });
    assert.equal(undefinedModule.success, false);
    assert.match(undefinedModule.error ?? "", /not defined/);
    await tool.close();
  } finally {
    tool.child.kill();
  }
});

test("the GradBench tool: an eval that does not compile, a throwing eval, output to stdout, --hand", async () => {
  const dir = writeProgram({
    "broken.ts": `import { derivative } from "nabla";
function f(x: number): number {
  return Number(x.toFixed(2));
}
export function prepareD(input: number): number {
  return input;
}
export function runD(x: number): number {
  return derivative(f)(x);
}
`,
    "noisy.ts": `import { derivative } from "nabla";
console.log("loading noisy");
export function prepareD(input: number | { x: number }): number {
  console.info("preparing");
  return typeof input === "number" ? input : input.x;
}
export function runD(x: number): number {
  console.log("running");
  process.stdout.write("written to stdout\\n");
  return derivative((y: number) => y * y * y)(x);
}
export function prepareFails(input: number): number {
  return input;
}
export function runFails(x: number): number {
  throw new Error("eval failure " + x);
}
`,
  });
  const tool = new Session(["--dir", dir]);
  try {
    await tool.send({ kind: "start" });
    const broken = await tool.send({ kind: "define", module: "broken" });
    assert.equal(broken.success, false);
    assert.match(broken.error ?? "", /NABLA104/);
    const afterFailedDefine = await tool.send({
      kind: "evaluate",
      module: "broken",
      function: "d",
      input: 1,
    });
    assert.equal(afterFailedDefine.success, false);
    assert.match(afterFailedDefine.error ?? "", /could not be defined/);

    assert.equal((await tool.send({ kind: "define", module: "noisy" })).success, true);
    const d = await tool.send({
      kind: "evaluate",
      module: "noisy",
      function: "d",
      input: { x: 3, min_runs: 2 },
    });
    assert.equal(d.output, 27);
    assert.equal(evaluateTimings(d).length, 2);
    const d2 = await tool.send({ kind: "evaluate", module: "noisy", function: "d", input: 2 });
    assert.equal(d2.output, 12);
    const fails = await tool.send({
      kind: "evaluate",
      module: "noisy",
      function: "fails",
      input: 5,
    });
    assert.equal(fails.success, false);
    assert.match(fails.error ?? "", /eval failure 5/);
    await tool.close();
    assert.match(tool.stderr, /loading noisy/);
    assert.match(tool.stderr, /written to stdout/);
  } finally {
    tool.child.kill();
  }

  const hand = new Session(["--hand"]);
  try {
    assert.equal((await hand.send({ kind: "start" })).tool, "nabla");
    assert.equal((await hand.send({ kind: "define", module: "llsq" })).success, true);
    const x = uniforms(4, 3);
    const grad = await hand.send({
      kind: "evaluate",
      module: "llsq",
      function: "gradient",
      input: { x, n: 7, min_runs: 1, min_seconds: 0 },
    });
    assertCloseArray(grad.output, llsqDirect(x, 7).gradient, "hand llsq gradient");
    await hand.close();
    assert.match(hand.stderr, /hand[/\\]llsq\.ts/, "--hand loads hand/llsq.ts");
  } finally {
    hand.child.kill();
  }
});

// --- the reference workloads, when they are there -----------------------------------------------

const DATA = process.env.GRADBENCH_DATA ?? "/work/shared/gradbench";
const EVALS = [
  "hello",
  "llsq",
  "lse",
  "det",
  "ode",
  "kmeans",
  "gmm",
  "ba",
  "ht",
  "lstm",
  "particle",
  "saddle",
];

/** GradBench's comparison: same shapes and key sets, |x − y| / max(1, |x| + |y|) ≤ 1e-4 (numpy
 *  isclose for hello). Returns the first mismatches. */
function mismatches(expected: Json, actual: Json, hello: boolean, path = "", out: string[] = []) {
  const kind = (v: Json) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  if (kind(expected) !== kind(actual)) out.push(`${path}: ${kind(expected)} vs ${kind(actual)}`);
  else if (typeof expected === "number") {
    const x = expected;
    const y = actual as number;
    const ok = hello
      ? Math.abs(y - x) <= 1e-8 + 1e-5 * Math.abs(x)
      : Math.abs(x - y) / Math.max(1, Math.abs(x) + Math.abs(y)) <= 1e-4;
    if (!ok) out.push(`${path}: expected ${x}, got ${y}`);
  } else if (Array.isArray(expected)) {
    const ys = actual as Json[];
    if (expected.length !== ys.length)
      out.push(`${path}: length ${expected.length} vs ${ys.length}`);
    else expected.forEach((e, i) => mismatches(e, ys[i], hello, `${path}[${i}]`, out));
  } else if (typeof expected === "object" && expected !== null) {
    const xo = expected as { [key: string]: Json };
    const yo = actual as { [key: string]: Json };
    if (Object.keys(xo).sort().join() !== Object.keys(yo).sort().join())
      out.push(`${path}: keys ${Object.keys(xo)} vs ${Object.keys(yo)}`);
    else for (const k of Object.keys(xo)) mismatches(xo[k], yo[k], hello, `${path}.${k}`, out);
  } else if (expected !== actual) out.push(`${path}: ${String(expected)} vs ${String(actual)}`);
  return out;
}

test(
  "the GradBench tool on the smallest reference workload of every eval",
  {
    skip: existsSync(DATA) ? false : `no GradBench data at ${DATA} (set GRADBENCH_DATA)`,
    timeout: 60_000,
  },
  async (t) => {
    const tool = new Session();
    try {
      await tool.send({ kind: "start" });
      for (const name of EVALS) {
        const folder = join(DATA, name);
        if (!existsSync(folder)) {
          t.diagnostic(`${name}: no folder ${folder}`);
          continue;
        }
        const smallest = readdirSync(folder)
          .filter((f) => f.endsWith(".json"))
          .map((f) => ({ f, size: statSync(join(folder, f)).size }))
          .sort((a, b) => a.size - b.size)[0];
        if (smallest === undefined) continue;
        const record = JSON.parse(readFileSync(join(folder, smallest.f), "utf8")) as {
          input: Json;
          expected: { [fn: string]: Json };
        };
        const defined = await tool.send({ kind: "define", module: name });
        assert.equal(defined.success, true, `define ${name}: ${defined.error}`);
        // One run each: the values are what is checked here, not the speed.
        const input =
          typeof record.input === "object" && record.input !== null && !Array.isArray(record.input)
            ? { ...record.input, min_runs: 1, min_seconds: 0 }
            : record.input;
        for (const fn of Object.keys(record.expected)) {
          const r = await tool.send({ kind: "evaluate", module: name, function: fn, input });
          assert.equal(r.success, true, `${name}::${fn} on ${smallest.f}: ${r.error}`);
          assert.equal(evaluateTimings(r).length, 1);
          const bad = mismatches(record.expected[fn], r.output ?? null, name === "hello", fn);
          assert.deepEqual(bad.slice(0, 5), [], `${name}::${fn} on ${smallest.f}`);
          await tool.send({ kind: "analysis", of: tool.lastId(), valid: true });
        }
      }
      await tool.close();
    } finally {
      tool.child.kill();
    }
  },
);
