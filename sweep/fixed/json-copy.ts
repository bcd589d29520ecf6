// Fixed (branch frontend-gaps; test/frontend-gaps.test.ts): a deep copy by JSON round trip. Still
// refused (JSON loses -0, NaN and Infinity, and its numbers are read back from text), but NABLA102
// now says so and suggests spreads or structuredClone instead of registering a derivative.
import { gradient } from "nabla";
interface Params {
  a: number;
  nested: { c: number };
}
function f(p: Params): number {
  const q: Params = JSON.parse(JSON.stringify(p));
  q.a *= 2;
  return p.a * q.a + q.nested.c;
}
console.log(gradient(f)({ a: 1, nested: { c: 2 } }));
