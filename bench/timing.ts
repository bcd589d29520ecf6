// Measurement helpers. Each variant of a benchmark is a function that makes `n` calls in its
// own loop and returns the sum of the results: the loop is written once per variant (in
// run.ts) so that each call site stays monomorphic and V8 can inline the callee, as it would
// in user code. Variants of one benchmark are measured in interleaved rounds so that a drift
// of the machine (CPU frequency, another process) affects them alike.

/** Makes `n` calls of the function under test; returns the sum of their results. */
export type Runner = (n: number) => number;

export interface Variant {
  name: string;
  run: Runner;
}

export interface TimingOptions {
  /** Minimum duration of one timed repetition; shorter ones are dominated by timer noise. */
  minSampleMs: number;
  /** Timed repetitions per variant; the median is reported. */
  repetitions: number;
}

export interface Measurement {
  name: string;
  /** Median over the repetitions, in nanoseconds per call. */
  nsPerCall: number;
  /** Fastest and slowest repetition, to show the noise. */
  minNs: number;
  maxNs: number;
  callsPerSample: number;
}

// Every result ends up here and is printed at the end, so that V8 cannot drop a computation
// whose result is unused.
let sink = 0;

export function consume(value: number): void {
  sink += value;
}

export function sinkValue(): number {
  return sink;
}

/** Wall time of `f()` in milliseconds. */
export function timeMs(f: () => void): number {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nanoseconds per call of one run of `n` calls. */
function sample(run: Runner, n: number): number {
  let result = 0;
  const ms = timeMs(() => {
    result = run(n);
  });
  consume(result);
  return (ms * 1e6) / n;
}

/**
 * The number of calls that takes at least `minMs`, found by doubling. The doubling also
 * serves as the warm-up: by the time one run takes `minMs`, the function has run for about as
 * long again, enough for V8 to tier it up to optimized code.
 */
function calibrate(run: Runner, minMs: number): number {
  let n = 1;
  for (;;) {
    let result = 0;
    const ms = timeMs(() => {
      result = run(n);
    });
    consume(result);
    // A pause of the machine (another process, a garbage collection) can make one run look
    // long: a long enough run is confirmed by a second one, else every timed repetition could
    // be far shorter than `minMs`.
    let measured = ms;
    if (ms >= minMs) {
      measured = timeMs(() => {
        result = run(n);
      });
      consume(result);
      if (measured >= minMs / 2) return n;
    }
    // Jump close to the target once the time is measurable, double while it is not.
    n = measured > 1 ? Math.ceil((n * minMs * 1.2) / measured) : n * 2;
  }
}

/** Measures the variants side by side; returns them in the order given. */
export function measure(variants: readonly Variant[], options: TimingOptions): Measurement[] {
  const counts = variants.map((v) => calibrate(v.run, options.minSampleMs));
  // One more untimed run at full size, so the timed ones all see fully optimized code.
  variants.forEach((v, i) => consume(v.run(counts[i]!)));
  const samples: number[][] = variants.map(() => []);
  for (let r = 0; r < options.repetitions; r++) {
    // Rotate the order each round, so no variant always runs right after the same one.
    for (let k = 0; k < variants.length; k++) {
      const i = (k + r) % variants.length;
      samples[i]!.push(sample(variants[i]!.run, counts[i]!));
    }
  }
  return variants.map((v, i) => ({
    name: v.name,
    nsPerCall: median(samples[i]!),
    minNs: Math.min(...samples[i]!),
    maxNs: Math.max(...samples[i]!),
    callsPerSample: counts[i]!,
  }));
}
