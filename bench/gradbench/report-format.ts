// Formatting shared by the report's tables (./report.ts, ./report-native.ts): times, ratios,
// cells, medians over workloads and verdicts against a target.

import { median } from "../timing.js";
import type { Outcome } from "./results.js";

/** A time per call: ns, µs, ms or s with three significant digits. */
export function formatTime(ms: number): string {
  const three = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  if (ms < 1e-3) return `${three(ms * 1e6)} ns`;
  if (ms < 1) return `${three(ms * 1e3)} µs`;
  if (ms < 1000) return `${three(ms)} ms`;
  return `${three(ms / 1000)} s`;
}

/** A ratio to three significant digits, two below 0.01 (hello's nanoseconds against JAX's microseconds). */
export function formatRatio(r: number): string {
  if (r > 0 && r < 0.01) return `${r.toPrecision(2)}×`;
  return `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;
}

export const DASH = "–";

/** The time of a timed outcome; undefined otherwise. */
export function ms(o: Outcome | null | undefined): number | undefined {
  return o?.kind === "timed" ? o.timing.ms : undefined;
}

export function timeCell(o: Outcome | null | undefined): string {
  if (o === null || o === undefined) return DASH;
  if (o.kind === "failed") return o.reason.startsWith("does not compile") ? "no compile" : "fails";
  const mark = o.flag !== undefined ? " ✗" : o.unusable !== undefined ? " ⚠" : "";
  return `${formatTime(o.timing.ms)}${mark}`;
}

/** The time of a timed outcome that may enter a ratio: no wrong output, not too short. */
export function usableMs(o: Outcome | null | undefined): number | undefined {
  return o?.kind === "timed" && o.flag === undefined && o.unusable === undefined
    ? o.timing.ms
    : undefined;
}

export function ratioCell(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined ? DASH : formatRatio(a / b);
}

/** The median of the defined values; undefined if there are none. */
export function medianOf(values: (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return defined.length === 0 ? undefined : median(defined);
}

/** "met" or "missed (1.40× the target)". */
export function verdict(value: number | undefined, target: number | undefined): string {
  if (value === undefined) return DASH;
  if (target === undefined) return "no target";
  return value <= target ? "met" : `missed (${formatRatio(value / target)} the target)`;
}
