// Repro (refused, unhelpful advice): a deep copy by JSON round trip. NABLA102 advises
// registering a derivative for JSON.parse; structuredClone gets a message that explains deep
// copies and suggests spreads, which would fit here too.
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
