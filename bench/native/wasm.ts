// The hand-written WebAssembly kmeans kernels (kmeans.wat: scalar f64; kmeans-simd.wat: f64x2),
// assembled from their text with wabt (WABT's own JavaScript build) when loaded, and the copies
// between JavaScript's arrays and the module's memory. A kernel reads and writes only its
// memory, so a call from JavaScript on the eval's inputs (rows as Float64Arrays) is: copy the
// points and centroids in (n·d + k·d doubles), run, copy J ⊘ H out (k·d doubles). The copies are
// separate methods so that they are timed apart from the kernels.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import wabt from "wabt";

export type WasmKind = "scalar" | "simd";

const SOURCES: Record<WasmKind, string> = { scalar: "kmeans.wat", simd: "kmeans-simd.wat" };

interface Exports {
  cost(...args: number[]): number;
  dir(...args: number[]): void;
}

/** The module's binary, assembled from its WAT source in `dir` (bench/native). */
export async function assemble(kind: WasmKind, dir: string): Promise<Uint8Array<ArrayBuffer>> {
  const file = SOURCES[kind];
  const tools = await wabt();
  const module = tools.parseWat(file, readFileSync(join(dir, file), "utf8"), {
    simd: true,
    multi_value: true,
    bulk_memory: true,
  });
  try {
    module.validate();
    // A copy in a fresh ArrayBuffer (wabt's may view its own heap), as WebAssembly.compile wants.
    return new Uint8Array(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

const PAGE = 65536;
const align16 = (bytes: number) => Math.ceil(bytes / 16) * 16;

/**
 * One kernel module with room for one workload's n, k, d (the layout is set by `size`). Each
 * `size` instantiates the module afresh with a new memory of the size needed, never growing one:
 * `memory.grow` detaches the memory's old ArrayBuffer, and once any ArrayBuffer of the process has
 * been detached, V8 (Node 20) checks for detachment in every typed-array access of optimized
 * code from then on, which makes nabla's kmeans cost 1.6× slower (docs/native-gap.md).
 */
export class WasmKmeans {
  private exports!: Exports;
  private n = 0;
  private k = 0;
  private d = 0;
  // Byte offsets of the regions in memory: points, centroids, J ⊘ H, counts, centroid pairs.
  private points = 0;
  private centroids = 0;
  private dirAt = 0;
  private count = 0;
  private pairs = 0;
  private heap = new Float64Array(0);

  private constructor(
    readonly kind: WasmKind,
    private readonly module: WebAssembly.Module,
  ) {}

  static async create(kind: WasmKind, dir: string): Promise<WasmKmeans> {
    return new WasmKmeans(kind, await WebAssembly.compile(await assemble(kind, dir)));
  }

  /** Lays out memory for n points and k centroids of dimension d (n, k, d ≥ 1): a new instance. */
  size(n: number, k: number, d: number): void {
    if (!(n >= 1 && k >= 1 && d >= 1)) throw new Error(`n, k, d must be ≥ 1: ${n}, ${k}, ${d}`);
    this.n = n;
    this.k = k;
    this.d = d;
    this.points = 0;
    this.centroids = align16(n * d * 8);
    this.dirAt = this.centroids + align16(k * d * 8);
    this.count = this.dirAt + align16(k * d * 8);
    this.pairs = this.count + align16(k * 8);
    const end = this.pairs + Math.ceil(k / 2) * d * 16;
    const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(end / PAGE)) });
    const instance = new WebAssembly.Instance(this.module, { env: { memory } });
    this.exports = instance.exports as unknown as Exports;
    this.heap = new Float64Array(memory.buffer);
  }

  /** Copies the points and the centroids (rows of d) into memory: (n + k)·d doubles. */
  copyIn(points: readonly Float64Array[], centroids: readonly Float64Array[]): void {
    const heap = this.heap;
    let at = this.points / 8;
    for (const row of points) {
      heap.set(row, at);
      at += this.d;
    }
    at = this.centroids / 8;
    for (const row of centroids) {
      heap.set(row, at);
      at += this.d;
    }
  }

  /** Copies flat row-major points and centroids into memory. */
  copyInFlat(points: Float64Array, centroids: Float64Array): void {
    this.heap.set(points, this.points / 8);
    this.heap.set(centroids, this.centroids / 8);
  }

  cost(): number {
    const { points, centroids, n, k, d } = this;
    return this.kind === "scalar"
      ? this.exports.cost(points, centroids, n, k, d)
      : this.exports.cost(points, centroids, n, k, d, this.pairs);
  }

  /** Computes J ⊘ H into memory; `dirRows` copies it out. */
  dir(): void {
    const { points, centroids, n, k, d } = this;
    if (this.kind === "scalar")
      this.exports.dir(points, centroids, n, k, d, this.dirAt, this.count);
    else this.exports.dir(points, centroids, n, k, d, this.dirAt, this.count, this.pairs);
  }

  /** J ⊘ H as k rows of d, copied out of memory: k·d doubles. */
  dirRows(): Float64Array[] {
    const rows: Float64Array[] = [];
    for (let j = 0, at = this.dirAt / 8; j < this.k; j++, at += this.d) {
      rows.push(this.heap.slice(at, at + this.d));
    }
    return rows;
  }
}
