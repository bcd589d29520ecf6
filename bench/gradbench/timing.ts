// Time budgets for the GradBench benchmark. A GradBench function call takes from a microsecond
// (hello) to more than a second (ba's Jacobian on 200,000 observations), so instead of a fixed
// number of repetitions (bench/timing.ts) each function gets a time budget: it is warmed up,
// then timed in samples of one or more calls until the budget is spent, and the median time per
// call is reported. The functions of one workload (the primal and its derivatives) are timed
// side by side: in interleaved rounds, one sample of each per round, so that a change in the
// machine's load affects them alike.

import { median } from "../timing.js";

/** One function under test: `run` makes one call (e.g. `runGradient(prepared)`). */
export interface Candidate {
  name: string;
  run: () => unknown;
}

export interface Budget {
  /** Time spent on timed samples of one candidate, in seconds (at least `minSamples` samples). */
  seconds: number;
  /** Time spent calling a candidate before its timed samples, in seconds (at least one call). */
  warmupSeconds: number;
  /** Timed samples wanted per candidate; fewer (at least one) when one call exceeds `capSeconds`. */
  minSamples: number;
  /** A candidate stops after this much sampling time once it has one sample: slow calls. */
  capSeconds: number;
}

export interface Timing {
  /** Median over the samples of the time per call, in milliseconds. */
  ms: number;
  /** Fastest and slowest sample (time per call), to show the noise. */
  minMs: number;
  maxMs: number;
  samples: number;
  /** Calls per sample. */
  batch: number;
}

/** Milliseconds since an arbitrary fixed point. */
export type Clock = () => number;

const hrClock: Clock = () => Number(process.hrtime.bigint()) / 1e6;

// Results go here, so that no call can be dropped as unused.
let sink: unknown = null;

/** The last result of a timed call (keeps results alive; also handy in tests). */
export function lastResult(): unknown {
  return sink;
}

/** How many samples a sample should be cut into: about this many per budget. */
const SAMPLES_PER_BUDGET = 10;

/**
 * Times the candidates side by side and returns their timings in the order given. Each one
 * is first called for `warmupSeconds` (at least once), which also gives an estimate of its
 * time per call; a sample is then as many calls as fit in 1/10 of the budget (at least one).
 * Then rounds: each candidate that is not done yet takes one sample, in an order rotated every
 * round. A candidate is done when it has `minSamples` samples and has spent `seconds`, or once
 * it has spent `capSeconds` (a call slower than the budget gets one or two samples).
 */
export function timeSideBySide(
  candidates: readonly Candidate[],
  budget: Budget,
  clock: Clock = hrClock,
): Timing[] {
  const sampleMs = (budget.seconds * 1000) / SAMPLES_PER_BUDGET;
  const batches = candidates.map((c) => {
    const start = clock();
    let fastest = Infinity;
    do {
      const t0 = clock();
      sink = c.run();
      fastest = Math.min(fastest, clock() - t0);
    } while (clock() - start < budget.warmupSeconds * 1000);
    return Math.max(1, Math.floor(sampleMs / Math.max(fastest, 1e-6)));
  });
  const samples: number[][] = candidates.map(() => []);
  const spent = candidates.map(() => 0);
  const done = (i: number) =>
    (samples[i]!.length >= budget.minSamples && spent[i]! >= budget.seconds * 1000) ||
    (samples[i]!.length >= 1 && spent[i]! >= budget.capSeconds * 1000);
  for (let round = 0; !candidates.every((_, i) => done(i)); round++) {
    for (let k = 0; k < candidates.length; k++) {
      const i = (k + round) % candidates.length;
      if (done(i)) continue;
      const run = candidates[i]!.run;
      const n = batches[i]!;
      const t0 = clock();
      for (let j = 0; j < n; j++) sink = run();
      const ms = clock() - t0;
      spent[i]! += ms;
      samples[i]!.push(ms / n);
    }
  }
  return candidates.map((_, i) => ({
    ms: median(samples[i]!),
    minMs: Math.min(...samples[i]!),
    maxMs: Math.max(...samples[i]!),
    samples: samples[i]!.length,
    batch: batches[i]!,
  }));
}
