import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { REPO_ROOT } from "./support/harness.js";

// The GradBench evals, baselines, tool and validator are compiled by nabla when they run, not
// by the project's build, so this type-checks them with tsc (strict, as in gradbench/
// tsconfig.json): the evals must be TypeScript a user could write, not just code that runs.

test("gradbench/ type-checks with tsc --strict", () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const run = spawnSync(process.execPath, [tsc, "-p", "gradbench"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, `tsc -p gradbench:\n${run.stdout}${run.stderr}`);
});
