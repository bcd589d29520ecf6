import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileFiles, REPO_ROOT } from "./support/harness.js";
import { formatDiagnostic } from "../src/compiler/diagnostics/format.js";

// The examples in docs/diagnostics.md are real: each program, compiled, prints exactly the
// diagnostics shown under it.

const doc = readFileSync(join(REPO_ROOT, "docs/diagnostics.md"), "utf8");
const example = /```ts\n\/\/ (\S+\.ts)\n([\s\S]*?)```\n\n```\n([\s\S]*?)```/g;

for (const [, file, source, expected] of doc.matchAll(example)) {
  test(`docs/diagnostics.md: ${file}`, () => {
    const result = compileFiles({ [file!]: source! }, file);
    const text = result.diagnostics
      .map((d) => formatDiagnostic(d, result.sourceText, { cwd: result.dir }))
      .join("\n");
    assert.equal(text, expected!.trimEnd());
  });
}

test("docs/diagnostics.md has an example for every diagnostic code", () => {
  const codes = new Set([...doc.matchAll(/^\| (NABLA\d+) \|/gm)].map((m) => m[1]));
  const shown = new Set(
    [...doc.matchAll(/^\S+\.ts:\d+:\d+: (?:error|warning) (NABLA\d+)/gm)].map((m) => m[1]),
  );
  assert.deepEqual(
    [...codes].filter((c) => !shown.has(c)),
    [],
  );
});
