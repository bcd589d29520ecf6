// Private fields/methods, getters on object literals, do-while, switch fallthrough, while(true).
import { gradient, differential, derivative } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

class Integrator {
  #t = 0;
  #state: number[];
  constructor(initial: number[]) {
    this.#state = [...initial];
  }
  #rhs(y: number[], k: number): number[] {
    return y.map((v, i) => -k * v + (i > 0 ? y[i - 1] : 0));
  }
  stepRk2(dt: number, k: number): void {
    const k1 = this.#rhs(this.#state, k);
    const mid = this.#state.map((v, i) => v + 0.5 * dt * k1[i]);
    const k2 = this.#rhs(mid, k);
    this.#state = this.#state.map((v, i) => v + dt * k2[i]);
    this.#t += dt;
  }
  get state(): readonly number[] {
    return this.#state;
  }
  get time() {
    return this.#t;
  }
}

function decayLoss(y0: number[], k: number): number {
  const integ = new Integrator(y0);
  let steps = 0;
  do {
    integ.stepRk2(0.1, k);
    steps++;
  } while (integ.time < 1 - 1e-9);
  const summary = {
    values: integ.state,
    get energy() {
      return this.values.reduce((s, v) => s + v * v, 0);
    },
  };
  return summary.energy * steps;
}

function piecewise(x: number, mode: number): number {
  let y = 0;
  switch (mode) {
    case 0:
      y += x;
    // falls through
    case 1:
      y += x * x;
      break;
    case 2: {
      let z = x;
      while (true) {
        z = z * 0.5 + 0.1;
        if (Math.abs(z) < 0.3) break;
      }
      y = z * x;
      break;
    }
    default:
      y = -x;
  }
  return y;
}

const y0 = [1, 0.5, -0.3];
const g = gradient(decayLoss)(y0, 0.7);
compare(
  "decay y0",
  g[0],
  fdGrad((y) => decayLoss(y, 0.7), y0),
);
compare(
  "decay k",
  g[1],
  fd1((k) => decayLoss(y0, k), 0.7),
);
compare(
  "decay fwd",
  differential(decayLoss)(y0, 0.7)([1, 1, 1], 1),
  g[0].reduce((a, b) => a + b) + g[1],
);
for (const mode of [0, 1, 2, 3]) {
  const d = derivative((x: number) => piecewise(x, mode))(1.7);
  compare(
    `piecewise ${mode} fwd`,
    d,
    fd1((x) => piecewise(x, mode), 1.7),
  );
  compare(`piecewise ${mode} rev`, gradient(piecewise, { wrt: 0 })(1.7, mode), d);
}
summary("p27-private-state");
