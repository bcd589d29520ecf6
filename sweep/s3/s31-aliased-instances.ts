// Aliasing the way real code does it by accident or on purpose: the same instance twice in an
// array updated in place, a `reduce` whose accumulator object is mutated and also stored, a
// shallow copy `{ ...state }` sharing a nested object that is then mutated, objects sorted by
// a comparator and mutated through the sorted array, a field swap by destructuring.
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

class Body {
  constructor(
    public x: number,
    public v: number,
  ) {}
}

interface State {
  t: number;
  pos: { x: number; y: number };
}

function sharedInstances(p: number[]): number {
  const a = new Body(p[0], p[1]);
  const b = new Body(p[2], 0);
  const bodies = [a, b, a]; // `a` is stepped twice per tick
  for (let k = 0; k < 5; k++) {
    for (const body of bodies) {
      body.v -= 0.1 * body.x;
      body.x += 0.1 * body.v;
    }
  }
  return a.x * a.x + b.x * a.v + bodies[2].v;
}

function mutatedAccumulator(p: number[]): number {
  const history: { sum: number; sq: number }[] = [];
  const acc = p.reduce(
    (s, x) => {
      s.sum += x;
      s.sq += x * x;
      history.push(s); // the same object each time
      return s;
    },
    { sum: 0, sq: 0 },
  );
  return acc.sq - acc.sum * acc.sum * 0.1 + history[0].sum * history.length;
}

function shallowCopies(p: number[]): number {
  const s0: State = { t: 0, pos: { x: p[0], y: p[1] } };
  const s1 = { ...s0, t: 1 }; // shares pos with s0
  s1.pos.x *= p[2];
  const s2: State = { ...s1, pos: { ...s1.pos, y: s1.pos.y + p[0] } }; // new pos
  s2.pos.y *= 2;
  return s0.pos.x * s0.pos.y + s2.pos.x * s2.pos.y + s1.t;
}

function sortedThenMutated(p: number[]): number {
  const items = p.map((w, i) => ({ id: i, w }));
  const sorted = [...items].sort((a, b) => a.w - b.w);
  sorted[0].w *= 3; // the smallest, through the alias
  [sorted[1].w, sorted[2].w] = [sorted[2].w, sorted[1].w];
  return items.reduce((s, it, i) => s + it.w * (i + 1), 0);
}

function all(p: number[]): number {
  return sharedInstances(p) + mutatedAccumulator(p) + shallowCopies(p) + sortedThenMutated(p);
}

const p = [0.7, -0.3, 1.4];
const g1 = gradient(sharedInstances)(p);
compare("shared instances grad vs fd", g1, fdGrad(sharedInstances, p));
compare("shared instances fwd vs rev", differential(sharedInstances)(p)([1, 1, 1]), g1[0] + g1[1] + g1[2]);
const g2 = gradient(mutatedAccumulator)(p);
compare("mutated accumulator grad vs fd", g2, fdGrad(mutatedAccumulator, p));
compare("mutated accumulator fwd vs rev", differential(mutatedAccumulator)(p)([1, 1, 1]), g2[0] + g2[1] + g2[2]);
const g3 = gradient(shallowCopies)(p);
compare("shallow copies grad vs fd", g3, fdGrad(shallowCopies, p));
compare("shallow copies fwd vs rev", differential(shallowCopies)(p)([1, 1, 1]), g3[0] + g3[1] + g3[2]);
const g4 = gradient(sortedThenMutated)(p);
compare("sorted then mutated grad vs fd", g4, fdGrad(sortedThenMutated, p));
compare("sorted then mutated fwd vs rev", differential(sortedThenMutated)(p)([1, 1, 1]), g4[0] + g4[1] + g4[2]);
const g = gradient(all)(p);
compare("all grad vs fd", g, fdGrad(all, p));
compare("all wasm", gradient(all, { backend: "wasm" })(p), g);
summary("s31-aliased-instances");
