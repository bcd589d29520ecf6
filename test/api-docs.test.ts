import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileFiles, diagnosticsText, importCompiled, REPO_ROOT } from "./support/harness.js";
import { withChecks } from "./support/checked-examples.js";

// The API reference (typedoc.json → docs/api/) builds from the doc comments without a single
// warning, has a page for each part of the public API and none for the helpers only generated
// code uses; and the @example blocks of the runtime's doc comments compile and run, with the
// values their `// →` and `// ≈` comments show.

const TYPEDOC = join(REPO_ROOT, "node_modules/typedoc/bin/typedoc");

test("typedoc builds the API reference with no warnings", { timeout: 120_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), "nabla-api-"));
  try {
    const run = spawnSync(
      process.execPath,
      [TYPEDOC, "--options", "typedoc.json", "--out", out, "--logLevel", "Warn"],
      { cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
    );
    // eslint-disable-next-line no-control-regex
    const log = `${run.stdout}${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
    assert.equal(run.status, 0, log);
    assert.doesNotMatch(log, /\[(warning|error)\]/, log);

    const pages = [
      "modules/nabla.html",
      "modules/nabla_compiler.html",
      "modules/nabla_plugin.html",
      "modules/nabla_register.html",
      "interfaces/nabla_plugin.NablaPluginOptions.html",
      "functions/nabla.gradient.html",
      "functions/nabla.derivative.html",
      "functions/nabla.pullback.html",
      "functions/nabla.hessianVectorProduct.html",
      "functions/nabla.gradientAndHessianVectorProduct.html",
      "functions/nabla.jacobian.html",
      "functions/nabla.registerDerivative.html",
      "functions/nabla.withDerivative.html",
      "functions/nabla.checkpoint.html",
      "functions/nabla.tapeStats.html",
      "types/nabla.Tangent.html",
      "types/nabla.Differentiable.html",
      "interfaces/nabla.DerivativeRule.html",
      "interfaces/nabla.DifferentiationOptions.html",
      "classes/nabla.NotCompiledError.html",
      "classes/nabla.AliasedArgumentsError.html",
      "functions/nabla_compiler.compileProgram.html",
      "functions/nabla_compiler.formatDiagnostics.html",
      "interfaces/nabla_compiler.Diagnostic.html",
      "classes/nabla_compiler.IncrementalCompiler.html",
    ];
    assert.deepEqual(
      pages.filter((p) => !existsSync(join(out, p))),
      [],
    );
    const gradientPage = readFileSync(join(out, "functions/nabla.gradient.html"), "utf8");
    assert.match(gradientPage, /valueWithGradient|wrt/);
    assert.match(gradientPage, /Example/);

    // Helpers for generated code are @internal: no page, not listed in the module.
    const internal = ["tape", "out", "growTape", "tapeTake", "copyTangent", "checkAliasing"];
    const listed = readdirSync(join(out, "functions"))
      .concat(existsSync(join(out, "variables")) ? readdirSync(join(out, "variables")) : [])
      .map((f) => f.replace(/^nabla\.|\.html$/g, ""));
    assert.deepEqual(
      internal.filter((name) => listed.includes(name)),
      [],
    );
    const modulePage = readFileSync(join(out, "modules/nabla.html"), "utf8");
    for (const name of ["attachDerivatives", "derivativeOf", "ruleNotYetRegistered"])
      assert.doesNotMatch(modulePage, new RegExp(`\\b${name}\\b`));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

/** The ```ts blocks after `@example` in the doc comments of a file, with their line numbers. */
function examples(file: string): { line: number; code: string }[] {
  const text = readFileSync(join(REPO_ROOT, file), "utf8");
  const found: { line: number; code: string }[] = [];
  for (const m of text.matchAll(/^ \* @example\n \* ```ts\n((?: \*.*\n)*?) \* ```$/gm)) {
    const line = text.slice(0, m.index).split("\n").length + 2;
    const code = m[1]!.replace(/^ \* ?/gm, "");
    found.push({ line, code });
  }
  return found;
}

const RUNTIME_FILES = readdirSync(join(REPO_ROOT, "src/runtime"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => `src/runtime/${f}`);

test("the runtime's doc comments have @example blocks", () => {
  const count = RUNTIME_FILES.reduce((n, file) => n + examples(file).length, 0);
  assert.ok(count >= 15, `only ${count} examples found`);
});

for (const file of RUNTIME_FILES) {
  for (const { line, code } of examples(file)) {
    test(`${file}:${line}: the @example compiles and runs`, async () => {
      const compiled = compileFiles({ "main.ts": withChecks(code, file, line) });
      assert.equal(diagnosticsText(compiled), "");
      await importCompiled(join(compiled.dir, "main.ts"));
    });
  }
}
