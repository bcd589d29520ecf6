// Closures: counters, memo, higher-order compose, captured mutable state, ??= and ||=.
import { gradient, derivative, differential } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

type Fn = (x: number) => number;
const compose =
  (...fns: Fn[]): Fn =>
  (x) =>
    fns.reduceRight((acc, f) => f(acc), x);

function makeScaler(k: number): Fn {
  return (x) => k * x;
}

function pipeline(x: number, k: number): number {
  let calls = 0;
  const square: Fn = (v) => {
    calls++;
    return v * v;
  };
  const f = compose((v) => Math.sin(v), square, makeScaler(k));
  const y = f(x) + f(x / 2);
  return y * calls;
}

function cachedPoly(coeffs: number[], x: number): number {
  const cache = new Map<number, number>();
  const pow = (n: number): number => {
    let v = cache.get(n);
    if (v !== undefined) return v;
    v = 1;
    for (let k = 0; k < n; k++) v *= x;
    cache.set(n, v);
    return v;
  };
  let total = 0;
  coeffs.forEach((c, i) => (total += c * pow(i)));
  return total;
}

function withDefaults(p: { a?: number; b?: number }, x: number): number {
  const opts = { ...p };
  opts.a ??= 2;
  opts.b ||= 3;
  return opts.a * x * x + opts.b * x;
}

const d1 = derivative((x: number) => pipeline(x, 1.3))(0.7);
compare(
  "pipeline fwd vs fd",
  d1,
  fd1((x) => pipeline(x, 1.3), 0.7),
);
const g1 = gradient(pipeline)(0.7, 1.3);
compare("pipeline rev vs fwd", g1[0], d1);
compare(
  "pipeline k vs fd",
  g1[1],
  fd1((k) => pipeline(0.7, k), 1.3),
);
const c = [1, -2, 0.5, 0.25];
const g2 = gradient(cachedPoly)(c, 1.4);
compare(
  "poly grad coeffs",
  g2[0],
  fdGrad((cc) => cachedPoly(cc, 1.4), c),
);
compare(
  "poly grad x",
  g2[1],
  fd1((x) => cachedPoly(c, x), 1.4),
);
compare("poly fwd", differential(cachedPoly)(c, 1.4)([0, 0, 0, 0], 1), g2[1]);
const g3 = gradient(withDefaults)({ a: 1.5 }, 2);
compare("defaults grad", [g3[0].a ?? 0, g3[1]], [4, fd1((x) => withDefaults({ a: 1.5 }, x), 2)]);
compare(
  "defaults fwd",
  differential(withDefaults)({ b: 0 }, 2)({ b: 1 }, 1),
  (withDefaults({ b: 1e-5 }, 2 + 1e-5) - withDefaults({ b: -1e-5 }, 2 - 1e-5)) / 2e-5,
);
summary("p21b");
