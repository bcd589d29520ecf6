// The tape of reverse mode: one growable stack of float64 shared by all generated code. A
// forward sweep saves the residuals its backward sweep needs (coefficients, branch taken,
// loop trip counts) and the backward sweep takes them back in reverse order, so nested calls,
// branches and loops all share one last-in first-out stack without allocating per operation.

let buffer = new Float64Array(1 << 12);
let top = 0;
let peak = 0;

function grow(needed: number): void {
  let size = buffer.length * 2;
  while (size < needed) size *= 2;
  const bigger = new Float64Array(size);
  bigger.set(buffer.subarray(0, top));
  buffer = bigger;
}

/** Saves `v` (booleans are saved as 0 or 1 by the generated code). */
export function push(v: number): void {
  if (top === buffer.length) grow(top + 1);
  buffer[top++] = v;
  if (top > peak) peak = top;
}

/** Takes back the value saved last. */
export function pop(): number {
  return buffer[--top]!;
}

/** The current height of the tape, to cut what one forward sweep saved. */
export function tapeMark(): number {
  return top;
}

/** Removes what was saved since `mark` and returns it, for a pullback to replay later. */
export function tapeTake(mark: number): Float64Array {
  const saved = buffer.slice(mark, top);
  top = mark;
  return saved;
}

/** Puts back what `tapeTake` returned, so a backward sweep can consume it. */
export function tapeRestore(saved: Float64Array): void {
  if (top + saved.length > buffer.length) grow(top + saved.length);
  buffer.set(saved, top);
  top += saved.length;
  if (top > peak) peak = top;
}

/** Drops everything above `mark` (after a forward sweep that threw). */
export function tapeReset(mark: number): void {
  top = mark;
}

/** Tape usage, for benchmarks: values held now, the most ever held, and the capacity. */
export function tapeStats(): { size: number; peak: number; capacity: number } {
  return { size: top, peak, capacity: buffer.length };
}

/** Restarts the peak measurement. */
export function resetTapePeak(): void {
  peak = top;
}
