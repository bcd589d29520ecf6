import type { FunctionKey } from "../ir/types.js";

// Names of derivative functions. A derivative is identified by its primal and its
// configuration (which parameters it differentiates), as Swift's derivative configurations are.

export function jvpKey(primal: FunctionKey, wrt: number[]): FunctionKey {
  return `${primal}@jvp(${wrt.join(",")})`;
}

/** `f$jvp` when every parameter is differentiated, `f$jvp_0_2` for a subset. */
export function jvpName(primalName: string, wrt: number[], arity: number): string {
  const all = wrt.length === arity && wrt.every((w, i) => w === i);
  return all ? `${primalName}$jvp` : `${primalName}$jvp_${wrt.join("_")}`;
}

/** The internal name of a lambda written at an operator call (line and column of the lambda). */
export function lambdaName(line: number, column: number): string {
  return `lambda_${line}_${column}`;
}

/** How messages refer to a function: `'f'`, or "this function" for a lambda. */
export function functionLabel(name: string): string {
  return /^lambda_\d+_\d+$/.test(name) ? "this function" : `'${name}'`;
}
