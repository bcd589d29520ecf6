// Helpers generated code calls that are not about tapes or tangents: built-ins a program
// shadows, errors thrown in differentiated code, and the derivatives function values carry.

/**
 * The platform's globals (`Math`, `Array`, `Float64Array`…), for generated code in a module
 * that declares one of their names itself (a `const Math`, a parameter `Array`): it reads
 * them here, where no program's binding hides them.
 *
 * @internal
 */
export const globals: typeof globalThis = globalThis;

/**
 * Called by generated code when a `Differentiable` value is none of the functions the
 * compiler knew could be there.
 *
 * @internal
 */
export function unknownFunctionValue(f: unknown, where: string): never {
  // `table[name](x)` for a key the table lacks: what the program itself would throw.
  if (typeof f !== "function") throw new TypeError(`${where} is not a function`);
  const name =
    typeof f === "function" && f.name ? `'${f.name}'` : "a function nabla did not compile";
  throw new TypeError(
    `nabla: ${where} holds ${name}, which is not one of the functions nabla saw used as a value in the compiled program, so it has no derivative. Pass a function declared at the top level of a compiled module, or written in a module-level object or array that no code writes to (not a closure or a function from outside the program).`,
  );
}

/**
 * Generated code: the value `read` returns, or undefined while the binding it reads is not
 * initialized (a module-level `const` of a module still loading, or declared further down).
 *
 * @internal
 */
export function readIfInitialized<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (error instanceof ReferenceError) return undefined;
    throw error;
  }
}

/**
 * Generated code: `throw new Error(…)` in differentiated code, the message given in pieces.
 *
 * @internal
 */
export function raise(kind: string, ...pieces: unknown[]): never {
  const message = pieces.map(String).join("");
  throw kind === "RangeError"
    ? new RangeError(message)
    : kind === "TypeError"
      ? new TypeError(message)
      : new Error(message);
}

const attached = new WeakMap<object, Record<string, unknown>>();

/**
 * Generated code: `f` passed where the callee needs derivatives of it (`gradient(loss)` on a
 * parameter, or of a lambda calling it), with those derivatives, compiled where `f` was
 * written. Returns `f`.
 *
 * @internal
 */
export function attachDerivatives<F extends object>(f: F, derivatives: Record<string, unknown>): F {
  attached.set(f, { ...attached.get(f), ...derivatives });
  return f;
}

/**
 * Generated code: `lambda`, written at `label` and calling the function value `f`, passed on
 * by a function that got `f` from its caller: it carries what the caller attached to `f` for
 * it (under `label > …`), each a factory given the lambda's other captures. Returns `lambda`.
 *
 * @internal
 */
export function forwardDerivatives<F extends object>(
  lambda: F,
  f: unknown,
  label: string,
  captures: unknown[],
): F {
  const from = typeof f === "function" ? attached.get(f) : undefined;
  if (!from) return lambda;
  const prefix = `${label} > `;
  const derivatives: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (!key.startsWith(prefix)) continue;
    derivatives[key.slice(prefix.length)] = (from[key] as (...c: unknown[]) => unknown)(
      ...captures,
    );
  }
  return attachDerivatives(lambda, derivatives);
}

/**
 * Generated code: the derivative attached to the function value `f` under `key` (see above).
 *
 * @internal
 */
export function derivativeOf(f: unknown, key: string, name: string): never {
  const found = typeof f === "function" ? attached.get(f)?.[key] : undefined;
  if (found) return found as never;
  const what = /^[A-Za-z]+$/.test(key)
    ? `'${key}(${name})' needs the derivative of the function passed as '${name}'`
    : `a derivative of a function calling '${name}' (${key}) is needed`;
  throw new TypeError(
    `nabla: ${what}, and this function value has none: nabla compiles it where a function is passed directly to a parameter that the callee differentiates (an arrow function or a function's name, in compiled code). A function from code nabla did not compile, or one whose derivative could not be compiled (see the warnings of 'nabla check'), has no derivative attached.`,
  );
}
