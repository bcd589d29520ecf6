// Enums: a numeric enum (interpolation order) and a string enum (loss kind), switch on both,
// ternary chains, `**=`, a static method on a utility class; derivatives of each branch.
import { derivative, gradient, differential } from "nabla";
import { compare, fd1, fdGrad, summary } from "./check.ts";

enum Order {
  Linear = 1,
  Quadratic,
  Cubic,
}

enum LossKind {
  Squared = "squared",
  Absolute = "absolute",
  Huber = "huber",
  LogCosh = "logcosh",
}

class Losses {
  static delta = 1.0;
  static of(kind: LossKind, r: number): number {
    switch (kind) {
      case LossKind.Squared:
        return 0.5 * r * r;
      case LossKind.Absolute:
        return Math.abs(r);
      case LossKind.Huber:
        return Math.abs(r) <= Losses.delta ? 0.5 * r * r : Losses.delta * (Math.abs(r) - 0.5 * Losses.delta);
      case LossKind.LogCosh:
        return Math.log(Math.cosh(r));
    }
  }
}

function ease(t: number, order: Order): number {
  let y = t;
  switch (order) {
    case Order.Cubic:
      y **= 3;
      break;
    case Order.Quadratic:
      y **= 2;
      break;
    default:
      break;
  }
  return order === Order.Linear ? t : order === Order.Quadratic ? y * (2 - t) + t * t - y : y * (3 - 2 * t);
}

function total(params: number[], kind: LossKind, order: Order): number {
  const xs = [0.1, 0.4, 0.7, 1.0];
  const ys = [0.05, 0.3, 0.8, 0.9];
  let s = 0;
  for (const [i, x] of xs.entries()) {
    const pred = params[0] * ease(x, order) + params[1];
    s += Losses.of(kind, pred - ys[i]);
  }
  return s;
}

for (const order of [Order.Linear, Order.Quadratic, Order.Cubic]) {
  const d = derivative((t: number) => ease(t, order))(0.37);
  compare(`ease' order ${Order[order]}`, d, fd1((t) => ease(t, order), 0.37));
}
const p = [1.3, -0.2];
for (const kind of Object.values(LossKind)) {
  const g = gradient(total, { wrt: 0 })(p, kind, Order.Cubic);
  compare(`grad ${kind} vs fd`, g, fdGrad((q) => total(q, kind, Order.Cubic), p));
  compare(`fwd vs rev ${kind}`, differential(total, { wrt: 0 })(p, kind, Order.Cubic)([1, 1]), g[0] + g[1]);
}
summary("s12-enums");
