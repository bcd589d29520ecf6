// Small typed arrays for tangents. V8 keeps a typed array of at most 64 bytes inside its
// object, but gives a longer one memory of its own outside the heap, which costs about ten
// times as much to allocate (measured 0.3–0.6 µs for a Float64Array of 11 against 0.05 µs for
// one of 8) — more than the whole derivative of a small function. Tangents of such sizes are
// therefore views into a shared buffer, as Node's Buffer does for small buffers: zeroed,
// each view its own bytes. The one visible difference is that `.buffer` is the shared
// buffer (`byteOffset` says where the view starts); transferring it to a worker would take
// the other views' memory with it, so transfer a copy (`.slice()`).

/** Views up to this many bytes come from the shared buffer. */
const LARGEST = 1024;
const POOL_BYTES = 16 * 1024;
/** V8 allocates typed arrays up to this many bytes on its heap, quickly: no pool needed. */
const ON_HEAP = 64;

let pool = new ArrayBuffer(POOL_BYTES);
let offset = 0;

/**
 * A zero `Float64Array` of length `n` (see above).
 *
 * @internal
 */
export function newFloat64Array(n: number): Float64Array {
  const bytes = n * 8;
  if (bytes > ON_HEAP && bytes <= LARGEST && (n | 0) === n) {
    let at = offset;
    if (at + bytes > POOL_BYTES) {
      pool = new ArrayBuffer(POOL_BYTES);
      at = 0;
    }
    offset = at + bytes;
    return new Float64Array(pool, at, n);
  }
  return new Float64Array(n);
}

/**
 * A zero `Float32Array` of length `n` (see above).
 *
 * @internal
 */
export function newFloat32Array(n: number): Float32Array {
  const bytes = n * 4;
  if (bytes > ON_HEAP && bytes <= LARGEST && (n | 0) === n) {
    let at = offset;
    if (at + bytes > POOL_BYTES) {
      pool = new ArrayBuffer(POOL_BYTES);
      at = 0;
    }
    // Keep every view 8-byte aligned, for the Float64Arrays after it.
    offset = at + ((bytes + 7) & ~7);
    return new Float32Array(pool, at, n);
  }
  return new Float32Array(n);
}

/**
 * A copy of a typed array, from the pool when it is small.
 *
 * @internal
 */
export function copyTyped<T extends Float64Array | Float32Array>(a: T): T {
  const copy = (
    a instanceof Float64Array ? newFloat64Array(a.length) : newFloat32Array(a.length)
  ) as T;
  copy.set(a);
  return copy;
}
