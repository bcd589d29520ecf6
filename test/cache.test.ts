import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { DiskCache } from "../src/register/cache.js";
import { isEntry } from "../src/register/cache-entry.js";
import { REPO_ROOT, writeProgram, childStderr } from "./support/harness.js";

// The loader's disk cache (src/register/cache.ts): what an entry depends on (every file read,
// every path resolution looked at, nabla's identity and options), where it lives (a folder
// only the user can write), and that no cache file, however broken or hostile, crashes a start
// or runs code no source file vouches for.

const REGISTER = join(REPO_ROOT, "dist/src/register/index.js");

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `node --import nabla/register <args>` in `cwd`, with a cache folder of its own by default. */
function start(args: string[], cwd: string, env: Record<string, string | undefined> = {}): Run {
  const merged: Record<string, string | undefined> = {
    ...process.env,
    NABLA_CACHE: undefined,
    NABLA_CACHE_DIR: undefined,
    NABLA_DEBUG: undefined,
    ...env,
  };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const r = spawnSync(process.execPath, ["--import", REGISTER, ...args], {
    cwd,
    encoding: "utf8",
    env: merged as NodeJS.ProcessEnv,
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Prints f's value at 1.5 and its derivative three ways: forward mode, reverse mode and a
 * central difference, so a stale or mixed program shows as a disagreement.
 */
const MAIN = `import { derivative, gradient } from "nabla";
import { f } from "./lib";
const x = 1.5;
const h = 1e-6;
const fd = (f(x + h) - f(x - h)) / (2 * h);
console.log(JSON.stringify([f(x), derivative(f)(x), gradient(f)(x), fd]));
`;

/** f = x³ in lib/index.ts; lib.ts (when present) is what `./lib` names first: f = sin(x)·x. */
const LIB_INDEX = `export function f(x: number): number {
  return x * x * x;
}
`;
const LIB_FILE = `export function f(x: number): number {
  return Math.sin(x) * x;
}
`;

/** Checks a run of MAIN: the value, and forward = reverse = finite difference = `slope`. */
function assertDerivatives(run: Run, value: number, slope: number): void {
  assert.equal(childStderr(run), "");
  assert.equal(run.status, 0);
  const [v, forward, reverse, fd] = JSON.parse(run.stdout) as number[];
  assert.ok(Math.abs(v! - value) < 1e-12, `value ${v} vs ${value}`);
  assert.ok(Math.abs(forward! - slope) < 1e-12, `forward ${forward} vs ${slope}`);
  assert.ok(Math.abs(reverse! - forward!) < 1e-12, `reverse ${reverse} vs forward ${forward}`);
  assert.ok(Math.abs(fd! - forward!) < 1e-6, `finite difference ${fd} vs forward ${forward}`);
}

const CUBE = { value: 1.5 ** 3, slope: 3 * 1.5 ** 2 };
const SINX = { value: Math.sin(1.5) * 1.5, slope: Math.cos(1.5) * 1.5 + Math.sin(1.5) };

/** A project (package.json) with MAIN and lib/index.ts; its cache is node_modules/.cache/nabla. */
function project(): { dir: string; cache: string } {
  const dir = writeProgram({
    "package.json": '{ "type": "module" }\n',
    "main.ts": MAIN,
    "lib/index.ts": LIB_INDEX,
  });
  return { dir, cache: join(dir, "node_modules/.cache/nabla") };
}

/** The one entry file of a cache folder. */
function entryFile(cache: string): string {
  const files = readdirSync(cache).filter((f) => f.endsWith(".json"));
  assert.equal(files.length, 1, `entries: ${files.join(", ")}`);
  return join(cache, files[0]!);
}

test("a file appearing where an import now resolves (lib.ts next to lib/index.ts) invalidates the cached program", () => {
  const { dir } = project();
  assertDerivatives(start(["main.ts"], dir), CUBE.value, CUBE.slope);
  assertDerivatives(start(["main.ts"], dir), CUBE.value, CUBE.slope);
  writeFileSync(join(dir, "lib.ts"), LIB_FILE);
  // Uncached and cached runs agree: `./lib` is lib.ts now, derivative and value alike.
  assertDerivatives(start(["main.ts"], dir, { NABLA_CACHE: "0" }), SINX.value, SINX.slope);
  assertDerivatives(start(["main.ts"], dir), SINX.value, SINX.slope);
  assertDerivatives(start(["main.ts"], dir), SINX.value, SINX.slope);
});

test("a cache entry records every path resolution probed, those where nothing was too", () => {
  const { dir, cache } = project();
  start(["main.ts"], dir);
  const stored = JSON.parse(readFileSync(entryFile(cache), "utf8")) as {
    probes: Record<string, string>;
    inputs: Record<string, string>;
  };
  assert.equal(stored.probes[join(dir, "lib.ts")], "none");
  assert.equal(stored.probes[join(dir, "lib")], "other");
  assert.equal(stored.probes[join(dir, "lib/index.ts")], "file");
  assert.deepEqual(Object.keys(stored.inputs).sort(), [
    join(dir, "lib/index.ts"),
    join(dir, "main.ts"),
  ]);
});

test("the cache is keyed by nabla's options: warnings stored for another working folder are not reused", () => {
  const dir = writeProgram({
    "package.json": '{ "type": "module" }\n',
    "app/main.ts": `import { derivative } from "nabla";\nconsole.log(derivative((x: number) => 3)(1));\n`,
  });
  const inApp = start(["main.ts"], join(dir, "app"));
  assert.match(inApp.stderr, /^main\.ts:2:24: warning NABLA201/);
  const above = start(["app/main.ts"], dir);
  assert.equal(above.stdout, "0\n");
  assert.match(above.stderr, /^app\/main\.ts:2:24: warning NABLA201/);
});

test("entries are found by nabla's identity and options, and reused only under them", () => {
  const dir = writeProgram({ "main.ts": "export const x = 1;\n" });
  const entry = join(dir, "main.ts");
  const facts = { inputs: new Map([[entry, "export const x = 1;\n"]]), probes: new Map() };
  const output = { file: entry, code: "export const x = 1;\n", map: emptyMap() };
  const store = join(dir, "cache");
  mkdirSync(store, { mode: 0o700 });
  new DiskCache(store, { cwd: "/a" }).store(entry, facts, new Map([[entry, output]]), "");
  assert.ok(new DiskCache(store, { cwd: "/a" }).lookup(entry));
  assert.equal(new DiskCache(store, { cwd: "/b" }).lookup(entry), undefined);
  // A changed input, or a probed path that changed, and the entry is not reused.
  writeFileSync(entry, "export const x = 2;\n");
  assert.equal(new DiskCache(store, { cwd: "/a" }).lookup(entry), undefined);
});

function emptyMap() {
  return { version: 3 as const, sources: [], names: [], mappings: "" };
}

/** Cache files no start may crash on or take code from; each is ignored and replaced. */
function hostileEntries(valid: Record<string, unknown>, dir: string): [string, string][] {
  const main = join(dir, "main.ts");
  const injected = { code: 'console.log("INJECTED");\n', map: emptyMap() };
  const text = JSON.stringify(valid);
  const json = (value: unknown) => JSON.stringify(value);
  const inputs = valid.inputs as Record<string, string>;
  return [
    ["null", "null"],
    ["garbage", "\u0000\u00ff not json at all {{{"],
    ["truncated JSON", text.slice(0, Math.floor(text.length / 2))],
    ["empty file", ""],
    ["an array", "[]"],
    ["a number", "42"],
    ["an empty object", "{}"],
    ["inputs null", json({ ...valid, inputs: null })],
    ["outputs an array", json({ ...valid, outputs: [] })],
    ["a probe of unknown kind", json({ ...valid, probes: { [main]: "maybe" } })],
    ["a relative input path", json({ ...valid, inputs: { "main.ts": inputs[main] } })],
    ["an input hash that is not a hash", json({ ...valid, inputs: { ...inputs, [main]: "x" } })],
    [
      "empty inputs with code (reused forever before)",
      json({ ...valid, inputs: {}, outputs: { [main]: injected } }),
    ],
    [
      "code for a file not among the inputs",
      json({ ...valid, outputs: { ...(valid.outputs as object), [join(dir, "x.ts")]: injected } }),
    ],
    ["a key that does not match", json({ ...valid, key: "0".repeat(64) })],
    ["another entry's file", json({ ...valid, entry: join(dir, "other.ts") })],
  ];
}

test("hostile and corrupt cache files are ignored and replaced, never a crash", () => {
  const { dir, cache } = project();
  assertDerivatives(start(["main.ts"], dir), CUBE.value, CUBE.slope);
  const file = entryFile(cache);
  const valid = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  for (const [name, content] of hostileEntries(valid, dir)) {
    writeFileSync(file, content);
    const run = start(["main.ts"], dir);
    assert.doesNotMatch(run.stdout, /INJECTED/, name);
    assert.equal(run.stderr, "", name);
    assertDerivatives(run, CUBE.value, CUBE.slope);
    const replaced: unknown = JSON.parse(readFileSync(file, "utf8"));
    assert.ok(isEntry(replaced, join(dir, "main.ts")), `${name}: replaced by a valid entry`);
  }
  assert.deepEqual(
    readdirSync(cache).filter((f) => f.endsWith(".tmp")),
    [],
  );
});

test("a temporary file is never written through a link someone put at its path", () => {
  const dir = writeProgram({ "main.ts": "export const x = 1;\n", "victim.txt": "precious\n" });
  const store = join(dir, "cache");
  mkdirSync(store, { mode: 0o700 });
  const entry = join(dir, "main.ts");
  const cache = new DiskCache(store, {}, () => "fixed");
  const temporary = `${cache.fileOf(entry)}.fixed.tmp`;
  symlinkSync(join(dir, "victim.txt"), temporary);
  const output = { file: entry, code: "export const x = 1;\n", map: emptyMap() };
  const facts = { inputs: new Map([[entry, "export const x = 1;\n"]]), probes: new Map() };
  cache.store(entry, facts, new Map([[entry, output]]), "");
  assert.equal(readFileSync(join(dir, "victim.txt"), "utf8"), "precious\n");
  assert.ok(lstatSync(temporary).isSymbolicLink(), "someone else's file is left alone");
  assert.equal(cache.lookup(entry), undefined);
});

test("a failed rename leaves no temporary file behind", () => {
  const dir = writeProgram({ "main.ts": "export const x = 1;\n" });
  const store = join(dir, "cache");
  mkdirSync(store, { mode: 0o700 });
  const entry = join(dir, "main.ts");
  const cache = new DiskCache(store, {});
  // A folder where the entry goes: the rename onto it fails.
  mkdirSync(cache.fileOf(entry));
  writeFileSync(join(cache.fileOf(entry), "keep"), "");
  const output = { file: entry, code: "export const x = 1;\n", map: emptyMap() };
  const facts = { inputs: new Map([[entry, "export const x = 1;\n"]]), probes: new Map() };
  cache.store(entry, facts, new Map([[entry, output]]), "");
  assert.deepEqual(
    readdirSync(store).filter((f) => f.endsWith(".tmp")),
    [],
  );
});

test("a cache folder others may write to is refused, with one warning, and the program runs", () => {
  const { dir } = project();
  // A second program (a dynamic import) asks for the cache again: still one warning.
  writeFileSync(join(dir, "other.ts"), "export const y: number = 2;\n");
  writeFileSync(
    join(dir, "main.ts"),
    MAIN.replace("console.log(", 'await import("./other.ts");\nconsole.log('),
  );
  const shared = join(writeProgram({}), "shared");
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  const run = start(["main.ts"], dir, { NABLA_CACHE_DIR: shared });
  const warnings = run.stderr.split("\n").filter(Boolean);
  assert.equal(warnings.length, 1, run.stderr);
  assert.match(
    warnings[0]!,
    /^nabla: not using the disk cache in .*shared: other users may write to it \(mode 777\)/,
  );
  assertDerivatives({ ...run, stderr: "" }, CUBE.value, CUBE.slope);
  assert.deepEqual(readdirSync(shared), []);
});

test(
  "a cache folder owned by another user is refused",
  { skip: process.getuid?.() !== 0 && "needs root to chown" },
  () => {
    const { dir } = project();
    const foreign = join(writeProgram({}), "foreign");
    mkdirSync(foreign, { mode: 0o700 });
    chownSync(foreign, 4242, 4242);
    const run = start(["main.ts"], dir, { NABLA_CACHE_DIR: foreign });
    assert.match(
      run.stderr,
      /^nabla: not using the disk cache in .*: it belongs to another user \(uid 4242\)\n$/,
    );
    assertDerivatives({ ...run, stderr: "" }, CUBE.value, CUBE.slope);
    assert.deepEqual(readdirSync(foreign), []);
  },
);

test("without a package, the cache is the user's own ($XDG_CACHE_HOME/nabla, mode 0700), not the shared temp folder", () => {
  const dir = writeProgram({ "main.ts": MAIN, "lib/index.ts": LIB_INDEX });
  const home = writeProgram({});
  assertDerivatives(start(["main.ts"], dir, { XDG_CACHE_HOME: home }), CUBE.value, CUBE.slope);
  const cache = join(home, "nabla");
  assert.equal(statSync(cache).mode & 0o777, 0o700);
  entryFile(cache);
  assert.equal(statSync(entryFile(cache)).mode & 0o077, 0, "entries are private too");
});
