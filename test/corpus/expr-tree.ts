// Symbolic expression trees as a discriminated union: recursive evaluation and differentiation, objective = f(x) + ½|∇f(x)|².

export type Expr =
  | { kind: "num"; value: number }
  | { kind: "var"; name: string }
  | { kind: "add"; a: Expr; b: Expr }
  | { kind: "mul"; a: Expr; b: Expr }
  | { kind: "div"; a: Expr; b: Expr }
  | { kind: "pow"; base: Expr; exponent: number }
  | { kind: "neg"; arg: Expr }
  | { kind: "call"; fn: "sin" | "cos" | "exp" | "log"; arg: Expr };

export const num = (value: number): Expr => ({ kind: "num", value });
export const v = (name: string): Expr => ({ kind: "var", name });
export const add = (a: Expr, b: Expr): Expr => ({ kind: "add", a, b });
export const mul = (a: Expr, b: Expr): Expr => ({ kind: "mul", a, b });
export const div = (a: Expr, b: Expr): Expr => ({ kind: "div", a, b });
export const pow = (base: Expr, exponent: number): Expr => ({ kind: "pow", base, exponent });
export const call = (fn: "sin" | "cos" | "exp" | "log", arg: Expr): Expr => ({ kind: "call", fn, arg });

const functions = { sin: Math.sin, cos: Math.cos, exp: Math.exp, log: Math.log };

export function evaluate(e: Expr, env: Record<string, number>): number {
  switch (e.kind) {
    case "num":
      return e.value;
    case "var": {
      const x = env[e.name];
      if (x === undefined) throw new Error(`unbound variable ${e.name}`);
      return x;
    }
    case "add":
      return evaluate(e.a, env) + evaluate(e.b, env);
    case "mul":
      return evaluate(e.a, env) * evaluate(e.b, env);
    case "div":
      return evaluate(e.a, env) / evaluate(e.b, env);
    case "pow":
      return evaluate(e.base, env) ** e.exponent;
    case "neg":
      return -evaluate(e.arg, env);
    case "call":
      return functions[e.fn](evaluate(e.arg, env));
    default: {
      const unreachable: never = e;
      return unreachable;
    }
  }
}

export function differentiate(e: Expr, x: string): Expr {
  switch (e.kind) {
    case "num":
      return num(0);
    case "var":
      return num(e.name === x ? 1 : 0);
    case "add":
      return add(differentiate(e.a, x), differentiate(e.b, x));
    case "mul":
      return add(mul(differentiate(e.a, x), e.b), mul(e.a, differentiate(e.b, x)));
    case "div":
      return div(add(mul(differentiate(e.a, x), e.b), { kind: "neg", arg: mul(e.a, differentiate(e.b, x)) }), pow(e.b, 2));
    case "pow":
      return mul(mul(num(e.exponent), pow(e.base, e.exponent - 1)), differentiate(e.base, x));
    case "neg":
      return { kind: "neg", arg: differentiate(e.arg, x) };
    case "call": {
      const inner = differentiate(e.arg, x);
      const outer: Record<typeof e.fn, Expr> = {
        sin: call("cos", e.arg),
        cos: { kind: "neg", arg: call("sin", e.arg) },
        exp: e,
        log: div(num(1), e.arg),
      };
      return mul(outer[e.fn], inner);
    }
  }
}

export function freeVariables(e: Expr, acc = new Set<string>()): Set<string> {
  if (e.kind === "var") acc.add(e.name);
  else if (e.kind === "add" || e.kind === "mul" || e.kind === "div") [e.a, e.b].forEach((c) => freeVariables(c, acc));
  else if (e.kind === "pow") freeVariables(e.base, acc);
  else if (e.kind === "neg" || e.kind === "call") freeVariables(e.arg, acc);
  return acc;
}

// f(x, y, z) = sin(x·y) + exp(-z²/2)·(x² + 1) / (1 + y²) + log(1 + z²) - 0.3·x·z
export const model: Expr = add(
  add(call("sin", mul(v("x"), v("y"))), div(mul(call("exp", mul(num(-0.5), pow(v("z"), 2))), add(pow(v("x"), 2), num(1))), add(num(1), pow(v("y"), 2)))),
  add(call("log", add(num(1), pow(v("z"), 2))), { kind: "neg", arg: mul(num(0.3), mul(v("x"), v("z"))) }),
);

export function objective(point: Record<string, number>, expr: Expr = model): number {
  const gradient = [...freeVariables(expr)].map((name) => evaluate(differentiate(expr, name), point));
  return evaluate(expr, point) + 0.5 * gradient.reduce((s, g) => s + g * g, 0);
}

export const args: Parameters<typeof objective> = [{ x: 0.7, y: -1.3, z: 0.4 }, model];
