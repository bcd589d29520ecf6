// The tape of reverse mode: one growable stack of float64 shared by all generated code. A
// forward sweep saves the residuals its backward sweep needs (coefficients, branch taken,
// loop trip counts) and the backward sweep takes them back in reverse order, so nested calls,
// branches and loops all share one last-in first-out stack without allocating per operation.
//
// Generated functions keep `buffer` and `top` in locals while they run (so the height stays in
// a register in hot loops) and store `top` back before calling another derivative and on
// return; `peak` is updated on return of a forward sweep.

import { newFloat64Array } from "./pool.js";

/**
 * The tape itself: generated code reads and writes it directly.
 *
 * @internal
 */
export const tape = {
  buffer: new Float64Array(1 << 12),
  top: 0,
  peak: 0,
  /** Arrays and objects the backward sweep needs (shadows, arrays it reads): a plain stack. */
  objects: [] as unknown[],
  /**
   * How many pullbacks are replaying a saved tape right now: what their backward sweeps find
   * on the tape will be found again next time, so it must not be changed (see
   * emit/js/checkpoint.ts, whose reruns then work on copies).
   */
  replays: 0,
};

/** What a pullback keeps of the tape between its forward sweep and its backward sweeps. */
export interface SavedTape {
  numbers: Float64Array;
  objects: unknown[];
}

/**
 * Makes room for `count` more values above `top`; returns the (possibly new) buffer.
 *
 * @internal
 */
export function growTape(top: number, count: number): Float64Array {
  let size = tape.buffer.length * 2;
  while (size < top + count) size *= 2;
  const bigger = new Float64Array(size);
  bigger.set(tape.buffer.subarray(0, top));
  tape.buffer = bigger;
  return bigger;
}

/**
 * Removes what was saved since the marks and returns it, for a pullback to replay later.
 *
 * @internal
 */
export function tapeTake(mark: number, objectMark: number): SavedTape {
  const numbers = newFloat64Array(tape.top - mark);
  numbers.set(tape.buffer.subarray(mark, tape.top));
  tape.top = mark;
  const objects = tape.objects.splice(objectMark);
  return { numbers, objects };
}

/**
 * Puts back what `tapeTake` returned, so a backward sweep can consume it.
 *
 * @internal
 */
export function tapeRestore(saved: SavedTape): void {
  const numbers = saved.numbers;
  if (tape.top + numbers.length > tape.buffer.length) growTape(tape.top, numbers.length);
  tape.buffer.set(numbers, tape.top);
  tape.top += numbers.length;
  if (tape.top > tape.peak) tape.peak = tape.top;
  for (const o of saved.objects) tape.objects.push(o);
  tape.replays++;
}

/**
 * Drops everything above the marks (after an exception in a derivative).
 *
 * @internal
 */
export function tapeReset(mark: number, objectMark: number): void {
  tape.top = mark;
  tape.objects.length = objectMark;
}

/**
 * How much of reverse mode's tape is in use, in float64 values (8 bytes each): `size` held
 * now, `peak` the most held since the start or the last {@link resetTapePeak}, and `capacity`
 * the length of the buffer. Measures the memory a gradient needs, and what
 * {@link checkpoint} saves.
 *
 * @example
 * ```ts
 * import { gradient, resetTapePeak, tapeStats } from "nabla";
 *
 * function product(xs: number[]): number {
 *   let p = 1;
 *   for (const x of xs) p *= x;
 *   return p;
 * }
 * resetTapePeak();
 * gradient(product)([1, 2, 3]);
 * tapeStats().size; // → 0
 * tapeStats().peak > 0; // → true
 * ```
 */
export function tapeStats(): { size: number; peak: number; capacity: number } {
  return { size: tape.top, peak: tape.peak, capacity: tape.buffer.length };
}

/** Restarts the peak measurement of {@link tapeStats}: sets `peak` to the size held now. */
export function resetTapePeak(): void {
  tape.peak = tape.top;
}

/**
 * Releases the memory of a tape grown large by an earlier computation (the buffer only grows
 * otherwise). Does nothing while a computation holds values on it.
 */
export function shrinkTape(): void {
  if (tape.top === 0) tape.buffer = new Float64Array(1 << 12);
}
