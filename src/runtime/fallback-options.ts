import { optionNames } from "../api/operators.js";
// The options an operator gets when it runs uncompiled, checked before anything is generated
// from them: the fallback writes them into source code that it compiles and evaluates, so
// nothing the caller passed may reach that code except indices checked to be integers.

/** `wrt` as the fallback writes it: one index, a list of them, or absent (the default). */
export type Wrt = number | number[] | undefined;

/** A value as an error message shows it: short, and escaped, whatever it holds. */
export function shown(value: unknown): string {
  let text: string;
  if (typeof value === "string") text = JSON.stringify(value);
  else if (typeof value === "symbol") text = JSON.stringify(String(value));
  else if (typeof value === "number" || typeof value === "boolean" || value == null)
    text = String(value);
  else if (Array.isArray(value)) text = "an array";
  else text = typeof value === "object" ? "an object" : `a ${typeof value}`;
  return text.length > 60 ? `${text.slice(0, 57)}…"` : text;
}

/** The options as the fallback writes them into the module it compiles, each checked. */
export interface CheckedOptions {
  wrt: Wrt;
  /** `hasAux: true` (gradient, valueWithGradient). */
  hasAux?: true;
  /** `jacobian`'s mode. */
  mode?: "forward" | "reverse";
}

/**
 * The options, read once and checked: `options` must be absent or a plain object with only
 * the keys `operator` takes; `wrt` an index or a non-empty list of distinct indices, `hasAux`
 * a boolean, `mode` "forward" or "reverse".
 */
export function readOptions(operator: string, options: unknown): CheckedOptions {
  if (options === undefined || options === null) return { wrt: undefined };
  const prototype = typeof options === "object" ? Object.getPrototypeOf(options) : undefined;
  if (prototype !== Object.prototype && prototype !== null)
    throw new TypeError(
      `nabla: the options of ${operator} must be an object such as { wrt: [0, 1] }, and are ${shown(options)}`,
    );
  const names = optionNames(operator);
  for (const key of Reflect.ownKeys(options as object))
    if (typeof key !== "string" || !names.includes(key))
      throw new TypeError(
        `nabla: unknown option ${shown(key)} given to ${operator}; ${names.length === 1 ? "the only option is 'wrt'" : `its options are ${names.map((n) => `'${n}'`).join(", ")}`}`,
      );
  const { wrt, hasAux, mode, backend } = options as {
    wrt?: unknown;
    hasAux?: unknown;
    mode?: unknown;
    backend?: unknown;
  };
  const checked: CheckedOptions = { wrt: readWrt(operator, wrt) };
  if (hasAux !== undefined && typeof hasAux !== "boolean")
    throw new TypeError(
      `nabla: 'hasAux' given to ${operator} must be true or false, and is ${shown(hasAux)}`,
    );
  if (hasAux === true) checked.hasAux = true;
  if (mode !== undefined && mode !== "forward" && mode !== "reverse")
    throw new TypeError(
      `nabla: 'mode' given to ${operator} must be "forward" or "reverse", and is ${shown(mode)}`,
    );
  if (mode !== undefined) checked.mode = mode;
  // Checked, then not used: code compiled at run time is JavaScript.
  if (backend !== undefined && backend !== "wasm" && backend !== "js" && backend !== "auto")
    throw new TypeError(
      `nabla: 'backend' given to ${operator} must be "wasm", "js" or "auto", and is ${shown(backend)}`,
    );
  return checked;
}

/** `wrt`: an index or a non-empty list of distinct indices, or absent. */
function readWrt(operator: string, wrt: unknown): Wrt {
  if (wrt === undefined) return undefined;
  const indices = Array.isArray(wrt) ? Array.from(wrt as unknown[]) : [wrt];
  if (indices.length === 0)
    throw new TypeError(`nabla: 'wrt' given to ${operator} must name at least one parameter`);
  for (const [i, index] of indices.entries()) {
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0)
      throw new TypeError(
        `nabla: 'wrt' given to ${operator} must list parameter indices (integers from 0), and holds ${shown(index)}`,
      );
    if (indices.indexOf(index) !== i)
      throw new TypeError(`nabla: 'wrt' given to ${operator} lists parameter ${index} twice`);
  }
  return Array.isArray(wrt) ? (indices as number[]) : (wrt as number);
}

/** Checks that every index of `wrt` names one of the function's `arity` parameters. */
export function checkWrtRange(operator: string, wrt: Wrt, arity: number): void {
  for (const index of wrt === undefined ? [] : Array.isArray(wrt) ? wrt : [wrt])
    if (index >= arity)
      throw new TypeError(
        `nabla: 'wrt' index ${index} given to ${operator} is out of range: the function has ${arity} parameter${arity === 1 ? "" : "s"}`,
      );
}
