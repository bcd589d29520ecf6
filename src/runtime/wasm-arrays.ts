// Arrays that live in a WebAssembly memory of their own, so that functions compiled with
// backend "wasm" read them where they are instead of copying them in at every call
// (runtime/wasm.ts). To JavaScript they are ordinary Float64Arrays (views of the memory's
// buffer); the JavaScript backend and the user's own code use them as any other.
//
// Layout: each array is a block of 8 bytes of header (its length, an i32, where the wasm
// code reads `.length`) followed by its elements, as wasm.ts lays out the arrays it copies;
// an array of rows made by `rows` also gets a block of its rows' addresses, valid as long as
// the JavaScript array holds the same rows (checked per call, an identity test per row: much
// cheaper than copying, and the user may still replace or add rows). The arrays are found
// by identity in a WeakMap: a typed array's `buffer` and `byteOffset` are slow getters in V8
// (10–17 ns each, more than copying a short row). Blocks are handed out upward from the bottom and never freed one by one: the memory goes
// when nothing refers to it or to its arrays. Above the last block is each call's scratch
// space: the arguments still copied, the arrays the call makes, the tape. The memory never
// grows (growing detaches its ArrayBuffer, which would empty every array handed out), so its
// size is chosen up front; a call whose scratch does not fit runs on the function's own
// memory, with copies, as without these arrays.

const PAGE = 65536;
/** wasm.ts's addresses are i32s below 2³¹. */
const MAX_MEGABYTES = 2048;
/** Address 0 stays unused (it stands for "no row" in wasm.ts's arrays of rows). */
const FIRST_BLOCK = 16;

/** Where an array handed out lives: its memory and its block's address. */
interface Block {
  owner: WasmArrays;
  address: number;
  /** For an array of rows: the rows its address block points to, in order. */
  rows?: readonly Float64Array[];
}

const blocks = new WeakMap<object, Block>();

/** Whether any WasmArrays was made: until then wasm.ts does not look arguments up. @internal */
export const wasmArraysMade = { any: false };

/** Options of {@link wasmArrays}. */
export interface WasmArraysOptions {
  /**
   * The memory's size in MiB (default 64, at most 2048): the arrays plus the largest call's
   * scratch space (copied arguments, arrays it makes, reverse mode's tape). Pages not
   * touched cost no physical memory on the usual operating systems.
   */
  megabytes?: number;
}

/**
 * A WebAssembly memory holding `Float64Array`s that derivatives compiled with
 * `backend: "wasm"` read in place, without the copy into wasm memory each call otherwise
 * makes. Made by {@link wasmArrays}.
 */
export class WasmArrays {
  /** The memory's size in bytes. */
  readonly bytes: number;
  /** @internal */
  readonly memory: WebAssembly.Memory;
  /** The memory's buffer, read once: `memory.buffer` is a slow getter, and it never changes. */
  private readonly buffer: ArrayBuffer;
  /** @internal */
  readonly f64: Float64Array;
  /** @internal */
  readonly i32: Int32Array;
  private top = FIRST_BLOCK;
  /** The addresses of the rows `rows()` made (read in place as part of their table too). */
  private readonly rowAddresses = new Set<number>();

  /** @internal Use {@link wasmArrays}. */
  constructor(options: WasmArraysOptions = {}) {
    const megabytes = options.megabytes ?? 64;
    if (
      typeof megabytes !== "number" ||
      !Number.isInteger(megabytes) ||
      megabytes < 1 ||
      megabytes > MAX_MEGABYTES
    )
      throw new RangeError(
        `wasmArrays: megabytes must be a whole number from 1 to ${MAX_MEGABYTES}, not ${String(megabytes)}`,
      );
    this.bytes = megabytes * 1024 * 1024;
    this.memory = new WebAssembly.Memory({ initial: this.bytes / PAGE });
    this.buffer = this.memory.buffer;
    wasmArraysMade.any = true;
    this.f64 = new Float64Array(this.buffer);
    this.i32 = new Int32Array(this.buffer);
  }

  /** The bytes the arrays take so far (headers included). */
  get bytesUsed(): number {
    return this.top - FIRST_BLOCK;
  }

  /** Where a call's scratch space starts: above the last array, 16-byte aligned. */
  get scratchStart(): number {
    return (this.top + 15) & ~15;
  }

  /** A new array of `length` zeros in this memory. */
  float64Array(length: number): Float64Array {
    if (!Number.isSafeInteger(length) || length < 0)
      throw new RangeError(
        `wasmArrays: an array's length must be a whole number ≥ 0, not ${length}`,
      );
    const header = this.block(length, "numbers");
    const array = new Float64Array(this.buffer, header + 8, length);
    blocks.set(array, { owner: this, address: header });
    return array;
  }

