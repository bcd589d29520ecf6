// Immutable state updates: a Redux-style reducer over a list of actions (a discriminated
// union), `{ ...state, x: state.x + dt * state.v }`, reduce over actions; gradient of the final
// state's energy w.r.t. the initial state and a parameter.
import { gradient, differential, jacobian } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

interface SimState {
  readonly x: number;
  readonly v: number;
  readonly t: number;
  readonly log: readonly number[];
}

type Action =
  | { type: "tick"; dt: number }
  | { type: "impulse"; dv: number }
  | { type: "friction"; mu: number }
  | { type: "record" };

function reducer(state: SimState, action: Action, k: number): SimState {
  switch (action.type) {
    case "tick": {
      const a = -k * state.x;
      const v = state.v + action.dt * a;
      return { ...state, v, x: state.x + action.dt * v, t: state.t + action.dt };
    }
    case "impulse":
      return { ...state, v: state.v + action.dv };
    case "friction":
      return { ...state, v: state.v * (1 - action.mu) };
    case "record":
      return { ...state, log: [...state.log, state.x] };
    default: {
      const never: never = action;
      return never;
    }
  }
}

const script: Action[] = [
  ...Array.from({ length: 10 }, (): Action => ({ type: "tick", dt: 0.1 })),
  { type: "record" },
  { type: "impulse", dv: 0.5 },
  ...Array.from({ length: 10 }, (_, i): Action => (i % 3 === 0 ? { type: "friction", mu: 0.05 } : { type: "tick", dt: 0.1 })),
  { type: "record" },
];

function run(init: number[], k: number): SimState {
  const start: SimState = { x: init[0], v: init[1], t: 0, log: [] };
  return script.reduce((s, a) => reducer(s, a, k), start);
}

function score(init: number[], k: number): number {
  const end = run(init, k);
  return 0.5 * end.v ** 2 + 0.5 * k * end.x ** 2 + end.log.reduce((s, x) => s + x * x, 0);
}

const x0 = [1, 0.2];
const k = 2.5;
const g = gradient(score)(x0, k);
compare("grad init vs fd", g[0], fdGrad((x) => score(x, k), x0));
compare("grad k vs fd", g[1], fdGrad(([kk]) => score(x0, kk), [k]));
compare("fwd vs rev", differential(score)(x0, k)([1, 1], 1), g[0][0] + g[0][1] + g[1]);
const J = jacobian((init: number[]) => run(init, k).log as number[])(x0);
compare("jacobian of log vs fd", J, fdJac((x) => [...run(x, k).log], x0));
summary("s15-immutable-reducer");
