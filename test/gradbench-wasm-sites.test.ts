import { test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileProgram } from "../src/compiler/index.js";
import { backendSites } from "../bench/gradbench/wasm-backend.js";

// Which derivatives of the GradBench evals the WebAssembly backend runs (issue 22's figures
// depend on it). A change that sends one back to JavaScript — a new run-time check the wasm
// emitter does not know, say — keeps every result right and passes every other test, but
// loses the backend's speed: as the hole checks did to det and ht once, unnoticed until a
// benchmark run. Each eval compiled with backend "wasm", its sites read from the module's
// comments, as the benchmark reads them.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Per module, the sites that stay JavaScript (all others must be WebAssembly). */
const EXPECTED: Record<string, { sites: number; javascript: string[] }> = {
  "evals/llsq.ts": { sites: 1, javascript: [] },
  "evals/lse.ts": { sites: 1, javascript: [] },
  "evals/det.ts": { sites: 1, javascript: [] },
  "evals/ode.ts": { sites: 1, javascript: [] },
  "evals/kmeans.ts": { sites: 1, javascript: [] },
  "evals/gmm.ts": { sites: 1, javascript: [] },
  "evals/ba.ts": { sites: 2, javascript: [] },
  // Each Jacobian: its forward passes, and its reverse passes (a pullback).
  "evals/ht.ts": { sites: 4, javascript: [] },
  "evals/lstm.ts": { sites: 1, javascript: [] },
  // The driver itself, and the operator calls inside it (for its JavaScript fallback).
  "wasm/ba.ts": { sites: 3, javascript: [] },
};

for (const [module, expected] of Object.entries(EXPECTED)) {
  test(`GradBench's ${module} with backend "wasm": its derivatives run as WebAssembly`, () => {
    const file = join(ROOT, "gradbench", module);
    const result = compileProgram([file], { backend: "wasm" });
    const errors = result.diagnostics.filter((d) => d.severity === "error");
    assert.equal(errors.length, 0);
    const sites = backendSites(result.outputs.get(file)?.code ?? "");
    assert.equal(sites.length, expected.sites, JSON.stringify(sites, null, 2));
    const javascript = sites.filter((s) => s.backend === "js").map((s) => `${s.call}: ${s.detail}`);
    assert.deepEqual(javascript, expected.javascript);
  });
}
