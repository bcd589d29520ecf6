// s32 without the labelled block and try/finally (NABLA101), to check the rest. Syntax corners: a default parameter computed from an earlier one, a labelled
// block with `break`, try/finally, the comma operator in a for header, `void`, a switch with
// fallthrough and a computed case, `x | 0` truncation, optional call of a field, a nested
// ternary chain, exponent assignment, `Number.EPSILON`.
import { gradient, differential, derivative } from "nabla";
import { compare, fd1, fdGrad, summary } from "./check.ts";

interface Hooks {
  transform?: (x: number) => number;
}

function smoothStep(x: number, lo = 0, hi = lo + 1): number {
  const t = Math.min(1, Math.max(0, (x - lo) / (hi - lo + Number.EPSILON)));
  return t * t * (3 - 2 * t);
}

function scoreFor(kind: number, x: number): number {
  let s = 0;
  switch (kind) {
    case 0:
      s += x;
    // falls through
    case 1:
      s += x * x;
      break;
    case 1 + 1:
      s = Math.sin(x);
      break;
    default:
      s = -x;
  }
  return s;
}

function corners(p: number[], hooks: Hooks): number {
  let total = 0;
  if (!(p[0] > 10)) total += smoothStep(p[0], -1) + smoothStep(p[1], p[2]);
  for (let i = 0, w = 1; i < p.length; i++, w *= 0.5) total += w * scoreFor(i, p[i]);
  total *= 1.5;
  const bucket = (p[1] * 10) | 0; // truncation, no derivative
  void bucket;
  const shaped = hooks.transform?.(total) ?? total;
  let e = p[2];
  e **= 3;
  const tier = e > 1 ? 2 : e > 0 ? 1 : e > -1 ? 0.5 : 0.25;
  return shaped * tier + e + bucket * p[0];
}

const hooks: Hooks = { transform: (x) => Math.tanh(x) * 2 };
const p = [0.3, 0.45, 0.8];
const g = gradient(corners, { wrt: 0 })(p, hooks);
compare("grad vs fd", g, fdGrad((q) => corners(q, hooks), p));
compare("fwd vs rev", differential(corners, { wrt: 0 })(p, hooks)([1, 2, 3]), g[0] + 2 * g[1] + 3 * g[2]);
const noHook = (q: number[]) => corners(q, {});
const g0 = gradient(noHook)(p);
compare("no hook grad vs fd", g0, fdGrad(noHook, p));
for (const x of [-0.5, 0.2, 0.9]) compare(`smoothStep' at ${x}`, derivative((t: number) => smoothStep(t))(x), fd1((t) => smoothStep(t), x));
summary("s32b-syntax-corners");
