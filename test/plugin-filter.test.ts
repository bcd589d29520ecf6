import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rollup } from "rollup";
import nabla from "../src/plugin/index.js";
import { matcher } from "../src/plugin/filter.js";
import { FIXTURES } from "./support/harness.js";

// The plugin's include/exclude options in the forms the bundler ecosystem writes them.

test("filter patterns: RegExps, globs relative to the working folder or absolute, arrays", () => {
  const cwd = "/home/me/app";
  const cases: [Parameters<typeof matcher>[0], string, boolean][] = [
    [/\.ts$/, "/home/me/app/src/a.ts", true],
    [/\.ts$/g, "/home/me/app/src/a.ts", true],
    ["src/**/*.ts", "/home/me/app/src/deep/a.ts", true],
    ["src/**/*.ts", "/home/me/app/test/a.ts", false],
    ["**/*.ts", "/home/me/app/a.ts", true],
    ["**/*.ts", "/home/me/app/.hidden/a.ts", true],
    ["/home/me/app/lib/**", "/home/me/app/lib/x.ts", true],
    ["*.ts", "/home/me/app/a.ts", true],
    ["*.ts", "/home/me/app/src/a.ts", false],
    [["src/**", /\.mts$/], "/elsewhere/b.mts", true],
    [["src/**", /\.mts$/], "/elsewhere/b.ts", false],
    [[], "/home/me/app/a.ts", false],
    [undefined, "/home/me/app/a.ts", false],
  ];
  for (const [pattern, file, expected] of cases) {
    assert.equal(matcher(pattern, cwd)(file), expected, `${String(pattern)} on ${file}`);
  }
  // A global RegExp is stateless here: the same answer twice.
  const g = matcher(/a\.ts$/g, cwd);
  assert.equal(g("/x/a.ts"), true);
  assert.equal(g("/x/a.ts"), true);
  assert.throws(() => matcher([42 as unknown as string]), /must be a string or a RegExp/);
});

async function buildWith(options: Parameters<typeof nabla.rollup>[0]): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), "nabla-filter-"));
  const file = join(out, "bundle.mjs");
  const built = await rollup({
    input: join(FIXTURES, "bundler-app/main.ts"),
    plugins: [nabla.rollup(options)],
    logLevel: "silent",
  });
  await built.write({ file, format: "es" });
  await built.close();
  return file;
}

test("the plugin compiles what a glob includes, and leaves what it excludes to the bundler", async () => {
  const file = await buildWith({ include: ["**/bundler-app/*.ts"], exclude: "**/*.d.ts" });
  const run = spawnSync(process.execPath, [file], { encoding: "utf8" });
  assert.equal(run.stdout.trim(), "a=2.000000 b=1.000000");
  // Excluded, the TypeScript reaches Rollup untouched, which cannot parse its types.
  await assert.rejects(buildWith({ exclude: ["**/bundler-app/**"] }), (error) => {
    assert.doesNotMatch(String(error), /nabla could not compile/);
    return true;
  });
});
