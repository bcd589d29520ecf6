import assert from "node:assert/strict";
import { test } from "node:test";
import { loadProgram } from "./support/harness.js";

// `hessianVectorProduct(f)(...args, v)` and `gradientAndHessianVectorProduct` take every
// argument of f and then v. With a defaulted parameter left out (`loss(theta, weightDecay =
// 1e-2)` called as `(theta, v)`), v lands in the defaulted parameter and no vector is given:
// TypeScript says so (TS2554), but `nabla run` and the loader do not type-check, and the run
// used to die inside generated code ("Cannot read properties of undefined (reading '0')").

interface Program {
  hvpWithoutDefault: () => number[];
  bothWithoutDefault: () => unknown;
  hvpWithUndefined: () => number[];
}

const program = `import { gradientAndHessianVectorProduct, hessianVectorProduct } from "nabla";
function loss(x: number[], scale = 2): number {
  return scale * x[0] * x[0] * x[1];
}
const hvp = hessianVectorProduct(loss) as (...args: unknown[]) => number[];
const both = gradientAndHessianVectorProduct(loss) as (...args: unknown[]) => unknown;
export const hvpWithoutDefault = () => hvp([1, 2], [1, 0]);
export const bothWithoutDefault = () => both([1, 2], [1, 0]);
export const hvpWithUndefined = () => hessianVectorProduct(loss)([1, 2], undefined, [1, 0]);
`;

test("a Hessian-vector product called without its vector says what it takes", async () => {
  const m = await loadProgram<Program>({ "main.ts": program });
  assert.throws(m.hvpWithoutDefault, {
    name: "TypeError",
    message:
      "nabla: hessianVectorProduct takes the function's 2 arguments and then the vector, and was given no vector; give every argument before the vector (undefined for a defaulted one you leave out)",
  });
  assert.throws(m.bothWithoutDefault, {
    name: "TypeError",
    message:
      "nabla: gradientAndHessianVectorProduct takes the function's 2 arguments and then the vector, and was given no vector; give every argument before the vector (undefined for a defaulted one you leave out)",
  });
  // 2·x0²·x1 at (1, 2): H = [[4·x1, 4·x0], [4·x0, 0]] = [[8, 4], [4, 0]]; H·(1, 0) = (8, 4).
  assert.deepEqual(m.hvpWithUndefined(), [8, 4]);
});
