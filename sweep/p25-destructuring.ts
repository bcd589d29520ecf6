// Destructuring with defaults and rest, object spreads merging, default params from params.
import { gradient, differential, derivative } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

interface Settings {
  gain: number;
  offset: number;
  bias: number;
  curvature?: number;
}
const DEFAULTS: Settings = { gain: 1, offset: 0, bias: 0.5 };

function respond(x: number, scale = x * 2, shift = scale + 1): number {
  return scale * x + shift * shift;
}

function configure(overrides: Partial<Settings>, x: number): number {
  const merged = { ...DEFAULTS, ...overrides };
  const { gain, ...rest } = merged;
  const { offset, bias, curvature = 0.1 } = rest;
  return gain * x * x + offset * x + bias + curvature * x ** 3;
}

function headTail(xs: number[]): number {
  const [first, second = 10, ...others] = xs;
  const tailSum = others.reduce((s, v) => s + v * v, 0);
  return first * second + tailSum + (others[0] ?? 0) * first;
}

function objectRest(p: { a: number; b: number; c: number; d: number }): number {
  const { a, ...others } = p;
  let s = a * a;
  for (const v of Object.values(others)) s += a * v;
  const entries = Object.entries(others);
  for (const [key, v] of entries) if (key !== "c") s += v * v * v;
  return s;
}

compare(
  "respond fwd",
  derivative((x: number) => respond(x))(1.5),
  fd1((x) => respond(x), 1.5),
);
compare(
  "respond rev",
  gradient((x: number) => respond(x))(1.5),
  fd1((x) => respond(x), 1.5),
);
compare("respond 2 args", gradient(respond, { wrt: [0, 1] })(1.5, 0.7), [
  fd1((x) => respond(x, 0.7), 1.5),
  fd1((s) => respond(1.5, s), 0.7),
]);
const ov = { gain: 2, curvature: 0.3 };
const g = gradient(configure)(ov, 1.2);
compare(
  "configure x",
  g[1],
  fd1((x) => configure(ov, x), 1.2),
);
compare(
  "configure gain",
  g[0].gain,
  fd1((v) => configure({ ...ov, gain: v }, 1.2), 2),
);
compare(
  "configure curvature",
  g[0].curvature,
  fd1((v) => configure({ ...ov, curvature: v }, 1.2), 0.3),
);
compare(
  "configure fwd",
  differential(configure)(ov, 1.2)({ gain: 1, curvature: 1 }, 1),
  (g[0].gain ?? 0) + (g[0].curvature ?? 0) + g[1],
);
const xs = [1.5, -0.5, 2, 3];
const g2 = gradient(headTail)(xs);
compare("headTail", g2, fdGrad(headTail, xs));
compare("headTail short", gradient(headTail)([1.5]), fdGrad(headTail, [1.5]));
compare(
  "headTail fwd",
  differential(headTail)(xs)([1, 2, 3, 4]),
  g2[0] + 2 * g2[1] + 3 * g2[2] + 4 * g2[3],
);
const p = { a: 1.1, b: 0.5, c: -0.7, d: 2 };
const g3 = gradient(objectRest)(p);
compare(
  "objectRest",
  [g3.a, g3.b, g3.c, g3.d],
  fdGrad((v) => objectRest({ a: v[0], b: v[1], c: v[2], d: v[3] }), [1.1, 0.5, -0.7, 2]),
);
summary("p25-destructuring");