  /** A block of 8 bytes of header (holding `length`) and `length` cells of 8 bytes. */
  private block(length: number, what: string): number {
    const header = this.top;
    const end = header + 8 + 8 * length;
    if (end > this.bytes)
      throw new RangeError(
        `wasmArrays: no room for ${length} ${what}: ${this.bytesUsed} of ${this.bytes} bytes are taken (ask for more with wasmArrays({ megabytes }))`,
      );
    this.top = end;
    this.i32[header >> 2] = length;
    return header;
  }

  /** A copy of `values` in this memory. */
  from(values: ArrayLike<number>): Float64Array {
    const array = this.float64Array(values.length);
    array.set(values);
    return array;
  }

  /**
   * A copy of `rows` in this memory, each row a `Float64Array` of its own. Calls read the
   * whole array in place while it holds these rows; rows replaced or added are read in place
   * too, if from this memory, with the array itself copied.
   */
  rows(rows: ArrayLike<ArrayLike<number>>): Float64Array[] {
    const made = Array.from(rows, (row) => this.from(row));
    for (const row of made) this.rowAddresses.add(blocks.get(row)!.address);
    const table = this.block(made.length, "rows");
    made.forEach((row, j) => (this.i32[(table + 8 + 8 * j) >> 2] = blocks.get(row)!.address));
    blocks.set(made, { owner: this, address: table, rows: made.slice() });
    return made;
  }

  /**
   * The address of `array`'s block, if wasm code may read it there: it is one of this
   * memory's arrays as handed out (not a part of one: `subarray` makes a new object), and
   * its header still holds its length.
   *
   * @internal
   */
  addressOf(array: Float64Array): number | undefined {
    const block = blocks.get(array);
    if (block?.owner !== this || block.rows) return undefined;
    return this.i32[block.address >> 2] === array.length ? block.address : undefined;
  }

  /**
   * Whether the block at `address` is a row `rows()` made.
   *
   * @internal
   */
  isRow(address: number): boolean {
    return this.rowAddresses.has(address);
  }

  /**
   * The address of the block of row addresses of `rows`, if `rows` is an array `rows()` made
   * and still holds the same rows in the same order.
   *
   * @internal
   */
  rowsAddressOf(rows: readonly unknown[]): number | undefined {
    const block = blocks.get(rows);
    const same = block?.rows;
    if (block?.owner !== this || !same || rows.length !== same.length) return undefined;
    for (let j = 0; j < same.length; j++) if (rows[j] !== same[j]) return undefined;
    return block.address;
  }
}

/**
 * A WebAssembly memory for your data: the `Float64Array`s made from it (`float64Array(n)`,
 * `from(values)`, `rows(rows)`) are passed to derivatives compiled with `backend: "wasm"`
 * without being copied, where every other array is copied into wasm memory at each call. Use
 * it for data many calls read: a data set, the points of a fit. Everywhere else they are
 * ordinary `Float64Array`s.
 *
 * Arrays a call writes (reverse mode's gradients) are still copied in and out, but for those a
 * function tagged `@backend wasm` only stores into (an output buffer), which are written in
 * place; so is an array made from a part of one (`subarray`). The memory does not grow: its size is the arrays
 * plus the scratch space of the largest call, and a call that does not fit runs with copies
 * as usual.
 *
 * @example
 * ```ts
 * import { gradient, wasmArrays } from "nabla";
 *
 * function cost(points: Float64Array[], centroids: Float64Array[]): number {
 *   let total = 0;
 *   for (const p of points) {
 *     let nearest = Infinity;
 *     for (const c of centroids) {
 *       let d = 0;
 *       for (let i = 0; i < p.length; i++) d += (p[i] - c[i]) ** 2;
 *       nearest = Math.min(nearest, d);
 *     }
 *     total += nearest;
 *   }
 *   return total;
 * }
 *
 * const memory = wasmArrays({ megabytes: 8 });
 * const points = memory.rows([[0, 0], [1, 1], [4, 4]]); // Float64Array[] in wasm memory
 * const centroids = [new Float64Array([0, 1]), new Float64Array([4, 3])];
 * const costGradient = gradient(cost, { wrt: 1, backend: "wasm" });
 * // points are read in place, centroids copied:
 * costGradient(points, centroids); // → [[-2, 2], [0, -2]]
 * ```
 */
export function wasmArrays(options?: WasmArraysOptions): WasmArrays {
  return new WasmArrays(options);
}

/** The WasmArrays an array (a Float64Array, or an array of rows `rows()` made) is in. @internal */
export function wasmArraysOf(array: object): WasmArrays | undefined {
  return blocks.get(array)?.owner;
}
