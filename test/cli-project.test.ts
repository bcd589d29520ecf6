import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  assertClose,
  finiteGradient,
  REPO_ROOT,
  writeProgram,
  childStderr,
} from "./support/harness.js";
import { BIN, nabla, nablaEnv, USAGE_LINE } from "./support/cli.js";

// `nabla check` of TypeScript projects, `nabla build`, `nabla run --watch`: the real command
// on projects in temporary folders.

const CUBE = `import { derivative } from "nabla";
export const d = derivative((x: number) => x * x * x);
`;

const BAD = `import { derivative } from "nabla";
function f(x: number): number {
  return Number(x.toFixed(2));
}
export const d = derivative(f);
`;

/** TypeScript nabla does not read: only a file that uses nabla is checked. */
const NOT_NABLA = "export const broken = (;\n";

// ---------------------------------------------------------------------------------------------
// check: projects

test("check: with no path, the project of the tsconfig.json found (include and exclude through extends), files that use nabla only", () => {
  const root = writeProgram({
    "tsconfig.base.json": JSON.stringify({
      include: ["app/src"],
      exclude: ["app/src/skip"],
    }),
    "app/tsconfig.json": JSON.stringify({ extends: "../tsconfig.base.json" }),
    "app/src/a.ts": CUBE,
    "app/src/deep/plain.ts": NOT_NABLA,
    "app/src/skip/bad.ts": BAD,
    "app/outside.ts": BAD,
  });
  const app = join(root, "app");
  const expected =
    /^nabla: no errors in 1 file that use nabla \(of 2 TypeScript files in tsconfig\.json\) and the files they import\n$/;
  const here = nabla(["check"], app);
  assert.equal(here.status, 0, here.stderr);
  assert.match(here.stderr, expected);
  // Found from a folder below too, as tsc finds it.
  const below = nabla(["check"], join(app, "src/deep"));
  assert.equal(below.status, 0, below.stderr);
  for (const args of [
    ["-p", "tsconfig.json"],
    ["--project", "."],
  ]) {
    const r = nabla(["check", ...args], app);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, expected);
  }
  // A folder holding a tsconfig.json is that project.
  const folder = nabla(["check", "app"], root);
  assert.equal(folder.status, 0, folder.stderr);
  assert.match(folder.stderr, /\(of 2 TypeScript files in app\/tsconfig\.json\)/);

  // A file of the project with an error: the diagnostics, exit code 1, and what was checked.
  writeFileSync(join(app, "src/b.ts"), BAD);
  const bad = nabla(["check"], app);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^src\/b\.ts:3:17: error NABLA104/m);
  assert.doesNotMatch(bad.stderr, /outside\.ts|skip/);
  assert.match(
    bad.stderr,
    /nabla: checked 2 files that use nabla \(of 3 TypeScript files in tsconfig\.json\)\n$/,
  );
  const json = nabla(["check", "--format", "json"], app);
  assert.equal(json.status, 1);
  const report = JSON.parse(json.stdout) as { errors: number; files: string[] };
  assert.equal(report.errors, 1);
  assert.deepEqual(report.files, [join(app, "src/a.ts"), join(app, "src/b.ts")]);
});

test("check: a tsconfig.json listing 'files' checks those; a project without nabla has nothing to check", () => {
  const dir = writeProgram({
    "tsconfig.json": JSON.stringify({ files: ["main.ts"] }),
    "main.ts": CUBE,
    "other.ts": BAD,
  });
  const r = nabla(["check"], dir);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /no errors in 1 file and the files they import/);
  const plain = writeProgram({ "tsconfig.json": "{}", "plain.ts": NOT_NABLA });
  const none = nabla(["check"], plain);
  assert.equal(none.status, 0);
  assert.match(none.stderr, /nothing to check: no TypeScript file in tsconfig\.json uses nabla/);
});

test("check: a tsconfig.json that cannot be read, or a missing one, is reported plainly", () => {
  const dir = writeProgram({
    "tsconfig.json": JSON.stringify({ extends: "./missing.json" }),
    "main.ts": CUBE,
  });
  const r = nabla(["check"], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^nabla: cannot read 'tsconfig\.json': .*missing\.json/);
  const missing = nabla(["check", "-p", "nowhere/tsconfig.json"], dir);
  assert.equal(missing.status, 1);
  assert.equal(missing.stderr, "nabla: cannot find 'nowhere/tsconfig.json'\n");
  const both = nabla(["check", "-p", ".", "main.ts"], dir);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /^nabla: 'nabla check' takes paths or '--project', not both/);
});

// ---------------------------------------------------------------------------------------------
// build

