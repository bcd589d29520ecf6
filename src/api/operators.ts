// nabla's operators in one table: the compiler (request analysis, lowering, emission), the
// run-time fallback and the runtime's checks of options all read it, so adding an operator or
// an option is one entry here (and its typed function in runtime/index.ts).

export type Mode = "forward" | "reverse";

/** What an options object may hold (see DifferentiationOptions in runtime/index.ts). */
export type OptionName = "wrt" | "hasAux" | "mode" | "backend";

export interface OperatorInfo {
  /**
   * First-order operators: the mode of the derivative they return. Second-order ones are
   * built from first-order derivatives (emit/js/higher-order.ts) and say "reverse".
   */
  readonly mode: Mode;
  /** 1 for derivatives, 2 for Hessians and Jacobians (Jacobians count as built ones). */
  readonly order: 1 | 2;
  /** The options its options object takes. */
  readonly options: readonly OptionName[];
  /**
   * Whether differentiable code may call it (nested differentiation, computed in forward mode
   * inside; see lower/nested.ts).
   */
  readonly nestable: boolean;
}

export const OPERATORS = {
  // `derivative` takes one number, so `wrt` can only say 0; it is accepted all the same.
  derivative: {
    mode: "forward",
    order: 1,
    options: ["wrt", "backend"],
    nestable: true,
  },
  valueWithDerivative: {
    mode: "forward",
    order: 1,
    options: ["wrt", "backend"],
    nestable: true,
  },
  differential: {
    mode: "forward",
    order: 1,
    options: ["wrt", "backend"],
    nestable: false,
  },
  valueWithDifferential: {
    mode: "forward",
    order: 1,
    options: ["wrt", "backend"],
    nestable: false,
  },
  gradient: {
    mode: "reverse",
    order: 1,
    options: ["wrt", "hasAux", "backend"],
    nestable: true,
  },
  valueWithGradient: {
    mode: "reverse",
    order: 1,
    options: ["wrt", "hasAux", "backend"],
    nestable: true,
  },
  pullback: {
    mode: "reverse",
    order: 1,
    options: ["wrt", "backend"],
    nestable: false,
  },
  valueWithPullback: {
    mode: "reverse",
    order: 1,
    options: ["wrt", "backend"],
    nestable: false,
  },
  hessian: {
    mode: "reverse",
    order: 2,
    options: ["wrt", "backend"],
    nestable: false,
  },
  hessianVectorProduct: {
    mode: "reverse",
    order: 2,
    options: ["wrt", "backend"],
    nestable: false,
  },
  gradientAndHessianVectorProduct: {
    mode: "reverse",
    order: 2,
    options: ["wrt", "backend"],
    nestable: false,
  },
  jacobian: {
    mode: "reverse",
    order: 2,
    options: ["wrt", "mode", "backend"],
    nestable: false,
  },
} as const satisfies Record<string, OperatorInfo>;

export type Operator = keyof typeof OPERATORS;

/** Second derivatives and Jacobians: built from the first-order operators. */
export type HigherOrderOperator = {
  [O in Operator]: (typeof OPERATORS)[O]["order"] extends 2 ? O : never;
}[Operator];

/** nabla's functions that are not operators, which differentiable code may call too. */
export const HELPERS = ["withoutDerivative", "withDerivative", "checkpoint"] as const;

export function isOperator(name: string): name is Operator {
  return Object.hasOwn(OPERATORS, name);
}

export function isHigherOrder(name: string): name is HigherOrderOperator {
  return isOperator(name) && OPERATORS[name].order === 2;
}

/** Forward mode for the derivative/differential family, reverse mode for gradients and pullbacks. */
export function modeOf(operator: Operator): Mode {
  return OPERATORS[operator].mode;
}

/** The option names `operator` takes ("wrt" for a name nabla does not know, as a fallback). */
export function optionNames(operator: string): readonly string[] {
  return isOperator(operator) ? OPERATORS[operator].options : ["wrt"];
}

/** The operators whose options object takes `option`, for messages. */
export function operatorsTaking(option: string): Operator[] {
  return (Object.keys(OPERATORS) as Operator[]).filter((o) =>
    (OPERATORS[o].options as readonly string[]).includes(option),
  );
}
