// `backend: "auto"` at run time: the call site alternates between its WebAssembly twin and
// the JavaScript derivative it stands for, times both, and keeps the faster. Which one pays
// depends on the sizes a program calls it with (copies and the crossing cost a fixed amount
// per call, a loop's gain grows with its length) and on what the loop does (`Math.exp` costs
// the same from both), which the compiler cannot see. The two give the same results (the
// wasm backend's tests check it to the bit), so a program cannot tell which one ran.

/** Calls of each before timing: the engine optimizes both meanwhile. */
const WARMUP = 3;
/** Timed calls of each before choosing (medians: a pause for garbage collection is one). */
const SAMPLES = 5;

/**
 * How many `"auto"` call sites chose WebAssembly and how many JavaScript (for tests and
 * benches).
 *
 * @internal
 */
export const backendChoices = { wasm: 0, js: 0 };

/** A clock in milliseconds: `performance`, or a test's. */
export interface Clock {
  now(): number;
}

/**
 * `wasm` and `js` (same arguments, same results) as one function that runs the faster.
 *
 * @internal
 */
export function adaptiveBackend(
  wasm: (...args: unknown[]) => unknown,
  js: (...args: unknown[]) => unknown,
  clock: Clock = performance,
): (...args: unknown[]) => unknown {
  let chosen: ((...args: unknown[]) => unknown) | undefined;
  let calls = 0;
  const times: { wasm: number[]; js: number[] } = { wasm: [], js: [] };
  return (...args: unknown[]) => {
    if (chosen) return chosen(...args);
    // Wasm first: a program that calls once runs what it asked for where it qualifies.
    const which = calls++ % 2 === 0 ? "wasm" : "js";
    const start = clock.now();
    const result = (which === "wasm" ? wasm : js)(...args);
    const elapsed = clock.now() - start;
    if (calls > 2 * WARMUP) times[which].push(elapsed);
    if (times.wasm.length >= SAMPLES && times.js.length >= SAMPLES) {
      const faster = median(times.wasm) <= median(times.js) ? "wasm" : "js";
      backendChoices[faster]++;
      chosen = faster === "wasm" ? wasm : js;
    }
    return result;
  };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}
