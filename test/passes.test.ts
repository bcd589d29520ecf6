import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileProgram } from "../src/compiler/compile.js";
import { PASS_NAMES, type PassObserver } from "../src/compiler/differentiate/pipeline.js";
import { printFunction } from "../src/compiler/ir/printer.js";
import { REPO_ROOT } from "./support/harness.js";
import { emitted, jvpOf, lower, sweepsOf } from "./support/ir.js";

// Golden tests of each pass, one folder per case under test/fixtures/passes/: the source
// (`input.ts`), what to produce (`case.json`) and one expected file per output. The same
// pipelines as production run (differentiate/pipeline.ts). After a deliberate change of the
// output, `npm run golden:update` (NABLA_UPDATE_GOLDEN=1) rewrites the expected files;
// review their diff like code.
//
// Outputs:
// - `lowered.ir`: the function after lowering and its pipeline;
// - `jvp.ir`, `jvp.js`: its forward-mode JVP (IR, emitted JavaScript);
// - `reverse.ir`: its linearization after reverse mode's pipeline, which unzip then splits;
// - `fwd.js`, `bwd.js`: the forward and backward sweeps of reverse mode;
// - `<pipeline>.<pass>.ir`: the IR right after one pass of a pipeline (`lowered`, `forward`,
//   `reverse`, `sweep`; both sweeps for `sweep`);
// - `module.js`: the whole module as `nabla emit` writes it, every derivative kind the program
//   asks for included;
// - `program.<pipeline>.<pass>.ir`: every function of the compiled program right after one pass
//   of any pipeline (`inlined`, `derivedPrimal`, `lanes` too), in the order they were made.

const FIXTURES = join(REPO_ROOT, "test/fixtures/passes");
const UPDATE = process.env.NABLA_UPDATE_GOLDEN === "1";

interface Case {
  about?: string;
  /** The function the per-function outputs are about. */
  function?: string;
  wrt?: number[];
  /** Array parameters unchanged until the backward sweep (read again, not taped). */
  frozen?: number[];
  outputs: string[];
}

/** The IR of every function `pipeline` left after `pass`, in the order they were made. */
function after(pipeline: string, pass: string): { seen: string[]; observe: PassObserver } {
  const seen: string[] = [];
  return {
    seen,
    observe: (p, fn, line) => {
      if (p === pass && line === pipeline) seen.push(printFunction(fn));
    },
  };
}

/** The module compiled as production compiles it (a virtual file, so paths do not vary). */
function compiled(source: string, observe?: PassObserver): string {
  const file = "/virtual/input.ts";
  const result = compileProgram([file], {
    sources: new Map([[file, source]]),
    ...(observe ? { observe } : {}),
  });
  assert.deepEqual(
    result.diagnostics.map((d) => d.message),
    [],
  );
  return result.outputs.get(file)!.code;
}

function render(output: string, source: string, c: Case): string {
  const name = c.function ?? "";
  const wrt = c.wrt ?? [0];
  const perPass = /^(lowered|forward|reverse|sweep)\.([\w-]+)\.ir$/.exec(output);
  if (perPass) {
    const [, pipeline, pass] = perPass as unknown as [string, string, string];
    assert.ok((PASS_NAMES as string[]).includes(pass), `${output}: no pass '${pass}'`);
    const { seen, observe } = after(pipeline, pass);
    if (pipeline === "lowered") lower(source, name, observe);
    else if (pipeline === "sweep") sweepsOf(source, name, wrt, c.frozen, observe);
    else jvpOf(source, name, wrt, pipeline as "forward" | "reverse", observe);
    assert.ok(seen.length > 0, `${output}: pipeline '${pipeline}' does not run '${pass}'`);
    return seen.join("\n\n");
  }
  const inProgram = /^program\.(\w+)\.([\w-]+)\.ir$/.exec(output);
  if (inProgram) {
    const [, pipeline, pass] = inProgram as unknown as [string, string, string];
    const { seen, observe } = after(pipeline, pass);
    compiled(source, observe);
    assert.ok(seen.length > 0, `${output}: pipeline '${pipeline}' does not run '${pass}' here`);
    return seen.join("\n\n");
  }
  switch (output) {
    case "lowered.ir":
      return printFunction(lower(source, name));
    case "jvp.ir":
      return printFunction(jvpOf(source, name, wrt));
    case "jvp.js":
      return emitted(jvpOf(source, name, wrt));
    case "reverse.ir":
      return printFunction(jvpOf(source, name, wrt, "reverse"));
    case "fwd.js":
      return emitted(sweepsOf(source, name, wrt, c.frozen)[0]);
    case "bwd.js":
      return emitted(sweepsOf(source, name, wrt, c.frozen)[1]);
    case "module.js":
      return compiled(source).trimEnd();
    default:
      throw new Error(`unknown output '${output}'`);
  }
}

for (const folder of readdirSync(FIXTURES).sort()) {
  const dir = join(FIXTURES, folder);
  const c = JSON.parse(readFileSync(join(dir, "case.json"), "utf8")) as Case;
  const source = readFileSync(join(dir, "input.ts"), "utf8");
  for (const output of c.outputs) {
    test(`${folder}: ${output}`, () => {
      const actual = render(output, source, c) + "\n";
      const path = join(dir, output);
      if (UPDATE) writeFileSync(path, actual);
      assert.ok(existsSync(path), `${path} is missing: run npm run golden:update`);
      assert.equal(actual, readFileSync(path, "utf8"));
    });
  }
}
