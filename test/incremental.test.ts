import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { IncrementalCompiler } from "../src/compiler/incremental.js";
import { writeProgram } from "./support/harness.js";

// The compiler of hosts that load one file at a time (the bundler plugin): a file appearing
// where module resolution looked changes the program as much as an edited file does.

test("IncrementalCompiler: a file created where an import now resolves compiles again", () => {
  const dir = writeProgram({
    "main.ts": `import { derivative } from "nabla";
import { f } from "./lib";
export const d = derivative(f);
`,
    "lib/index.ts": "export function f(x: number): number {\n  return x * x;\n}\n",
  });
  const main = join(dir, "main.ts");
  const compiler = new IncrementalCompiler();
  const first = compiler.compile(main);
  assert.ok(first.fresh);
  assert.match(first.output!.code, /from "\.\/lib\/index\.ts"/);
  assert.equal(compiler.compile(main).fresh, false);
  const lib = join(dir, "lib.ts");
  writeFileSync(lib, "export function f(x: number): number {\n  return 3 * x;\n}\n");
  compiler.invalidate(lib);
  const second = compiler.compile(main);
  assert.ok(second.fresh, "compiled again");
  assert.match(second.output!.code, /from "\.\/lib\.ts"/);
});
