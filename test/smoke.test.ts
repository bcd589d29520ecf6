import { test } from "node:test";
import assert from "node:assert/strict";
import { loadProgram } from "./support/harness.js";

test("derivative of x³ at 4 is 48", async () => {
  const m = await loadProgram<{ d: (x: number) => number }>({
    "main.ts": `import { derivative } from "nabla";\nexport const d = derivative((x: number) => x * x * x);\n`,
  });
  assert.equal(m.d(4), 48);
});
