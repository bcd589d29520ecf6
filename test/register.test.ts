import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, REPO_ROOT, writeProgram, childStderr } from "./support/harness.js";

// `node --import nabla/register app.ts`: the Node loader compiles TypeScript programs with
// their derivatives, and keeps compiled programs on disk so the next start reuses them.

const REGISTER = join(REPO_ROOT, "dist/src/register/index.js");
const APP = ["lib.ts", "main.ts"].map((f) => [
  f,
  readFileSync(join(FIXTURES, "bundler-app", f), "utf8"),
]);

function node(args: string[], cwd: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
}

/** A project folder (with package.json) holding the two-file app of the bundler tests. */
function project(): string {
  return writeProgram({ "package.json": '{ "type": "module" }\n', ...Object.fromEntries(APP) });
}

test("node --import nabla/register runs a TypeScript program with its derivatives", () => {
  const run = node(["--import", "nabla/register", "test/fixtures/bundler-app/main.ts"], REPO_ROOT, {
    NABLA_CACHE: "0",
  });
  assert.equal(childStderr(run), "");
  assert.equal(run.status, 0);
  assert.equal(run.stdout, "a=2.000000 b=1.000000\n");
});

test("the loader caches compiled programs on disk, keyed by the content of every file", () => {
  const dir = project();
  const cache = join(dir, "node_modules/.cache/nabla");
  const first = node(["--import", REGISTER, "main.ts"], dir);
  assert.equal(first.stderr, "");
  assert.equal(first.stdout, "a=2.000000 b=1.000000\n");
  const entries = readdirSync(cache);
  assert.equal(entries.length, 1);

  // The next start runs what is stored, without compiling: marked, the stored code shows.
  const stored = join(cache, entries[0]!);
  writeFileSync(stored, readFileSync(stored, "utf8").replace("`a=", "`cached a="));
  const second = node(["--import", REGISTER, "main.ts"], dir);
  assert.equal(second.stdout, "cached a=2.000000 b=1.000000\n");

  // Any file of the program changing, even one only imported, means compiling again.
  const lib = join(dir, "lib.ts");
  writeFileSync(
    lib,
    readFileSync(lib, "utf8").replace("return sum / xs.length;", "return (2 * sum) / xs.length;"),
  );
  const third = node(["--import", REGISTER, "main.ts"], dir);
  assert.equal(third.stdout, "a=2.000000 b=1.000000\n");
  assert.doesNotMatch(readFileSync(stored, "utf8"), /cached a=/);
  assert.match(readFileSync(stored, "utf8"), /2 \* sum/);
});

test("NABLA_CACHE=0 turns the disk cache off; NABLA_CACHE_DIR moves it", () => {
  const dir = project();
  node(["--import", REGISTER, "main.ts"], dir, { NABLA_CACHE: "0" });
  assert.equal(existsSync(join(dir, "node_modules")), false);
  const elsewhere = writeProgram({});
  const run = node(["--import", REGISTER, "main.ts"], dir, { NABLA_CACHE_DIR: elsewhere });
  assert.equal(run.stdout, "a=2.000000 b=1.000000\n");
  assert.equal(readdirSync(elsewhere).length, 1);
});

test("a program nabla cannot differentiate stops the loader with the diagnostic, exit code 1", () => {
  const dir = writeProgram({
    "main.ts": [
      'import { gradient } from "nabla";',
      "function roundTrip(x: number): number {",
      "  return Number(x.toFixed(2)) * x;",
      "}",
      "console.log(gradient(roundTrip)(1.5));",
      "",
    ].join("\n"),
  });
  const run = node(["--import", REGISTER, "main.ts"], dir, { NABLA_CACHE: "0" });
  assert.equal(run.status, 1);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /^main\.ts:3:17: error NABLA104: /);
  assert.match(run.stderr, /main\.ts:5:13: note: when differentiating 'roundTrip' for 'gradient'/);
  assert.doesNotMatch(run.stderr, /node:internal|\n\s+at /, "no stack trace of the loader");
});
