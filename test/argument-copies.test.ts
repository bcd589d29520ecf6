import { test } from "node:test";
import { assertClose, loadProgram } from "./support/harness.js";

// The copies nabla makes of arguments — a checkpointed call's saved arguments, the point a
// differential was taken at — must still work as the values they copy: a Set of active
// indices. Before, a Set was copied as a plain object with Set's prototype, and the first
// `has` threw "Method Set.prototype.has called on incompatible receiver".

interface Program {
  checkpointed: (w: number[]) => number[];
  differentialOfModel: (tangent: number[]) => number;
}

const program = `import { checkpoint, differential, gradient } from "nabla";
function masked(w: number[], active: Set<number>, order: number[]): number {
  let s = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (active.has(i)) s += w[i] * w[i] * (k + 1);
  }
  return s;
}
const ACTIVE = new Set([0, 2]);
const ORDER = [2, 1, 0];
function loss(w: number[], active: Set<number>, order: number[]): number {
  return checkpoint(masked)(w, active, order);
}
export function checkpointed(w: number[]): number[] {
  return gradient(loss, { wrt: 0 })(w, ACTIVE, ORDER);
}
interface Model {
  w: number[];
  active: Set<number>;
  order: number[];
}
function score(m: Model): number {
  return masked(m.w, m.active, m.order);
}
export function differentialOfModel(tangent: number[]): number {
  const model: Model = { w: [1, 2, 3], active: new Set([0, 2]), order: [2, 1, 0] };
  return differential(score)(model)({ w: tangent });
}
`;

test("a checkpoint's saved arguments and a differential's point keep Sets working", async () => {
  const m = await loadProgram<Program>({ "main.ts": program });
  // masked = 3·w0² + w2² (order 2, 1, 0: w2 weighs 1, w0 weighs 3; w1 is not active).
  const g = m.checkpointed([1, 2, 3]);
  [6, 0, 6].forEach((e, i) => assertClose(g[i]!, e, 1e-15, `checkpointed gradient [${i}]`));
  // Along (1, 1, 1) at (1, 2, 3): 6·w0 + 2·w2 = 12.
  assertClose(m.differentialOfModel([1, 1, 1]), 12, 1e-15, "differential of the model");
});
