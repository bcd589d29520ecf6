import { test } from "node:test";
import { checkAgainstPlain } from "./support/two-ways.js";

// Functions that make functions, written inside the differentiated function as TypeScript
// developers write them: curried arrows (`(k) => (v) => v * k`), a local function returning
// the closure it writes, a `compose`, a counter keeping state, each made function named,
// given to `map`, kept in a list or called at once (`scaleBy(b)(w)`). Checked against the
// program run as plain JavaScript, differences and forward mode (two-ways.ts).

test("local curried arrows and local functions returning closures", async () => {
  await checkAgainstPlain(`
export function f(w: number, b: number): number {
  function makeLoss(target: number) {
    const weight = 1 / (1 + target * target);
    return (x: number) => weight * (x - target) ** 2;
  }
  const scaleBy = (k: number) => (v: number) => v * k;
  const compose = (g: (x: number) => number, h: (x: number) => number) => (x: number) => g(h(x));
  const losses = [makeLoss(1), makeLoss(b)];
  const xs = [0.5, 1.5, w].map(scaleBy(w));
  let total = 0;
  for (const x of xs) for (const loss of losses) total += loss(x);
  const both = compose(scaleBy(b), makeLoss(2 * w));
  return total + both(b) + scaleBy(b)(w);
}
`);
});

test("a local factory's closure keeps its state across calls, and reads the scope it is written in", async () => {
  await checkAgainstPlain(`
export function f(x: number, y: number): number {
  let acc = 0;
  const offset = y * y;
  const counter = (step: number) => () => (acc += step * x + offset);
  const tick = counter(2);
  tick();
  tick();
  const other = counter(y);
  other();
  return acc + tick();
}
`);
});
