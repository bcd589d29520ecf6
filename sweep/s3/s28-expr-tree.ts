// A symbolic expression tree as a recursive discriminated union, evaluated recursively with
// variables from a Record<string, number>; the gradient of the evaluation w.r.t. the
// variable environment, and of a fitted constant inside the tree.
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

type Expr =
  | { op: "num"; value: number }
  | { op: "var"; name: string }
  | { op: "add" | "mul" | "sub"; left: Expr; right: Expr }
  | { op: "sin" | "exp"; arg: Expr };

function evaluate(e: Expr, env: Record<string, number>): number {
  switch (e.op) {
    case "num":
      return e.value;
    case "var":
      return env[e.name] ?? 0;
    case "add":
      return evaluate(e.left, env) + evaluate(e.right, env);
    case "sub":
      return evaluate(e.left, env) - evaluate(e.right, env);
    case "mul":
      return evaluate(e.left, env) * evaluate(e.right, env);
    case "sin":
      return Math.sin(evaluate(e.arg, env));
    case "exp":
      return Math.exp(evaluate(e.arg, env));
  }
}

const v = (name: string): Expr => ({ op: "var", name });
const n = (value: number): Expr => ({ op: "num", value });
// x * sin(y) + exp(0.5 * x) - y * y
const model: Expr = {
  op: "sub",
  left: { op: "add", left: { op: "mul", left: v("x"), right: { op: "sin", arg: v("y") } }, right: { op: "exp", arg: { op: "mul", left: n(0.5), right: v("x") } } },
  right: { op: "mul", left: v("y"), right: v("y") },
};

function atPoint(env: Record<string, number>): number {
  return evaluate(model, env);
}

const env = { x: 0.7, y: 1.3 };
const g = gradient(atPoint)(env);
const fd = fdGrad(([x, y]) => atPoint({ x, y }), [env.x, env.y]);
compare("grad env vs fd", [g.x, g.y], fd);
compare("fwd vs rev", differential(atPoint)(env)({ x: 1, y: 2 }), g.x + 2 * g.y);
summary("s28-expr-tree");