/** A library of two modules: `model` imports `energy` from `physics` and differentiates it. */
const LIBRARY = {
  "src/physics/energy.ts": `export interface State {
  x: number;
  v: number;
}
export function energy(s: State, k: number): number {
  return 0.5 * s.v * s.v + k * (1 - Math.cos(s.x)) + Math.exp(0.1 * s.x * s.v);
}
`,
  "src/model.ts": `import { differential, gradient } from "nabla";
import { energy } from "./physics/energy";
import type { State } from "./physics/energy.js";

export function total(x: number, v: number, k: number): number {
  const s: State = { x, v };
  return energy(s, k) * Math.sqrt(1 + x * x);
}
/** Reverse mode. */
export const totalGradient = gradient(total);
/** Forward mode. */
export const totalDifferential = differential(total, { wrt: [0, 1, 2] });
`,
  "src/main.ts": `import { total, totalDifferential, totalGradient } from "./model.ts";
const points = [
  [0.3, -1.2, 2],
  [1.7, 0.4, 0.5],
];
const results = points.map(([x, v, k]) => ({
  point: [x, v, k],
  value: total(x!, v!, k!),
  reverse: totalGradient(x!, v!, k!),
  forward: [0, 1, 2].map((i) => totalDifferential(x!, v!, k!)(...[0, 1, 2].map((j) => (j === i ? 1 : 0)) as [number, number, number])),
}));
console.log(JSON.stringify(results));
`,
};

/** Makes `nabla` importable from `dir` as an installed package is (a link to this nabla). */
function installNabla(dir: string): void {
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(REPO_ROOT, join(dir, "node_modules/nabla"), "dir");
}

test("build: a two-module library, written with its derivatives, runs with plain node; forward and reverse agree with each other and with finite differences", async () => {
  const dir = writeProgram(LIBRARY);
  installNabla(dir);
  const r = nabla(["build", "src", "--out-dir", "dist"], dir);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    r.stderr,
    "nabla: wrote 3 JavaScript files with derivatives and source maps to dist\n",
  );
  for (const file of ["main.js", "model.js", "physics/energy.js"]) {
    const code = readFileSync(join(dir, "dist", file), "utf8");
    // Relative imports name the written files; none names a .ts file or no file.
    for (const [, specifier] of code.matchAll(/(?:from|import)\s*["'](\.[^"']*)["']/g))
      assert.match(specifier!, /\.js$/, `${file}: ${specifier}`);
    assert.ok(code.endsWith(`//# sourceMappingURL=${file.split("/").pop()}.map\n`), file);
  }
  const map = JSON.parse(readFileSync(join(dir, "dist/physics/energy.js.map"), "utf8")) as {
    sources: string[];
    sourcesContent: string[];
  };
  assert.deepEqual(map.sources, ["../../src/physics/energy.ts"]);
  assert.equal(map.sourcesContent[0], LIBRARY["src/physics/energy.ts"]);

  // Plain node, no loader: the output imports nabla's runtime like any package.
  const run = spawnSync(process.execPath, [join(dir, "dist/main.js")], {
    cwd: dir,
    encoding: "utf8",
    env: nablaEnv(),
  });
  assert.equal(childStderr(run), "");
  assert.equal(run.status, 0);
  const results = JSON.parse(run.stdout) as {
    point: number[];
    value: number;
    reverse: number[];
    forward: number[];
  }[];
  const model = (await import(pathToFileURL(join(dir, "dist/model.js")).href)) as {
    total: (x: number, v: number, k: number) => number;
  };
  for (const { point, value, reverse, forward } of results) {
    const [x, v, k] = point as [number, number, number];
    assertClose(value, model.total(x, v, k), 1e-12, "value");
    const fd = finiteGradient((a, b, c) => model.total(a!, b!, c!), point);
    for (let i = 0; i < 3; i++) {
      assertClose(reverse[i]!, fd[i]!, 1e-6, `reverse ∂${i} at ${point}`);
      assertClose(forward[i]!, reverse[i]!, 1e-12, `forward vs reverse ∂${i} at ${point}`);
    }
  }
});

test("build: an error thrown by the built code points at the .ts source through its source map", () => {
  const dir = writeProgram({
    "lib/fail.ts": `import { gradient } from "nabla";
export function f(x: number): number {
  return x * x;
}
export const g = gradient(f);
export function fail(): never {
  throw new Error("boom");
}
`,
    "lib/main.ts": `import { fail, g } from "./fail.js";
console.log(g(3));
fail();
`,
  });
  installNabla(dir);
  assert.equal(nabla(["build", "lib", "--out-dir", "out"], dir).status, 0);
  const run = spawnSync(process.execPath, ["--enable-source-maps", join(dir, "out/main.js")], {
    cwd: dir,
    encoding: "utf8",
    env: nablaEnv(),
  });
  assert.equal(run.stdout, "6\n");
  assert.match(run.stderr, /lib\/fail\.ts:7:9/);
});

test("build: bad input gets the usual diagnostics, exit code 1 and nothing written", () => {
  const dir = writeProgram({ "src/ok.ts": CUBE, "src/bad.ts": BAD });
  const r = nabla(["build", "src", "--out-dir", "dist"], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^src\/bad\.ts:3:17: error NABLA104: '\.toFixed' is not differentiable/);
  assert.match(r.stderr, /\n> 3 \| {3}return Number\(x\.toFixed\(2\)\);\n/);
  assert.ok(!existsSync(join(dir, "dist")));
});

