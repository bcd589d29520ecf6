import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";
import { BUNDLERS, bundle } from "./support/bundle.js";
import { FIXTURES, childStderr } from "./support/harness.js";

// nabla/plugin in real builds: each bundler bundles a two-file app whose gradient is taken
// across files; the bundle runs in Node and fits the line; its source map leads back to the
// TypeScript source; a program nabla cannot differentiate fails the build with the diagnostic.

const APP = join(FIXTURES, "bundler-app");

for (const bundler of BUNDLERS) {
  test(`nabla/plugin builds a working bundle with ${bundler}`, async () => {
    const out = mkdtempSync(join(tmpdir(), `nabla-${bundler}-`));
    const file = await bundle(bundler, join(APP, "main.ts"), out);

    const run = spawnSync(process.execPath, [file], { encoding: "utf8" });
    assert.equal(childStderr(run), "");
    assert.equal(run.stdout.trim(), "a=2.000000 b=1.000000");

    // The error message in lib.ts, found in the (minified) bundle, maps back to its line.
    const code = readFileSync(file, "utf8");
    assert.doesNotMatch(code, /from\s*["']nabla/, "the runtime is bundled in");
    const offset = code.indexOf("loss of no data");
    assert.ok(offset > 0);
    const before = code.slice(0, offset).split("\n");
    const map = new TraceMap(readFileSync(`${file}.map`, "utf8"), file);
    const original = originalPositionFor(map, {
      line: before.length,
      column: before.at(-1)!.length,
    });
    assert.match(original.source ?? "", /bundler-app\/lib\.ts$/);
    assert.equal(original.line, 8);
  });
}

for (const bundler of BUNDLERS) {
  test(`a program nabla cannot differentiate fails the ${bundler} build with the diagnostic`, async () => {
    const out = mkdtempSync(join(tmpdir(), `nabla-${bundler}-`));
    await assert.rejects(bundle(bundler, join(FIXTURES, "bundler-error/main.ts"), out), (error) => {
      const text = String(error instanceof Error ? error.message : error);
      assert.match(text, /bundler-error\/main\.ts:4:17: error NABLA104/);
      assert.match(text, /> 4 \| {3}return Number\(x\.toFixed\(2\)\) \* x;/);
      assert.match(text, /note: when differentiating 'roundTrip' for 'gradient'/);
      return true;
    });
  });
}
