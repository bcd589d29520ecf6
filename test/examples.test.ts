import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, childStderr } from "./support/harness.js";

// Every example in examples/ runs with `nabla run` and prints what it promises.

const expected: Record<string, RegExp> = {
  "cube.ts": /^48$/m,
  "custom-derivatives.ts":
    /body at \[1000, 1001, 999\]: Infinity\nlogSumExp rule: 1001\.407606, gradient \(softmax\) \[0\.244728, 0\.665241, 0\.090031\][\s\S]*first zero of J0: 2\.4048255576\d\d\nd\/dt σ\(t\)·J0\(t\) at 0\.7: forward -0\.02445735\d+, reverse -0\.02445735\d+$/m,
  "kepler.ts": /e = 0\.9: E = 1\.86208668\d+, check M = 1\.000000000000/,
  "projectile.ts": /best angle 39\.\d+° \(45° without drag\)/,
  "fit-line.ts": /y ≈ 1\.9\d\d·x \+ 1\.0\d\d/,
  "tiny-mlp.ts": /step 3000: loss 0\.00[0-4]\d+\nsin\(1\) ≈ 0\.8\d\d/,
};

for (const file of readdirSync(join(REPO_ROOT, "examples")).filter((f) => f.endsWith(".ts"))) {
  test(`examples/${file} runs`, () => {
    const run = spawnSync(
      process.execPath,
      [join(REPO_ROOT, "bin/nabla.js"), "run", join("examples", file)],
      {
        cwd: REPO_ROOT,
        encoding: "utf8",
      },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(childStderr(run), "");
    assert.ok(expected[file], `examples/${file} needs an expected output in this test`);
    assert.match(run.stdout, expected[file]!);
  });
}
