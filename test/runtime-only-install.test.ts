import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "./support/harness.js";

// A runtime-only install (`npm install nabla --omit=optional`): the package without the
// compiler's optional dependencies. Precompiled output must run; everything that compiles
// must say what is missing instead of failing deep inside Node's resolver.

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

/** A project whose node_modules holds nabla as packed, without any dependency of nabla's. */
function runtimeOnlyProject(): string {
  // Outside the repository, so that Node's resolver cannot find the repository's node_modules.
  const root = mkdtempSync(join(tmpdir(), "nabla-runtime-only-"));
  const nabla = join(root, "node_modules", "nabla");
  for (const part of ["package.json", "bin", "dist/src"])
    cpSync(join(REPO_ROOT, part), join(nabla, part), { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ type: "module" }));
  return root;
}

function run(root: string, args: string[]) {
  return spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
}

test("every dependency of nabla is optional: the runtime needs none", () => {
  assert.deepEqual(manifest.dependencies ?? {}, {});
  assert.ok("oxc-parser" in (manifest.optionalDependencies ?? {}));
});

test("a runtime-only install runs precompiled output and explains what compiling needs", () => {
  const root = runtimeOnlyProject();
  try {
    // Output of `nabla emit`, compiled here with the full install, run there with plain node.
    writeFileSync(
      join(root, "cube.ts"),
      'import { derivative } from "nabla";\n' +
        "const cube = (x: number) => x * x * x;\n" +
        "console.log(derivative(cube)(2));\n",
    );
    const compiled = execFileSync(
      process.execPath,
      [join(REPO_ROOT, "bin/nabla.js"), "emit", join(root, "cube.ts")],
      { encoding: "utf8" },
    );
    writeFileSync(join(root, "cube.mjs"), compiled);
    const precompiled = run(root, ["cube.mjs"]);
    assert.equal(precompiled.stderr, "");
    assert.equal(Number(precompiled.stdout), 12); // 3·x² at 2, and exact in floating point

    // The run-time fallback: a NotCompiledError that names the missing package.
    writeFileSync(
      join(root, "uncompiled.mjs"),
      'import { derivative } from "nabla";\n' +
        "try { derivative((x) => x * x)(3); } catch (e) { console.log(e.name + ': ' + e.message); }\n",
    );
    const fallback = run(root, ["uncompiled.mjs"]);
    assert.match(fallback.stdout, /^NotCompiledError: /);
    assert.match(fallback.stdout, /needs the package '[^']+', which is not installed/);
    assert.match(fallback.stdout, /--omit=optional/);

    // The command and the loader.
    const check = run(root, ["node_modules/nabla/bin/nabla.js", "check", "cube.ts"]);
    assert.equal(check.status, 1);
    assert.match(check.stderr, /^nabla: nabla's compiler needs the package '[^']+'/);
    const loader = run(root, ["--import", "nabla/register", "cube.ts"]);
    assert.notEqual(loader.status, 0);
    assert.match(loader.stderr, /nabla\/register: nabla's compiler needs the package 'oxc-parser'/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
