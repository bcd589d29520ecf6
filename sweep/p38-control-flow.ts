// Control flow corners: comma in for-update, side effects in conditions, for(;;), recursion,
// mutual recursion, closures seeing later reassignment, in-place input normalization.
import { gradient, derivative, differential } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

function commaLoop(x: number): number {
  let total = 0;
  for (let i = 0, acc = x; i < 5; i++, acc *= x) total += acc / (i + 1);
  return total;
}
function sideEffectCondition(x: number): number {
  let steps = 0;
  let y = x;
  while ((y = y * 0.7 + 0.05) > 0.2) steps++;
  for (;;) {
    y += 0.1 * x;
    if (y > 1) break;
  }
  return y * (steps + 1);
}
function power(x: number, n: number): number {
  if (n === 0) return 1;
  const half = power(x, Math.floor(n / 2));
  return n % 2 === 0 ? half * half : half * half * x;
}
function isEvenish(x: number, n: number): number {
  return n <= 0 ? x : oddish(x * 1.1, n - 1);
}
function oddish(x: number, n: number): number {
  return n <= 0 ? -x : isEvenish(Math.sin(x), n - 1);
}
function lateBinding(x: number): number {
  let k = 2;
  const scaled = (v: number) => v * k;
  k = 3;
  return scaled(x) * scaled(x);
}
function normalizeInPlace(xs: number[]): number {
  const norm = Math.hypot(...xs);
  for (let i = 0; i < xs.length; i++) xs[i] /= norm;
  return xs.reduce((s, v, i) => s + v * (i + 1), 0);
}

compare("commaLoop fwd", derivative(commaLoop)(0.8), fd1(commaLoop, 0.8));
compare("commaLoop rev", gradient(commaLoop)(0.8), fd1(commaLoop, 0.8));
compare("sideEffect fwd", derivative(sideEffectCondition)(0.8), fd1(sideEffectCondition, 0.8));
compare("sideEffect rev", gradient(sideEffectCondition)(0.8), fd1(sideEffectCondition, 0.8));
compare(
  "power fwd",
  derivative((x: number) => power(x, 7))(0.8),
  fd1((x: number) => power(x, 7), 0.8),
);
compare(
  "power rev",
  gradient((x: number) => power(x, 7))(0.8),
  fd1((x: number) => power(x, 7), 0.8),
);
compare(
  "mutual fwd",
  derivative((x: number) => isEvenish(x, 5))(0.8),
  fd1((x: number) => isEvenish(x, 5), 0.8),
);
compare(
  "mutual rev",
  gradient((x: number) => isEvenish(x, 5))(0.8),
  fd1((x: number) => isEvenish(x, 5), 0.8),
);
compare("late fwd", derivative(lateBinding)(0.8), fd1(lateBinding, 0.8));
compare("late rev", gradient(lateBinding)(0.8), fd1(lateBinding, 0.8));
const xs = [0.3, -1.2, 2];
const g = gradient(normalizeInPlace)(xs.slice());
compare(
  "normalize vs fd",
  g,
  fdGrad((v) => normalizeInPlace(v.slice()), xs),
);
compare(
  "normalize fwd",
  differential(normalizeInPlace)(xs.slice())([1, 2, 3]),
  g[0] + 2 * g[1] + 3 * g[2],
);
summary("p38-control-flow");
