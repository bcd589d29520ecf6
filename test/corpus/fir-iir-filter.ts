// FIR + biquad IIR filter cascade built on a ring buffer; mean squared error against a clean reference signal.

export class RingBuffer {
  private readonly data: Float64Array;
  private head = 0;

  constructor(readonly capacity: number) {
    this.data = new Float64Array(capacity);
  }

  push(value: number) {
    this.head = (this.head + 1) % this.capacity;
    this.data[this.head] = value;
  }

  /** k = 0 is the most recent sample, k = 1 the one before, ... */
  get(k: number): number {
    return this.data[(this.head - k + this.capacity * 2) % this.capacity];
  }

  *[Symbol.iterator]() {
    for (let k = 0; k < this.capacity; k++) yield this.get(k);
  }
}

interface Filter {
  process(x: number): number;
}

export class FirFilter implements Filter {
  private readonly history: RingBuffer;

  constructor(private readonly taps: readonly number[]) {
    this.history = new RingBuffer(taps.length);
  }

  process(x: number) {
    this.history.push(x);
    let acc = 0;
    let k = 0;
    for (const sample of this.history) acc += this.taps[k++] * sample;
    return acc;
  }
}

export interface BiquadCoefficients {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

export class Biquad implements Filter {
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  constructor(private readonly c: BiquadCoefficients) {}

  // RBJ audio-EQ-cookbook low-pass design
  static lowpassCoefficients(cutoff: number, sampleRate: number, q = Math.SQRT1_2): BiquadCoefficients {
    const w0 = (2 * Math.PI * cutoff) / sampleRate;
    const alpha = Math.sin(w0) / (2 * q);
    const a0 = 1 + alpha;
    const cos = Math.cos(w0);
    return { b0: (1 - cos) / 2 / a0, b1: (1 - cos) / a0, b2: (1 - cos) / 2 / a0, a1: (-2 * cos) / a0, a2: (1 - alpha) / a0 };
  }

  static lowpass(cutoff: number, sampleRate: number, q?: number) {
    return new Biquad(Biquad.lowpassCoefficients(cutoff, sampleRate, q));
  }

  process(x: number) {
    const { b0, b1, b2, a1, a2 } = this.c;
    const y = b0 * x + b1 * this.x1 + b2 * this.x2 - a1 * this.y1 - a2 * this.y2;
    [this.x2, this.x1] = [this.x1, x];
    [this.y2, this.y1] = [this.y1, y];
    return y;
  }
}

const cascade =
  (...filters: Filter[]) =>
  (x: number) =>
    filters.reduce((v, f) => f.process(v), x);

export interface FilterDesign {
  fir: number[];
  biquad: BiquadCoefficients;
}

export function objective(design: FilterDesign, noisy: number[], clean: number[], warmup = 16): number {
  const run = cascade(new FirFilter(design.fir), new Biquad(design.biquad));
  const output = noisy.map(run);
  const errors = output.slice(warmup).map((y, i) => y - clean[i + warmup]);
  const mse = errors.reduce((s, e) => s + e * e, 0) / errors.length;
  // keep the IIR part comfortably stable: penalize poles approaching the unit circle (|a2| -> 1)
  const stability = -Math.log(1 - design.biquad.a2 ** 2);
  return mse + 1e-3 * stability;
}

// deterministic test signal: two tones plus LCG "noise"
const lcg = (seed: number) => () => ((seed = (1664525 * seed + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
const noise = lcg(7);
const fs = 1000;
export const clean = Array.from({ length: 256 }, (_, n) => Math.sin((2 * Math.PI * 12 * n) / fs) + 0.5 * Math.sin((2 * Math.PI * 31 * n) / fs));
export const noisy = clean.map((s, n) => s + 0.3 * noise() + 0.2 * Math.sin((2 * Math.PI * 240 * n) / fs));

export const args: Parameters<typeof objective> = [
  {
    fir: [0.1, 0.15, 0.2, 0.2, 0.15, 0.1, 0.05, 0.05],
    biquad: { ...Biquad.lowpassCoefficients(60, fs, 0.8), b1: 0.025 },
  },
  noisy,
  clean,
  16,
];
