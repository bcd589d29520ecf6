import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./support/harness.js";

// The GradBench tool launched the ways GradBench launches tools. GradBench's CLI splits the
// `--tool` string into words and starts the first one as a program with the others as its
// arguments: no shell, so no `cd … &&`. These tests do the same (spawn with an argument vector,
// `shell: false`) with the command gradbench/README.md documents, `npm --prefix <nabla> run
// --silent gradbench:tool -- --multithreaded`, and with the entry point of the Docker image in
// gradbench/upstream/tools/nabla/Dockerfile, run on a copy made by gradbench/upstream/export.sh.
// Then they speak the protocol: every stdout line must be one JSON response with the message's
// id, in order, and nothing else (npm's banner, for one, must not appear).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Response = { [key: string]: Json };

const UPSTREAM = join(REPO_ROOT, "gradbench/upstream");

/** The environment of a launch: none of the tool's own settings, no npm update check. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: "false" };
  delete env.NABLA_DEBUG;
  delete env.NABLA_GRADBENCH_HAND;
  delete env.NABLA_GRADBENCH_DIR;
  return env;
}

/** GradBench's word splitting for the simple commands used here (no quotes, no spaces in
 *  paths): a command string becomes an argument vector. */
function words(command: string): string[] {
  assert.ok(!/["'\\]/.test(command), `no quoting in ${command}`);
  return command.split(/\s+/).filter((w) => w !== "");
}

/** A tool process started from an argument vector, without a shell. */
class Launched {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  private readonly waiting: ((line: string) => void)[] = [];
  private nextId = 0;
  stderr = "";
  readonly exited: Promise<number | null>;

  constructor(argv: string[], cwd: string) {
    this.child = spawn(argv[0], argv.slice(1), { cwd, env: cleanEnv(), shell: false });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => (this.stderr += chunk));
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on("line", (line) => {
      this.lines.push(line);
      this.waiting.shift()?.(line);
    });
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
  }

  /** Sends the message with the next consecutive id; returns the parsed response line. */
  async send(message: Response): Promise<Response> {
    const id = this.nextId++;
    const answered = new Promise<string>((resolve, reject) => {
      this.waiting.push(resolve);
      void this.exited.then((code) =>
        reject(new Error(`the tool exited (${code}) before answering ${id}:\n${this.stderr}`)),
      );
    });
    this.child.stdin.write(JSON.stringify({ id, ...message }) + "\n");
    const line = await answered;
    let response: Response;
    try {
      response = JSON.parse(line) as Response;
    } catch {
      assert.fail(
        `a stdout line is not JSON: ${JSON.stringify(line)}; stdout so far:\n${this.lines.join("\n")}`,
      );
    }
    assert.ok(
      typeof response === "object" && response !== null && !Array.isArray(response),
      `a response is a JSON object: ${line}`,
    );
    assert.equal(response.id, id, `the answer to message ${id} has id ${String(response.id)}`);
    return response;
  }

  /** Closes stdin: the tool must exit 0, every stdout line having been a response. */
  async close(): Promise<void> {
    this.child.stdin.end();
    const code = await this.exited;
    assert.equal(code, 0, `exit code ${code}; stderr:\n${this.stderr}`);
    assert.equal(
      this.lines.length,
      this.nextId,
      `stdout had extra lines:\n${this.lines.join("\n")}`,
    );
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }
}

/** Timings as the protocol wants them: a list of {name, nanoseconds} with integer nanoseconds. */
function assertTimings(response: Response, names: string[]): void {
  const timings = response.timings;
  assert.ok(Array.isArray(timings), `timings: ${JSON.stringify(response)}`);
  for (const t of timings) {
    assert.ok(typeof t === "object" && t !== null && !Array.isArray(t), JSON.stringify(t));
    assert.equal(typeof t.name, "string");
    assert.ok(
      typeof t.nanoseconds === "number" && Number.isInteger(t.nanoseconds) && t.nanoseconds >= 0,
      `nanoseconds of ${JSON.stringify(t)}`,
    );
  }
  for (const name of names)
    assert.ok(
      timings.some((t) => (t as Response).name === name),
      `a "${name}" timing in ${JSON.stringify(timings)}`,
    );
}

/** llsq's gradient, written out: y = ½ Σ_i (sign(t_i) − Σ_j x_j t_i^j)². */
function llsqGradient(x: number[], n: number): number[] {
  const g = x.map(() => 0);
  for (let i = 0; i < n; i++) {
    const t = -1 + (2 * i) / (n - 1);
    let r = Math.sign(t);
    for (let j = 0; j < x.length; j++) r -= x[j] * t ** j;
    for (let j = 0; j < x.length; j++) g[j] -= r * t ** j;
  }
  return g;
}

/** One eval's session as GradBench's evals run it: start, define, evaluate (+ analysis). */
async function session(tool: Launched): Promise<void> {
  const start = await tool.send({ kind: "start", eval: "llsq" });
  assert.equal(start.tool, "nabla");
  assert.deepEqual(start.config, { derivatives: "nabla", threads: 1 });

  const define = await tool.send({ kind: "define", module: "llsq" });
  assert.equal(define.success, true, JSON.stringify(define));
  assertTimings(define, ["define"]);

  const x = [0.5, -0.25, 0.125, 1];
  const input = { x, n: 9, min_runs: 3, min_seconds: 0 };
  const evaluate = await tool.send({
    kind: "evaluate",
    module: "llsq",
    function: "gradient",
    input,
  });
  assert.equal(evaluate.success, true, JSON.stringify(evaluate));
  assertTimings(evaluate, ["prepare", "evaluate"]);
  const runs = (evaluate.timings as Response[]).filter((t) => t.name === "evaluate").length;
  assert.equal(runs, 3, "one evaluate timing per run, min_runs of them");
  const output = evaluate.output;
  assert.ok(Array.isArray(output) && output.length === x.length, JSON.stringify(output));
  llsqGradient(x, 9).forEach((e, i) =>
    assert.ok(Math.abs((output[i] as number) - e) <= 1e-12 * Math.max(1, Math.abs(e)), `[${i}]`),
  );

  const analysis = await tool.send({ kind: "analysis", of: evaluate.id, valid: true });
  assert.deepEqual(Object.keys(analysis), ["id"], "an analysis is answered with its id only");
}

test("GradBench's launch: `npm --prefix <nabla> run --silent gradbench:tool -- --multithreaded`, no shell, from another folder", async () => {
  assert.ok(!/\s/.test(REPO_ROOT), "the repository path has no spaces (words() splits on them)");
  const command = `npm --prefix ${REPO_ROOT} run --silent gradbench:tool -- --multithreaded`;
  const elsewhere = mkdtempSync(join(tmpdir(), "nabla-gb-launch-"));
  const tool = new Launched(words(command), elsewhere);
  try {
    await session(tool);
    await tool.close();
    assert.match(tool.stderr, /--multithreaded: nabla's derivatives are single-threaded/);
  } finally {
    tool.kill();
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

test("--multithreaded no longer exits 2 (an unknown option still does)", async () => {
  const run = async (args: string[]): Promise<{ code: number | null; stderr: string }> => {
    const tool = new Launched(
      [process.execPath, "bin/nabla.js", "run", "gradbench/tool.ts", ...args],
      REPO_ROOT,
    );
    tool.child.stdin.end();
    return { code: await tool.exited, stderr: tool.stderr };
  };
  const [accepted, rejected] = await Promise.all([
    run(["--multithreaded"]),
    run(["--multithreaded", "--no-such-option"]),
  ]);
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.equal(rejected.code, 2, rejected.stderr);
  assert.match(rejected.stderr, /unknown argument '--no-such-option'/);
});

test("upstream/tools/nabla: evals.txt lists every eval, sorted; the Docker entry point runs an export.sh copy", async () => {
  const listed = readFileSync(join(UPSTREAM, "tools/nabla/evals.txt"), "utf8").split("\n");
  assert.equal(listed.pop(), "", "evals.txt ends with a newline");
  assert.deepEqual(listed, [...listed].sort(), "evals.txt is sorted (GradBench's test checks)");
  const modules = readdirSync(join(REPO_ROOT, "gradbench/evals"))
    .filter((f) => f.endsWith(".ts") && f !== "gd.ts")
    .map((f) => f.slice(0, -3))
    .sort();
  assert.deepEqual(listed, modules, "evals.txt names every eval module (gd.ts is a helper)");

  const dockerfile = readFileSync(join(UPSTREAM, "tools/nabla/Dockerfile"), "utf8");
  const lines = dockerfile.trimEnd().split("\n");
  assert.equal(
    lines[lines.length - 1],
    "LABEL org.opencontainers.image.source=https://github.com/gradbench/gradbench",
    "GradBench wants this label as the Dockerfile's last line",
  );
  const entry = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile);
  assert.ok(entry, "the Dockerfile has an exec-form ENTRYPOINT (no shell)");
  const entrypoint = JSON.parse(entry[1]) as string[];
  assert.equal(entrypoint[0], "node");

  // The image's layout: WORKDIR /gradbench holds node_modules/nabla (here a link to this
  // repository instead of the npm package) and the exported tools/nabla.
  const root = mkdtempSync(join(tmpdir(), "nabla-gb-image-"));
  let tool: Launched | undefined;
  try {
    writeFileSync(join(root, "package.json"), '{ "dependencies": { "nabla": "^0.1.0" } }\n');
    mkdirSync(join(root, "node_modules"));
    symlinkSync(REPO_ROOT, join(root, "node_modules/nabla"), "dir");
    const exported = new Launched(["sh", join(UPSTREAM, "export.sh"), root], REPO_ROOT);
    exported.child.stdin.end();
    assert.equal(await exported.exited, 0, exported.stderr);
    for (const file of ["Dockerfile", "README.md", "evals.txt", "tool.ts", "json.ts"])
      assert.ok(existsSync(join(root, "tools/nabla", file)), `tools/nabla/${file}`);
    for (const name of [...modules, "gd"])
      assert.ok(existsSync(join(root, "tools/nabla/evals", `${name}.ts`)), `evals/${name}.ts`);

    tool = new Launched([process.execPath, ...entrypoint.slice(1), "--multithreaded"], root);
    await session(tool);
    await tool.close();
    assert.match(tool.stderr, new RegExp(`defined llsq from ${join(root, "tools/nabla/evals")}`));
  } finally {
    tool?.kill();
    rmSync(root, { recursive: true, force: true });
  }
});
