// Registered derivatives: a user teaches nabla the derivative of a function (for speed, for
// numerical stability, or because its source is not visible) with `registerDerivative`. The
// compiler finds the registration in the source and calls the rule instead of differentiating
// the body; at run time the registration only checks the rule and hands it back, so the
// generated code can keep it in a module-level constant.

/** A registered rule as the generated code sees it (its typed form is DerivativeRule<F>). */
export interface RegisteredRule {
  forward?: (...args: never[]) => { value: unknown; tangent: unknown };
  reverse?: (...args: never[]) => { value: unknown; pullback: (adjoint: never) => unknown };
}

/** Checks `rule` for `f` and returns it (the compiled module keeps it for generated code). */
export function registerRule<R extends RegisteredRule>(f: unknown, rule: R): R {
  if (typeof f !== "function")
    throw new TypeError("nabla: registerDerivative needs the function whose derivative it is");
  if (rule === null || typeof rule !== "object")
    throw new TypeError("nabla: registerDerivative needs a rule object { forward?, reverse? }");
  for (const key of ["forward", "reverse"] as const) {
    if (rule[key] !== undefined && typeof rule[key] !== "function")
      throw new TypeError(
        `nabla: the '${key}' rule of '${f.name || "this function"}' is not a function`,
      );
  }
  if (!rule.forward && !rule.reverse)
    throw new TypeError(
      `nabla: the rule of '${f.name || "this function"}' has neither 'forward' nor 'reverse'`,
    );
  return rule;
}

/**
 * Thrown by generated code that needs a rule its module has not registered yet: a module that
 * module imports used the function while being loaded, before the registration ran.
 *
 * @internal
 */
export function ruleNotYetRegistered(name: string, file: string): never {
  throw new Error(
    `nabla: the derivative of '${name}' is registered in ${file}, which had not run its 'registerDerivative' yet when '${name}' was differentiated (by code above the registration, or by a module ${file} imports, while it was being loaded). Register the derivative before that code runs: above it, or in a module imported first, such as the one that defines '${name}'.`,
  );
}
