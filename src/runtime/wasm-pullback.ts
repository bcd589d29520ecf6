import type { WasmEntrySpec } from "../api/wasm-entry.js";
import { newRegions, wasmFunction, wasmStats, type Live, type Regions } from "./wasm.js";

// A pullback compiled to WebAssembly (compiler/emit/wasm/module.ts' pullbackModule): taken,
// it runs the forward sweep in wasm and keeps what that left in memory — the heap of arrays it
// made, the tape and the stack of saved arrays — as copies in JavaScript; each run at a seed
// copies the arguments in again (to the same addresses: same values, same layout), puts those
// regions back, puts the seed where the backward sweep reads it, and runs the backward sweep.
// So the forward sweep runs once, as in JavaScript, whatever the memory held in between (other
// calls share it: runtime/wasm-memory.ts).
//
// Where wasm cannot run a half — a trap, an argument not of its type — that half runs as
// JavaScript: a forward sweep that did leaves nothing, and its pullback runs both sweeps in
// JavaScript at each seed (`recompute`), as does a backward sweep that cannot run in wasm.

/** What a forward sweep in wasm left, for its backward sweeps. */
interface Snapshot {
  /** Where the results after the first go, and so where the heap starts: the layout's key. */
  resultsAt: number;
  /** The regions' bounds at the forward sweep: [start, top, end] of heap, tape, saved arrays. */
  heap: [number, number, number];
  tape: [number, number, number];
  objects: [number, number, number];
  /** Their used bytes, copied. */
  heapBytes: Uint8Array;
  tapeBytes: Uint8Array;
  objectBytes: Uint8Array;
  /** An array result's shadow, where the seed goes (0 for a number result). */
  seedAt: number;
}

/** What taking the pullback gives: the value, and the forward sweep's memory if it ran in wasm. */
interface Taken {
  value: unknown;
  snapshot: Snapshot | undefined;
}

/**
 * The two halves of a pullback in wasm. `spec`'s entry is the forward sweep, `(args…,
 * shadows…)` → the value; its `back` export the backward sweep, `(args…, shadows…, seed?)`
 * (the seed an argument for a number result) → the adjoints of number parameters, the array
 * ones written into the shadows. `forward` is the forward sweep in JavaScript, leaving nothing
 * on the tape; `recompute` both sweeps in JavaScript at a seed, `(args…, shadows…, seed)`.
 *
 * @internal
 */
export function wasmPullback(
  spec: WasmEntrySpec,
  forward: (...args: unknown[]) => unknown,
  recompute: (...args: unknown[]) => unknown,
  readGlobals?: () => unknown[],
): {
  take(...args: unknown[]): Taken;
  run(taken: Taken, ...argsAndSeed: unknown[]): unknown;
} {
  const back = spec.back!;
  const numberSeed = back.params.length > spec.params.length;
  // One layout for both halves: the same regions, the same room for results.
  const regions: Regions = newRegions();
  const resultBytes = 8 * Math.max(0, spec.results.length - 1, back.results.length - 1);
  let left: Snapshot | undefined;
  const forwardHalf = wasmFunction(spec, forward, readGlobals, {
    regions,
    resultBytes,
    after: (run, resultsAt) => (left = snapshotOf(run, resultsAt, resultBytes, regions)),
  });
  /** The run under way: its snapshot and its seed. */
  let pending: { snapshot: Snapshot; seed: unknown } | undefined;
  const backwardHalf = wasmFunction(
    { ...spec, params: back.params, results: back.results },
    // As JavaScript: both sweeps, with the seed (an array seed is not among the arguments).
    (...args) => (numberSeed ? recompute(...args) : recompute(...args, pending!.seed)),
    readGlobals,
    {
      regions,
      resultBytes,
      before: (run, resultsAt) => restore(run, resultsAt, pending!.snapshot, pending!.seed),
    },
  );
  return {
    take(...args) {
      left = undefined;
      const ran = wasmStats.wasm;
      const value = forwardHalf(...args);
      // A call whose results could not be copied out ran again as JavaScript: no snapshot.
      const snapshot = wasmStats.wasm > ran ? left : undefined;
      left = undefined;
      return { value, snapshot };
    },
    run(taken, ...argsAndSeed) {
      if (!taken.snapshot) return recompute(...argsAndSeed);
      const seed = argsAndSeed[argsAndSeed.length - 1];
      pending = { snapshot: taken.snapshot, seed };
      try {
        return numberSeed
          ? backwardHalf(...argsAndSeed)
          : backwardHalf(...argsAndSeed.slice(0, -1));
      } finally {
        pending = undefined;
      }
    },
  };
}

/** The regions the forward sweep used, after its call, copied. */
function snapshotOf(run: Live, resultsAt: number, resultBytes: number, regions: Regions): Snapshot {
  const e = run.exports;
  const heapStart = resultsAt + resultBytes;
  const tapeStart = heapStart + regions.heap;
  const objectsStart = tapeStart + regions.tape;
  const objectsEnd = objectsStart + regions.objects;
  const heapTop = e.heap_top.value as number;
  const tapeTop = e.tape_top.value as number;
  const objectsTop = e.objects_top.value as number;
  const bytes = new Uint8Array(run.f64.buffer);
  return {
    resultsAt,
    heap: [heapStart, heapTop, tapeStart],
    tape: [tapeStart, tapeTop, objectsStart],
    objects: [objectsStart, objectsTop, objectsEnd],
    heapBytes: bytes.slice(heapStart, heapTop),
    tapeBytes: bytes.slice(tapeStart, tapeTop),
    objectBytes: bytes.slice(objectsStart, objectsTop),
    seedAt: (e.seed_at?.value as number | undefined) ?? 0,
  };
}

/**
 * Before a backward sweep, the arguments just copied in: puts the forward sweep's regions back
 * and the seed into the result's shadow, and sets the regions' bounds as the forward sweep
 * left them. False (the run goes to JavaScript) when the layout differs from the forward
 * sweep's, or the seed is not an array of numbers of the result's length.
 */
function restore(run: Live, resultsAt: number, s: Snapshot, seed: unknown): boolean {
  if (resultsAt !== s.resultsAt || run.bytes < s.objects[2]) return false;
  const bytes = new Uint8Array(run.f64.buffer);
  bytes.set(s.heapBytes, s.heap[0]);
  bytes.set(s.tapeBytes, s.tape[0]);
  bytes.set(s.objectBytes, s.objects[0]);
  if (s.seedAt !== 0) {
    if ((s.seedAt & 7) !== 0) return false;
    const length = run.i32[s.seedAt >> 2]!;
    if (!isArrayOfNumbers(seed, length)) return false;
    const first = (s.seedAt >> 3) + 1;
    for (let i = 0; i < length; i++) run.f64[first + i] = seed[i]!;
  }
  run.exports.setup(
    s.heap[1],
    s.heap[2],
    s.tape[1],
    s.tape[2],
    s.objects[1],
    s.objects[2],
    resultsAt,
  );
  return true;
}

function isArrayOfNumbers(seed: unknown, length: number): seed is ArrayLike<number> {
  if (!(Array.isArray(seed) || (ArrayBuffer.isView(seed) && !(seed instanceof DataView))))
    return false;
  const array = seed as ArrayLike<unknown>;
  if (array.length !== length) return false;
  for (let i = 0; i < length; i++) if (typeof array[i] !== "number") return false;
  return true;
}
