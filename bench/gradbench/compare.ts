// Checks run before anything is timed: an output against GradBench's reference (its own rule),
// and two outputs of ours against each other (nabla and hand-written code to 1e-9; TensorFlow.js,
// which computes in float32, against nabla to float32 accuracy).

import { toJson, type Json } from "../../gradbench/json.js";

export type { Json };

export interface Check {
  ok: boolean;
  /** The number of values that disagree (or 1 for a shape mismatch). */
  mismatches: number;
  /** The first disagreement, or for a pass the largest difference. */
  detail: string;
  /** The largest difference (compareFloat32: relative to the largest magnitude). */
  worst: number;
}

/**
 * What GradBench receives: typed arrays made lists as the tool does after timing (`toJson`),
 * then JSON's own conversions (NaN becomes null).
 */
export function asJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(toJson(value ?? null))) as Json;
}

/** GradBench's rule: |x − y| / max(1, |x| + |y|) ≤ 1e-4. */
export function gradbenchClose(x: number, y: number): boolean {
  return Math.abs(x - y) / Math.max(1, Math.abs(x) + Math.abs(y)) <= 1e-4;
}

/** numpy.isclose, which the hello eval uses (x expected). */
export function helloClose(x: number, y: number): boolean {
  return Math.abs(y - x) <= 1e-8 + 1e-5 * Math.abs(x);
}

/** Two outputs of ours that should agree to rounding: relative 1e-9. */
export function tightClose(x: number, y: number): boolean {
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x) + Math.abs(y));
}

const kind = (v: Json) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** Every number of `expected` paired with the one at the same place in `actual`. */
function pairs(
  expected: Json,
  actual: Json,
  path: string,
  out: { path: string; x: number; y: number }[],
): string | null {
  const ke = kind(expected);
  const ka = kind(actual);
  if (ke !== ka) return `${path}: expected ${ke}, got ${ka}`;
  if (ke === "number") {
    out.push({ path, x: expected as number, y: actual as number });
    return null;
  }
  if (ke === "array") {
    const xs = expected as Json[];
    const ys = actual as Json[];
    if (xs.length !== ys.length) return `${path}: expected length ${xs.length}, got ${ys.length}`;
    for (let i = 0; i < xs.length; i++) {
      const problem = pairs(xs[i]!, ys[i]!, `${path}[${i}]`, out);
      if (problem !== null) return problem;
    }
    return null;
  }
  if (ke === "object") {
    const xo = expected as { [key: string]: Json };
    const yo = actual as { [key: string]: Json };
    const xk = Object.keys(xo).sort();
    const yk = Object.keys(yo).sort();
    if (xk.join(",") !== yk.join(",")) {
      return `${path}: expected keys {${xk.join(",")}}, got {${yk.join(",")}}`;
    }
    for (const k of xk) {
      const problem = pairs(xo[k]!, yo[k]!, `${path}.${k}`, out);
      if (problem !== null) return problem;
    }
    return null;
  }
  return expected === actual
    ? null
    : `${path}: expected ${String(expected)}, got ${String(actual)}`;
}

/** The largest of f(v) over the values, 0 for none (no spread: outputs can be long). */
function largest<T>(values: readonly T[], f: (v: T) => number): number {
  let m = 0;
  for (const v of values) m = Math.max(m, f(v));
  return m;
}

const count = (n: number) => `${n} value${n === 1 ? "" : "s"}`;

const show = (v: number) => (Number.isInteger(v) ? String(v) : v.toPrecision(7));

/** Compares `actual` with `expected` number by number with `close(expected, actual)`. */
export function compareWith(
  expected: Json,
  actual: Json,
  close: (x: number, y: number) => boolean,
): Check {
  const values: { path: string; x: number; y: number }[] = [];
  const problem = pairs(expected, actual, "", values);
  if (problem !== null) return { ok: false, mismatches: 1, detail: problem, worst: Infinity };
  const worst = largest(values, ({ x, y }) => Math.abs(x - y));
  const bad = values.filter(({ x, y }) => !close(x, y));
  if (bad.length > 0) {
    const { path, x, y } = bad[0]!;
    return {
      ok: false,
      mismatches: bad.length,
      detail: `${bad.length} of ${count(values.length)} differ; first at ${path || "the value"}: expected ${show(x)}, got ${show(y)}`,
      worst,
    };
  }
  return {
    ok: true,
    mismatches: 0,
    detail: `${count(values.length)}, largest difference ${worst.toExponential(1)}`,
    worst,
  };
}

/**
 * The largest difference between two outputs of the same shape relative to the larger of the
 * two values (0 where both are equal, exact zeros included); Infinity if the shapes differ.
 */
export function largestRelativeDifference(a: Json, b: Json): number {
  const values: { path: string; x: number; y: number }[] = [];
  if (pairs(a, b, "", values) !== null) return Infinity;
  return largest(values, ({ x, y }) =>
    x === y ? 0 : Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y)),
  );
}

/** Relative accuracy of float32 results: a few thousand roundings of 6e-8 each. */
export const FLOAT32_RELATIVE = 1e-3;
/** Values far below the largest of the output are compared with this fraction of it. */
export const FLOAT32_OF_LARGEST = 1e-4;
/** And with this absolute bound: a few roundings of a quantity of size 1 in float32. */
export const FLOAT32_ABSOLUTE = 1e-6;

/**
 * A float32 result (TensorFlow.js) against nabla's float64 one: every value within 1e-3
 * relative, or within 1e-4 of the largest magnitude in the reference (a component far smaller
 * than the others collects the others' rounding errors), or within 1e-6 absolute (an output
 * of small values can carry the rounding of an intermediate of size 1: tfjs's gradient of
 * logSumExp at the largest element includes 1 − Σ softmax, about 6e-8 in float32). The detail
 * gives the largest difference relative to the largest magnitude.
 */
export function compareFloat32(reference: Json, actual: Json): Check {
  const values: { path: string; x: number; y: number }[] = [];
  const problem = pairs(reference, actual, "", values);
  if (problem !== null) return { ok: false, mismatches: 1, detail: problem, worst: Infinity };
  const scale = largest(values, ({ x }) => Math.abs(x));
  const close = (x: number, y: number) =>
    Math.abs(x - y) <=
    Math.max(
      FLOAT32_RELATIVE * Math.max(Math.abs(x), Math.abs(y)),
      FLOAT32_OF_LARGEST * scale,
      FLOAT32_ABSOLUTE,
    );
  const check = compareWith(reference, actual, close);
  const worst = scale > 0 ? check.worst / scale : check.worst;
  if (!check.ok) return { ...check, worst };
  return {
    ...check,
    detail: `${count(values.length)}, largest difference ${worst.toExponential(1)} of the largest magnitude`,
    worst,
  };
}
