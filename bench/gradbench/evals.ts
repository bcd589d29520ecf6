// The GradBench evals as the benchmark sees them: which function is the primal, which are the
// derivatives timed against it, the target for nabla's derivative ÷ primal, and what GradBench's
// nightly run published for other tools (/work/shared/gradbench/README.md, 2026-03-14).

export interface EvalSpec {
  name: string;
  /** The function the derivatives are divided by; null for particle and saddle. */
  primal: string | null;
  /** The derivatives, timed against the primal (or alone when there is none). */
  derivatives: string[];
  /** Upper bound for the median over workloads of nabla's derivative ÷ primal. */
  target?: number;
  /** gradbench/hand/<name>.ts has a hand-written derivative. */
  hand: boolean;
  /** GradBench's published median derivative ÷ primal of its hand-written C++ tool. */
  manual?: number;
  /** GradBench's published median for its TensorFlow.js tool. */
  publishedTfjs?: number;
  /** What the derivative is, when it is not just "the gradient". */
  note?: string;
  /** Why nabla ÷ GradBench's C++ derivative has no target here (issue 22: "ode aside"). */
  cppAside?: string;
}

/** nabla's derivative ÷ hand-written derivative: the target for the median over workloads. */
export const TARGET_VS_HAND = 1.5;

/** nabla's derivative ÷ GradBench's manual C++ derivative, built here (issue 22's target). */
export const TARGET_VS_CPP = 2;

export const EVALS: readonly EvalSpec[] = [
  {
    name: "hello",
    primal: "square",
    derivatives: ["double"],
    hand: false,
    note: "`double` is the derivative of `square` (x ↦ 2x), a call of well under a microsecond: the ratio measures call overhead, not differentiation",
  },
  {
    name: "llsq",
    primal: "primal",
    derivatives: ["gradient"],
    target: 1.5,
    hand: true,
    manual: 2.05,
    publishedTfjs: 1.88,
  },
  {
    name: "lse",
    primal: "primal",
    derivatives: ["gradient"],
    target: 2.1,
    hand: true,
    manual: 1.12,
    publishedTfjs: 5.19,
  },
  {
    name: "det",
    primal: "primal",
    derivatives: ["gradient"],
    target: 3.2,
    hand: false,
    manual: 8.02,
  },
  {
    name: "ode",
    primal: "primal",
    derivatives: ["gradient"],
    target: 3.2,
    hand: false,
    manual: 0.048,
    note: "GradBench's manual tool uses the closed form of the gradient, cheaper than the primal",
    cppAside:
      "its manual C++ gradient exploits the problem's structure: a closed form, cheaper than the primal",
  },
  {
    name: "kmeans",
    primal: "cost",
    derivatives: ["dir"],
    target: 2.5,
    hand: false,
    manual: 1.35,
    note: "`dir` (the Newton step J ⊘ H) takes two derivatives, a gradient and a Hessian-vector product with a vector of ones, and is divided by `cost`",
  },
  {
    name: "gmm",
    primal: "objective",
    derivatives: ["jacobian"],
    target: 3.2,
    hand: true,
    manual: 2.22,
  },
  {
    name: "ba",
    primal: "objective",
    derivatives: ["jacobian"],
    target: 9.7,
    hand: true,
    manual: 7.71,
    note: "`jacobian` is the full sparse Jacobian (15 entries in each of 2p rows, one in each of p more)",
  },
  {
    name: "ht",
    primal: "objective",
    derivatives: ["jacobian"],
    target: 10,
    hand: false,
    manual: 5.83,
    note: "`jacobian` is a dense 3N × 26 (simple) or 3N × 28 (complicated) Jacobian",
  },
  {
    name: "lstm",
    primal: "objective",
    derivatives: ["jacobian"],
    target: 3.2,
    hand: true,
    manual: 8.56,
  },
  {
    name: "particle",
    primal: null,
    derivatives: ["ff", "fr", "rf", "rr"],
    hand: false,
    note: "no primal: each of ff, fr, rf, rr is a whole gradient descent through nested derivatives (outer mode, inner mode), so only their times are reported",
  },
  {
    name: "saddle",
    primal: null,
    derivatives: ["ff", "fr", "rf", "rr"],
    hand: false,
    note: "no primal: each of ff, fr, rf, rr is a nested gradient descent (outer mode, inner mode), so only their times are reported",
  },
];

export function evalSpec(name: string): EvalSpec {
  const spec = EVALS.find((e) => e.name === name);
  if (spec === undefined) {
    throw new Error(`unknown eval '${name}' (known: ${EVALS.map((e) => e.name).join(", ")})`);
  }
  return spec;
}

/** "gradient" → "Gradient": the suffix of prepare<Fn> and run<Fn>. */
export function capitalize(fn: string): string {
  return fn[0]!.toUpperCase() + fn.slice(1);
}
