// Custom derivatives with `registerDerivative`: differentiated code calls your rule instead of
// differentiating the function's body. Three reasons to write one:
// - numerical stability: logSumExp's body overflows for large inputs, its rule does not;
// - speed: sigmoid's pullback reuses the value the forward pass computed;
// - no visible source: besselJ0 comes from a package that ships JavaScript and a .d.ts only
//   (examples/node_modules/fake-special); nabla reads its signature from the .d.ts.
// A rule gives `forward` (for derivative, differential), `reverse` (for gradient, pullback),
// or both.
import { derivative, gradient, registerDerivative, valueWithGradient } from "nabla";
import { besselJ0, besselJ1 } from "fake-special";

/** log(Σ exp(xᵢ)), as written: exp(1000) is Infinity. */
function logSumExp(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += Math.exp(x);
  return Math.log(s);
}

/** The largest input, and the sum of exp(xᵢ − max): no overflow. */
function shifted(xs: number[]): { max: number; sum: number } {
  const max = Math.max(...xs);
  let sum = 0;
  for (const x of xs) sum += Math.exp(x - max);
  return { max, sum };
}

registerDerivative(logSumExp, {
  // The tangent is Σ softmax(x)ᵢ·dxᵢ.
  forward: (xs, dxs) => {
    const { max, sum } = shifted(xs);
    let tangent = 0;
    for (let i = 0; i < xs.length; i++) tangent += (Math.exp(xs[i]! - max) / sum) * dxs[i]!;
    return { value: max + Math.log(sum), tangent };
  },
  // The gradient is softmax(x).
  reverse: (xs) => {
    const { max, sum } = shifted(xs);
    return {
      value: max + Math.log(sum),
      pullback: (dy) => xs.map((x) => (dy * Math.exp(x - max)) / sum),
    };
  },
});

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

registerDerivative(sigmoid, {
  forward: (x, dx) => {
    const s = sigmoid(x);
    return { value: s, tangent: dx * s * (1 - s) };
  },
  // σ′ = σ·(1 − σ): the pullback keeps σ(x) instead of computing exp again.
  reverse: (x) => {
    const s = sigmoid(x);
    return { value: s, pullback: (dy) => dy * s * (1 - s) };
  },
});

// J0′ = −J1, from the same package.
registerDerivative(besselJ0, {
  forward: (x, dx) => ({ value: besselJ0(x), tangent: -besselJ1(x) * dx }),
  reverse: (x) => ({ value: besselJ0(x), pullback: (dy) => -besselJ1(x) * dy }),
});

// 1. logSumExp at large inputs: the body gives Infinity, the rule a finite value and softmax.
const scores = [1000, 1001, 999];
const lse = valueWithGradient(logSumExp)(scores);
const fixed = (xs: number[]) => xs.map((x) => x.toFixed(6)).join(", ");
console.log(`logSumExp body at [${scores.join(", ")}]: ${logSumExp(scores)}`);
console.log(`logSumExp rule: ${lse.value.toFixed(6)}, gradient (softmax) [${fixed(lse.gradient)}]`);

// 2. A logistic-regression loss: its gradient goes through sigmoid's reverse rule.
const xs = [-2, -1, 0.5, 1.5, 3];
const labels = [0, 0, 1, 0, 1];

function crossEntropy(w: number, b: number): number {
  let loss = 0;
  for (let i = 0; i < xs.length; i++) {
    const p = sigmoid(w * xs[i]! + b);
    loss -= labels[i]! * Math.log(p) + (1 - labels[i]!) * Math.log(1 - p);
  }
  return loss;
}

const step = valueWithGradient(crossEntropy);
let w = 0;
let b = 0;
for (let epoch = 0; epoch < 2000; epoch++) {
  const { gradient: g } = step(w, b);
  w -= 0.1 * g[0];
  b -= 0.1 * g[1];
}
console.log(
  `logistic fit: w = ${w.toFixed(3)}, b = ${b.toFixed(3)}, loss ${crossEntropy(w, b).toFixed(4)}`,
);

// 3. Newton's method on the package's J0, with its derivative from the forward rule.
const slope = derivative((t: number) => besselJ0(t));
let x = 2;
for (let i = 0; i < 20; i++) x -= besselJ0(x) / slope(x);
console.log(`first zero of J0: ${x.toFixed(12)}`);

// Forward and reverse rules agree.
const dForward = derivative((t: number) => sigmoid(t) * besselJ0(t))(0.7);
const dReverse = gradient((t: number) => sigmoid(t) * besselJ0(t))(0.7);
console.log(
  `d/dt σ(t)·J0(t) at 0.7: forward ${dForward.toFixed(12)}, reverse ${dReverse.toFixed(12)}`,
);