test("build: a project's outDir and layout (as tsc's), the out folder left out of the input, and the command line's mistakes", () => {
  const dir = writeProgram({
    "tsconfig.json": JSON.stringify({ include: ["src"], compilerOptions: { outDir: "build" } }),
    "src/main.ts": CUBE,
    "src/util/plain.ts": "export const two = (): number => 2;\n",
  });
  const r = nabla(["build"], dir);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(join(dir, "build/main.js")), r.stderr);
  assert.ok(existsSync(join(dir, "build/util/plain.js")));
  // Building a folder into a folder inside it leaves what is there alone.
  const folder = writeProgram({ "main.ts": CUBE });
  assert.equal(nabla(["build", ".", "--out-dir", "out"], folder).status, 0);
  writeFileSync(join(folder, "out/stale.ts"), BAD);
  const again = nabla(["build", ".", "--out-dir", "out"], folder);
  assert.equal(again.status, 0, again.stderr);
  assert.ok(existsSync(join(folder, "out/main.js")) && !existsSync(join(folder, "out/out")));

  const noOut = nabla(["build", "src/main.ts"], dir);
  assert.equal(noOut.status, 2);
  assert.match(noOut.stderr, /^nabla: 'nabla build' needs '--out-dir <dir>'/);
  assert.match(noOut.stderr, USAGE_LINE);
  const unknown = nabla(["build", "src/main.ts", "--outdir", "x"], dir);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^nabla: unknown option '--outdir' for 'nabla build'\n/);
  const outside = writeProgram({
    "shared/util.ts": "export const three = (): number => 3;\n",
    "lib/main.ts": `import { three } from "../shared/util.ts";\nconsole.log(three());\n`,
  });
  const escape = nabla(["build", "lib", "--out-dir", "out"], outside);
  assert.equal(escape.status, 1);
  assert.match(escape.stderr, /'shared\/util\.ts' is imported by the input but is outside 'lib'/);
});

// ---------------------------------------------------------------------------------------------
// run --watch

/** Waits until `text()` matches `pattern`, or fails after `ms`. */
async function waitFor(text: () => string, pattern: RegExp, ms = 20_000): Promise<void> {
  const start = Date.now();
  while (!pattern.test(text())) {
    if (Date.now() - start > ms) assert.fail(`timed out waiting for ${pattern}; got:\n${text()}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

test("run --watch: runs again when the entry or a module it imports changes, and stops with nabla", async () => {
  const dir = writeProgram({
    "main.ts": `import { derivative } from "nabla";
import { shape } from "./shape.ts";
console.log("d =", derivative(shape)(2), process.argv[2]);
`,
    "shape.ts": "export const shape = (x: number): number => x * x * x;\n",
  });
  const child = spawn(process.execPath, [BIN, "run", "--watch", "main.ts", "arg"], {
    cwd: dir,
    env: nablaEnv(),
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const closed = new Promise<void>((done) => child.stdout.on("close", () => done()));
  try {
    await waitFor(() => out, /d = 12 arg\n/);
    // A module the entry imports: d/dx x⁴ at 2 is 32.
    writeFileSync(join(dir, "shape.ts"), "export const shape = (x: number): number => x ** 4;\n");
    await waitFor(() => out, /d = 32 arg\n/);
    // The entry itself.
    writeFileSync(
      join(dir, "main.ts"),
      readFileSync(join(dir, "main.ts"), "utf8").replace("(2)", "(1)"),
    );
    await waitFor(() => out, /d = 4 arg\n/);
  } finally {
    child.kill("SIGTERM");
  }
  // nabla's watcher and the program stop with it: the output pipe closes.
  await closed;
});

// ---------------------------------------------------------------------------------------------
// usage

test("usage: an unknown option of 'nabla run' gets nabla's usage, not 'cannot find'", () => {
  const dir = writeProgram({ "main.ts": CUBE });
  const r = nabla(["run", "--bogus", "main.ts"], dir);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^nabla: unknown option '--bogus' for 'nabla run'\n/);
  assert.match(r.stderr, USAGE_LINE);
  const top = nabla(["--bogus"], dir);
  assert.equal(top.status, 2);
  assert.match(top.stderr, /^nabla: unknown option '--bogus'\n/);
  assert.match(top.stderr, USAGE_LINE);
  // After the file, options are the program's own.
  const own = nabla(["run", "main.ts", "--bogus"], dir);
  assert.equal(own.status, 0, own.stderr);
});

test("usage: --help lists build, run --watch, check's project and JSON options, --backend", () => {
  const r = nabla(["--help"]);
  for (const text of [
    "nabla build",
    "--out-dir",
    "nabla run --watch",
    "-p tsconfig.json",
    "--format json",
    "nabla run --backend <js|wasm|auto>",
  ])
    assert.ok(r.stdout.includes(text), text);
});
