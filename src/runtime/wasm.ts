import { TYPED_ARRAYS, type TypedArray } from "./typed-arrays.js";
import { isLeaf, leafCopier } from "./wasm-leaf-objects.js";
import type { WasmArrayStorage, WasmEntrySpec, WasmGlobal, WasmKind } from "../api/wasm-entry.js";
import { out } from "./register.js";
import { type WasmArrays, wasmArraysMade, wasmArraysOf } from "./wasm-arrays.js";
import { StringIds } from "./wasm-strings.js";
import { chooseOwnMath, chooseOwnTrig } from "./wasm-math.js";
import { memoriesMade, memoryFor, type SharedMemory } from "./wasm-memory.js";

// A function nabla compiled to WebAssembly (compiler/emit/wasm/), made callable like the
// JavaScript function it stands for: same arguments, first result returned, the others in
// `out`. Per call, the arguments are copied into the instance's memory (numbers as they are,
// arrays whole: a Float64Array (or another typed array, widened: wasm holds the elements of
// each as f64s, which copying back or out converts back exactly) with one `set`, an array of
// arrays row by row; objects field by field, in the order of their type's), the entry runs,
// the arrays and objects it writes (reverse mode's shadows) are copied back into the caller's,
// and array and object results are copied out as new ones. Arrays made by `wasmArrays` (runtime/wasm-arrays.ts) are the
// exception: a call reading one runs on an instance bound to that memory, reads it in place,
// and copies only the rest above it.
//
// Instances share the thread's memory (runtime/wasm-memory.ts). It is never grown:
// `memory.grow` detaches the old ArrayBuffer, and once one has been detached V8 checks every
// typed-array access of optimized code for it, for good (docs/native-gap.md). A call needs
// the arguments' lengths plus regions for the arrays it makes (heap), the tape and the stack
// of saved arrays; a call that runs out of one traps, and runs again on a new instance with
// that region doubled (the sizes that sufficed are kept for the next calls), on a larger
// memory if it needs one. Any other trap — an index that is not an
// integer within the length, a length that is not one — or an argument not of the declared
// type runs the call as JavaScript instead: its answer (undefined, NaN, a RangeError) is the
// language's, which wasm does not imitate.
//
// The module is compiled, and its instances made, synchronously at the call that needs them.
// Where the engine refuses that (Chrome before 114, and the Electron and WebView builds on it,
// on the main thread for modules over 4 KB; any Chrome over 8 MB), the call site switches to
// `WebAssembly.instantiate`: calls run as JavaScript until the instance is there, then in wasm.
// Where that fails too (a Content-Security-Policy without 'wasm-unsafe-eval'), JavaScript for
// good.

/** Past this, a call runs as JavaScript rather than on a larger memory. */
const MAX_BYTES = 2 ** 31;
/**
 * Arrays up to this length are copied element by element: `set` (and the `subarray` view it
 * needs to copy back) costs more than the loop on short arrays (50 and 130 ns against 27 for
 * 8 elements, Node 20).
 */
const SHORT = 32;
/** Arguments start here; address 0 stays unused. */
const ARGUMENTS_AT = 16;

/**
 * How many calls ran in wasm, how many fell back to JavaScript, how many instances were made
 * and how many of them compute exp, and sin and cos, themselves (runtime/wasm-math.ts) (for tests
 * and benches).
 *
 * @internal
 */
export const wasmStats = {
  wasm: 0,
  javascript: 0,
  instances: 0,
  inPlace: 0,
  /** Memories made for instances (runtime/wasm-memory.ts): a few per thread. */
  memories: 0,
  ownExp: 0,
  ownTrig: 0,
};

/** The regions of memory beyond the arguments, in bytes. @internal */
export interface Regions {
  heap: number;
  tape: number;
  objects: number;
}

/**
 * How a pullback's two halves (runtime/wasm-pullback.ts) run through `wasmFunction`: both on
 * one layout (the same regions, the same room for results), the forward sweep's memory read
 * after its call, and the backward sweep run on it, from the export `back`, instead of on
 * fresh regions.
 *
 * @internal
 */
export interface Stage {
  regions: Regions;
  resultBytes: number;
  /** Called after the entry returns, with the instance and where the results are. */
  after?: (run: Live, resultsAt: number) => void;
  /**
   * The backward sweep's half: sets the memory and the regions' bounds up instead of `setup`
   * (false: run as JavaScript), then runs the export `back` rather than `entry`.
   */
  before?: (run: Live, resultsAt: number) => boolean;
}

/** The regions' first sizes, doubled when a call runs out. @internal */
export function newRegions(): Regions {
  return { heap: 1 << 16, tape: 1 << 16, objects: 1 << 14 };
}

/** @internal */
export interface Exports {
  /** The first result; the others are stored at the address `setup` was given last. */
  entry(...args: number[]): number | undefined;
  /** A pullback's backward sweep (module.ts' pullbackModule). */
  back?(...args: number[]): number | undefined;
  heap_top: WebAssembly.Global;
  tape_top: WebAssembly.Global;
  objects_top: WebAssembly.Global;
  seed_at?: WebAssembly.Global;
  /**
   * Sets the regions' bounds (heap, tape, saved arrays: start and end of each) for a call,
   * and where the entry stores its results after the first.
   */
  setup(...bounds: number[]): void;
  overflowed: WebAssembly.Global;
}

/** @internal */
export interface Live {
  exports: Exports;
  bytes: number;
  f64: Float64Array;
  i32: Int32Array;
  /** The module-level values the code reads (spec.globals), set before each call. */
  globals: WebAssembly.Global[];
}

/** Thrown by the copies when an argument is not what the function's types say. */
class NotCopyable extends Error {}

/** A typed array's bytes in its buffer (Copier.noteView). */
interface View {
  array: TypedArray;
  start: number;
  end: number;
  /** Read or written where it is, in a `wasmArrays` memory. */
  inPlace: boolean;
}

/** Whether a twin's call is under way, in any twin (see the call's first test). */
const wasmCall = { busy: false };

/** The region that ran out, by the code module.ts's `$overflow` gets. */
const REGION_OF: Record<number, keyof Regions> = { 1: "heap", 2: "tape", 3: "objects" };

/**
 * The function `spec` describes, running in wasm, and as `fallback` (the JavaScript function
 * it stands for) when wasm cannot give JavaScript's answer.
 *
 * @internal
 */
export function wasmFunction(
  spec: WasmEntrySpec,
  fallback: (...args: unknown[]) => unknown,
  readGlobals?: () => unknown[],
  stage?: Stage,
): (...args: unknown[]) => unknown {
  const globalTypes = spec.globals ?? [];
  const strings = new StringIds(spec.strings ?? []);
  let module: WebAssembly.Module | undefined;
  let live: Live | undefined;
  /** Instances on the memories of `wasmArrays`, made at the first call reading one's arrays. */
  const residentLive = new WeakMap<WasmArrays, Live>();
  const regions: Regions = stage?.regions ?? newRegions();
  const writes = spec.params.map((_, i) => spec.written.includes(i));
  /** Written parameters only stored into: their `wasmArrays` arrays are written in place. */
  const writeOnly = spec.params.map((_, i) => spec.writeOnly?.includes(i) ?? false);
  /**
   * The function writes arguments the caller passed (a tagged function, not a derivative's
   * shadows): the arrays written are copied first, an array passed twice is one block, and
   * one written in place must not also be read in place another way (Copier.inPlaceClash).
   */
  const userWrites = spec.writeOnly !== undefined;
  /** The parts of the arguments' kinds a result may be (returnsExisting): their places are kept. */
  const returnable = spec.returnsExisting
    ? returnableKinds(
        [...spec.params, ...globalTypes.flatMap((g) => (typeof g === "object" ? [g.copied] : []))],
        spec.results,
      )
    : undefined;
  /** The parameters in the order they are copied in: the written ones first. */
  const copyOrder = spec.params
    .map((_, i) => i)
    .sort((a, b) => (userWrites ? Number(writes[b]) - Number(writes[a]) : 0));
  /** The entry's arguments, one array per twin (a twin's calls never nest: wasm calls only Math). */
  const wasmArgs: number[] = new Array<number>(spec.params.length).fill(0);
  /** Per argument, its address in the call's `wasmArrays` memory when read in place there. */
  const residentAt: (number | undefined)[] = new Array<number | undefined>(spec.params.length).fill(
    undefined,
  );
  /** One result, a number: returned as the entry returns it. */
  const oneNumber = spec.results.length === 1 && spec.results[0] === "number";
  /** Every result a number: the others go to `out` as they are. */
  const numbers = spec.results.every((kind) => kind === "number");
  /** The keys of `out` the results after the first go to (built once: a key made per call costs more than a small call). */
  const outKeys = spec.results.map((_, i) => `v${i}`);
  /** Results after the first, all numbers, from `f64` at byte `at` into `out`. */
  const numberResults = (f64: Float64Array, at: number): void => {
    // out.v1 by name: a keyed store is the slower one V8 makes.
    if (outKeys.length > 1) out.v1 = f64[at >> 3]!;
    for (let i = 2; i < outKeys.length; i++)
      (out as unknown as Record<string, unknown>)[outKeys[i]!] = f64[(at >> 3) + i - 1];
  };
  /** The bytes where the entry stores its results after the first (module.ts' entryExport). */
  const resultBytes = Math.max(8 * Math.max(0, spec.results.length - 1), stage?.resultBytes ?? 0);
  /** No module-level value, nothing but numbers in: no sizes to add up, nothing to check but types. */
  const scalarsIn =
    globalTypes.length === 0 &&
    spec.params.every((kind) => kind === "number" || kind === "boolean" || kind === "opaque");
  const javascript = (args: unknown[]) => {
    wasmStats.javascript++;
    return fallback(...args);
  };
  /** The engine refused to compile the module synchronously: instances come asynchronously. */
  let asynchronous = false;
  /** An asynchronous instantiation is under way. */
  let pending = false;
  /** Not even asynchronously could the module be compiled or instantiated here. */
  let unavailable = false;
  /** Starts making an instance of `needed` bytes, unless one is already being made. */
  const instantiateLater = (needed: number) => {
    if (pending) return;
    const { shared, imports, globals } = environment(needed, globalTypes);
    pending = true;
    const made = module
      ? WebAssembly.instantiate(module, imports)
      : WebAssembly.instantiate(decodeBase64(spec.bytes), imports).then((both) => {
          module = both.module;
          return both.instance;
        });
    made.then(
      (instance) => {
        live = liveInstance(instance, shared, globals);
        pending = false;
      },
      () => (unavailable = true),
    );
  };
  /** The copier of calls, made once. */
  const shared = new Copier(strings);
  const call = (args: unknown[], copier: Copier, copyAll = false): unknown => {
    if (unavailable) return javascript(args);
    if (!module && !asynchronous) {
      try {
        module = new WebAssembly.Module(decodeBase64(spec.bytes));
      } catch {
        asynchronous = true;
      }
    }
    // Arguments in a `wasmArrays` memory are read there, by an instance on that memory, as
    // long as the rest of the call fits above its arrays.
    const resident =
      asynchronous || scalarsIn || !wasmArraysMade.any || copyAll
        ? undefined
        : residentArrays(spec.params, args);
    let argumentBytes = 0;
    // The module-level values it reads, now: arrays and objects among them are copied in.
    let globalValues: unknown[] = [];
    try {
      if (readGlobals) globalValues = readGlobals();
    } catch {
      return javascript(args);
    }
    try {
      for (let i = 0; i < spec.params.length; i++) {
        // An array read in place is looked up once (its rows compared one by one), here.
        const kind = spec.params[i]!;
        const readsInPlace = !writes[i] || writeOnly[i];
        const address =
          resident && readsInPlace && typeof kind === "object" && "array" in kind
            ? residentAddress(kind, args[i], resident)
            : undefined;
        residentAt[i] = address;
        if (address === undefined)
          argumentBytes += sizeOf(kind, args[i], readsInPlace ? resident : undefined);
      }
      for (let k = 0; k < globalTypes.length; k++) {
        const type = globalTypes[k]!;
        if (typeof type === "object") argumentBytes += sizeOf(type.copied, globalValues[k]);
      }
    } catch (error) {
      if (error instanceof NotCopyable) return javascript(args);
      throw error;
    }
    for (;;) {
      const regionBytes = regions.heap + regions.tape + regions.objects;
      let run: Live;
      let start = ARGUMENTS_AT;
      let inPlace: WasmArrays | undefined;
      if (
        resident &&
        resident.scratchStart + argumentBytes + resultBytes + regionBytes <= resident.bytes
      ) {
        const known = residentLive.get(resident);
        try {
          run = known ?? instantiateOn(module!, resident, globalTypes);
        } catch {
          return javascript(args);
        }
        residentLive.set(resident, run);
        start = resident.scratchStart;
        inPlace = resident;
      } else {
        if (resident) {
          // It does not fit: every array is copied into the function's own memory.
          argumentBytes = 0;
          for (let i = 0; i < spec.params.length; i++)
            argumentBytes += sizeOf(spec.params[i]!, args[i]);
          for (let k = 0; k < globalTypes.length; k++) {
            const type = globalTypes[k]!;
            if (typeof type === "object") argumentBytes += sizeOf(type.copied, globalValues[k]);
          }
        }
        const needed = ARGUMENTS_AT + argumentBytes + resultBytes + regionBytes;
        if (needed > MAX_BYTES) return javascript(args);
        if (!live || live.bytes < needed) {
          try {
            if (asynchronous) {
              instantiateLater(needed);
              return javascript(args);
            }
            live = instantiate(module!, needed, globalTypes);
          } catch {
            return javascript(args);
          }
        }
        run = live;
      }
      if (readGlobals && !setGlobals(run.globals, globalTypes, globalValues))
        return javascript(args);
      strings.startCall();
      copier.start(run, start, inPlace, userWrites, returnable);
      try {
        for (const i of copyOrder) {
          const address = inPlace ? residentAt[i] : undefined;
          if (address !== undefined) {
            copier.noteInPlace(spec.params[i]!, address, writes[i]!);
            copier.noteOrigin(spec.params[i] as object, address, args[i]);
            copier.noteView(args[i], true);
          }
          wasmArgs[i] = address ?? copier.in(spec.params[i]!, args[i], writes[i]!, writeOnly[i]);
        }
        for (let k = 0; k < globalTypes.length; k++) {
          const type = globalTypes[k]!;
          if (typeof type === "object")
            run.globals[k]!.value = copier.in(type.copied, globalValues[k], false);
        }
      } catch (error) {
        if (error instanceof NotCopyable) return javascript(args);
        throw error;
      }
      // Views of one buffer that overlap: JavaScript's writes through one show in the other.
      if (copier.overlappingViews()) return javascript(args);
      // An array both written in place and read another way: the call copies every array.
      if (copier.inPlaceClash()) return call(args, copier, true);
      const e = run.exports;
      const resultsAt = copier.at;
      if (!stage?.before) setUp(e, resultsAt, resultBytes, regions);
      else if (!stage.before(run, resultsAt)) return javascript(args);
      let first: number | undefined;
      try {
        first = callEntry(stage?.before ? e.back! : e.entry, wasmArgs);
      } catch {
        const region = REGION_OF[e.overflowed.value as number];
        // A backward sweep runs on the memory its forward sweep left: no rerun elsewhere.
        if (!region || stage?.before) return javascript(args);
        regions[region] *= 2;
        continue;
      }
      stage?.after?.(run, resultsAt);
      if (inPlace) wasmStats.inPlace++;
      if (oneNumber) {
        copier.copyBack();
        wasmStats.wasm++;
        return first;
      }
      const record = out as unknown as Record<string, unknown>;
      if (numbers) {
        copier.copyBack();
        wasmStats.wasm++;
        numberResults(run.f64, resultsAt);
        return first;
      }
      const results: unknown[] = [];
      try {
        // Before the copies back: a result JavaScript would not give (an unwritten element)
        // reruns the call, on shadows still as the caller made them.
        for (let i = 0; i < spec.results.length; i++) {
          const kind = spec.results[i]!;
          const at = resultsAt + 8 * (i - 1);
          const raw = i === 0 ? first! : kind === "number" ? run.f64[at >> 3]! : run.i32[at >> 2]!;
          results.push(copier.out(kind, raw));
        }
      } catch (error) {
        if (error instanceof NotCopyable) return javascript(args);
        throw error;
      }
      copier.copyBack();
      wasmStats.wasm++;
      for (let i = 1; i < results.length; i++) record[outKeys[i]!] = results[i];
      return results[0];
    }
  };
  /**
   * A call of numbers only, once an instance is there: the arguments' types checked and passed
   * as they are, nothing copied; undefined where the call must take the general way (another
   * type, a trap, whose rerun there sizes the regions or runs JavaScript).
   */
  const numbersOnly =
    !stage &&
    globalTypes.length === 0 &&
    numbers &&
    spec.results.length > 0 &&
    spec.params.every((kind) => kind === "number")
      ? (args: unknown[]): number | undefined => {
          if (!live || asynchronous) return undefined;
          for (let i = 0; i < args.length; i++) {
            const a = args[i];
            if (typeof a !== "number") return undefined;
            wasmArgs[i] = a;
          }
          if (args.length !== wasmArgs.length) return undefined;
          const e = live.exports;
          setUp(e, ARGUMENTS_AT, resultBytes, regions);
          let first: number | undefined;
          try {
            first = callEntry(e.entry, wasmArgs);
          } catch {
            return undefined;
          }
          wasmStats.wasm++;
          numberResults(live.f64, ARGUMENTS_AT);
          return first;
        }
      : undefined;
  return (...args: unknown[]) => {
    // Called while a call copies in (a getter of an argument calling this or another twin):
    // the memory, or a `wasmArrays` memory both use, holds the first call's arguments, so
    // this one runs as JavaScript.
    if (wasmCall.busy) return javascript(args);
    if (numbersOnly) {
      const result = numbersOnly(args);
      if (result !== undefined) return result;
    }
    wasmCall.busy = true;
    try {
      return call(args, shared);
    } finally {
      wasmCall.busy = false;
    }
  };
}

/**
 * Before a call: the results after the first at `resultsAt`, then the heap, the tape and the
 * stack of saved arrays, each of its region's size.
 */
function setUp(e: Exports, resultsAt: number, resultBytes: number, regions: Regions): void {
  const heap = resultsAt + resultBytes;
  const tape = heap + regions.heap;
  const objects = tape + regions.tape;
  e.setup(heap, tape, tape, objects, objects, objects + regions.objects, resultsAt);
}

/**
 * `entry(...args)`, written out for the usual arities: V8 calls wasm from optimized code
 * through a fast wrapper when the call's arguments are listed, not spread.
 */
function callEntry(entry: Exports["entry"], a: number[]): number | undefined {
  switch (a.length) {
    case 0:
      return entry();
    case 1:
      return entry(a[0]!);
    case 2:
      return entry(a[0]!, a[1]!);
    case 3:
      return entry(a[0]!, a[1]!, a[2]!);
    case 4:
      return entry(a[0]!, a[1]!, a[2]!, a[3]!);
    case 5:
      return entry(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!);
    case 6:
      return entry(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!, a[5]!);
    default:
      return entry(...a);
  }
}

function instantiate(module: WebAssembly.Module, needed: number, globalTypes: WasmGlobal[]): Live {
  const { shared, imports, globals } = environment(needed, globalTypes);
  return liveInstance(new WebAssembly.Instance(module, imports), shared, globals);
}

/** An instance on the memory of `arrays`. */
function instantiateOn(
  module: WebAssembly.Module,
  arrays: WasmArrays,
  globalTypes: WasmGlobal[],
): Live {
  const globals = globalsOf(globalTypes);
  const instance = new WebAssembly.Instance(module, importsWith(arrays.memory, globals));
  if (chooseOwnMath(instance.exports)) wasmStats.ownExp++;
  if (chooseOwnTrig(instance.exports)) wasmStats.ownTrig++;
  wasmStats.instances++;
  return {
    exports: instance.exports as unknown as Exports,
    bytes: arrays.bytes,
    f64: arrays.f64,
    i32: arrays.i32,
    globals,
  };
}

/** The thread's memory, holding `needed` bytes, and the imports an instance takes with it. */
function environment(needed: number, globalTypes: WasmGlobal[]) {
  const shared = memoryFor(needed);
  wasmStats.memories = memoriesMade();
  const globals = globalsOf(globalTypes);
  return { shared, imports: importsWith(shared.memory, globals), globals };
}

function globalsOf(types: WasmGlobal[]): WebAssembly.Global[] {
  return types.map(
    (type) => new WebAssembly.Global({ value: type === "f64" ? "f64" : "i32", mutable: true }),
  );
}

function importsWith(
  memory: WebAssembly.Memory,
  globals: WebAssembly.Global[],
): WebAssembly.Imports {
  return {
    env: { memory },
    globals: Object.fromEntries(globals.map((g, k) => [String(k), g])),
    Math: Math as unknown as Record<string, WebAssembly.ImportValue>,
    js: { remainder: (a: number, b: number) => a % b },
  };
}

/**
 * The `wasmArrays` memory of the first argument array found in one (a `Float64Array`, the
 * first row of an array of rows, an object's array fields), if any.
 */
function residentArrays(kinds: WasmKind[], args: unknown[]): WasmArrays | undefined {
  for (let i = 0; i < kinds.length; i++) {
    const found = residentIn(kinds[i]!, args[i]);
    if (found) return found;
  }
  return undefined;
}

function residentIn(kind: WasmKind, value: unknown): WasmArrays | undefined {
  if (typeof kind === "string" || typeof value !== "object" || value === null) return undefined;
  if ("optional" in kind) return residentIn(kind.optional, value);
  if ("fields" in kind) {
    for (const [name, field] of kind.fields) {
      const found = residentIn(field, (value as Record<string, unknown>)[name]);
      if (found) return found;
    }
    return undefined;
  }
  const owner = wasmArraysOf(value);
  if (owner) return owner;
  if (kind.of !== "number" && Array.isArray(value) && value.length > 0)
    return residentIn(kind.of, value[0]);
  return undefined;
}

function liveInstance(
  instance: WebAssembly.Instance,
  shared: SharedMemory,
  globals: WebAssembly.Global[],
): Live {
  if (chooseOwnMath(instance.exports)) wasmStats.ownExp++;
  if (chooseOwnTrig(instance.exports)) wasmStats.ownTrig++;
  wasmStats.instances++;
  return {
    exports: instance.exports as unknown as Exports,
    bytes: shared.bytes,
    f64: shared.f64,
    i32: shared.i32,
    globals,
  };
}

/**
 * Sets the instance's number and boolean globals to the module-level values the code reads,
 * read for this call (a `let` may have changed since the last one); false if one is not of its
 * type, and the call runs as JavaScript. (Arrays and objects are copied in with the arguments.)
 */
function setGlobals(
  globals: WebAssembly.Global[],
  types: WasmGlobal[],
  values: unknown[],
): boolean {
  for (let k = 0; k < types.length; k++) {
    const v = values[k];
    if (types[k] === "f64") {
      if (typeof v !== "number") return false;
      globals[k]!.value = v;
    } else if (types[k] === "i32") {
      if (typeof v !== "boolean") return false;
      globals[k]!.value = v ? 1 : 0;
    }
  }
  return true;
}

/**
 * The bytes an argument takes in memory, but for its arrays `resident` holds (read in place);
 * NotCopyable if it is not of its declared kind.
 */
function sizeOf(kind: WasmKind, value: unknown, resident?: WasmArrays): number {
  if (kind === "opaque") return 0;
  if (kind === "number") {
    if (typeof value !== "number") throw new NotCopyable();
    return 0;
  }
  if (kind === "boolean") {
    if (typeof value !== "boolean") throw new NotCopyable();
    return 0;
  }
  if (kind === "string") {
    if (typeof value !== "string") throw new NotCopyable();
    return 0;
  }
  if ("optional" in kind) return value === undefined ? 0 : sizeOf(kind.optional, value, resident);
  if ("fields" in kind) {
    const object = checkedObject(value);
    // Its fields are checked as they are copied in.
    if (isLeaf(kind.fields)) return 8 + 8 * kind.fields.length;
    let bytes = 8 + 8 * kind.fields.length;
    for (const [name, field] of kind.fields) bytes += sizeOf(field, object[name], resident);
    return bytes;
  }
  if (resident && residentAddress(kind, value, resident) !== undefined) return 0;
  const array = checkedArray(kind, value);
  let bytes = 8 + 8 * array.length;
  const element = kind.of;
  // Objects of numbers all take the same room (each is checked as it is copied in).
  if (typeof element === "object" && "fields" in element && isLeaf(element.fields))
    return bytes + array.length * (8 + 8 * element.fields.length);
  if (element !== "number")
    for (let j = 0; j < array.length; j++) bytes += sizeOf(element, array[j], resident);
  return bytes;
}

/**
 * Where `value`, an argument of array kind `kind`, is in `resident`'s memory, if the call may
 * read it there: a Float64Array it handed out, or an array of such rows its `rows()` made.
 */
function residentAddress(
  kind: Extract<WasmKind, { array: unknown }>,
  value: unknown,
  resident: WasmArrays,
): number | undefined {
  if (kind.of === "number")
    return kind.array === "Float64Array" && value instanceof Float64Array
      ? resident.addressOf(value)
      : undefined;
  const row = kind.of;
  if (typeof row === "string" || "fields" in row || "optional" in row || row.of !== "number")
    return undefined;
  return kind.array === "Array" && row.array === "Float64Array" && Array.isArray(value)
    ? resident.rowsAddressOf(value)
    : undefined;
}

/**
 * The array kinds and objects' field lists among `params` (and inside them) that have the
 * shape of a kind among `results` (or inside them): an argument of such a kind may come back.
 */
function returnableKinds(params: WasmKind[], results: WasmKind[]): WeakSet<object> {
  const shapes = new Set<string>();
  const collect = (kind: WasmKind): void => {
    if (typeof kind !== "object") return;
    if ("optional" in kind) return collect(kind.optional);
    shapes.add(JSON.stringify(kind));
    if ("fields" in kind) kind.fields.forEach(([, field]) => collect(field));
    else collect(kind.of);
  };
  results.forEach(collect);
  const returnable = new WeakSet<object>();
  const visit = (kind: WasmKind): void => {
    if (typeof kind !== "object") return;
    if ("optional" in kind) return visit(kind.optional);
    if (shapes.has(JSON.stringify(kind))) returnable.add("fields" in kind ? kind.fields : kind);
    if ("fields" in kind) kind.fields.forEach(([, field]) => visit(field));
    else visit(kind.of);
  };
  params.forEach(visit);
  return returnable;
}

/** Whether `array` is one of `resident`'s arrays, or a table of its rows. */
function isResident(array: unknown, resident: WasmArrays): boolean {
  return (
    (array instanceof Float64Array && resident.addressOf(array) !== undefined) ||
    (Array.isArray(array) && resident.rowsAddressOf(array) !== undefined)
  );
}

/** An object (not null, not an array) whose fields can be read; its fields are checked by kind. */
function checkedObject(value: unknown): Record<string, unknown> {
  if (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !ArrayBuffer.isView(value)
  )
    return value as Record<string, unknown>;
  throw new NotCopyable();
}

function checkedArray(kind: { array: WasmArrayStorage }, value: unknown): ArrayLike<unknown> {
  const ok =
    kind.array === "Array" ? Array.isArray(value) : value instanceof TYPED_ARRAYS[kind.array];
  if (ok) return value as ArrayLike<unknown>;
  throw new NotCopyable();
}

/** Whether `array` is a typed array (whose elements are numbers, copied with `set`). */
function isTypedArray(array: unknown): array is TypedArray {
  return ArrayBuffer.isView(array) && !(array instanceof DataView);
}

/** Copies one call's arguments in (from `at` on) and its written arrays and results out. */
class Copier {
  /** The arrays to copy back after the call, each once (shadows may share rows). */
  private readonly backArrays: (ArrayLike<number> | undefined)[] = [];
  /** Where each of `backArrays` is in memory. */
  private readonly backAddresses: number[] = [];
  /** How many of `backArrays` this call has (the arrays are kept between calls, not shortened). */
  private backCount = 0;
  /**
   * The same as a map, made once there are more than a few: a Map per call costs more than a
   * call of a few elements, and a search of a few is cheaper than a look-up.
   */
  private backIndex: Map<ArrayLike<number>, number> | undefined;
  // Made at the first written object: most calls of a twin write none.
  /** The objects to copy number fields back into, each once, with their address and kind. */
  private backObjects:
    Map<Record<string, unknown>, [address: number, kind: [string, WasmKind][]]> | undefined;

  private live!: Live;
  /** Where the next argument goes. */
  at = 0;
  /** Whose arrays are read in place (arrays the call writes are copied, but write-only ones). */
  private resident: WasmArrays | undefined;
  /** The call writes arrays its caller passed: what is in place is noted (see inPlaceClash). */
  private userWrites = false;
  /** Addresses of the arrays read in place, and of those written in place (userWrites only). */
  private readonly readInPlace: number[] = [];
  private readonly writtenInPlace: number[] = [];
  /** A written array is one of the memory's but cannot be written in place. */
  private clash = false;
  /**
   * The typed arrays of a call that writes arrays its caller passed (userWrites), by buffer:
   * two views of one buffer that overlap (`x` and `x.subarray(1)`) are one memory to
   * JavaScript, whose writes through one show in the other, but two blocks to wasm, so such
   * a call runs as JavaScript (see overlappingViews).
   */
  private views: Map<ArrayBufferLike, View[]> | undefined;
  /**
   * Where each argument array and object went (copied or in place), when the function may
   * return one of them: a result there is handed back as the caller's own object. Only
   * those of a kind a result may be (`returnable`) are kept.
   */
  private origins: Map<number, unknown> | undefined;
  private returnable: WeakSet<object> | undefined;

  constructor(private readonly strings: StringIds) {}

  /** Before a call (or its rerun on a larger memory): nothing copied yet, from `at` on. */
  start(
    live: Live,
    at: number,
    resident: WasmArrays | undefined,
    userWrites = false,
    returnable?: WeakSet<object>,
  ): void {
    this.returnable = returnable;
    this.origins = returnable ? new Map() : undefined;
    this.live = live;
    this.at = at;
    this.resident = resident;
    this.userWrites = userWrites;
    this.readInPlace.length = 0;
    this.writtenInPlace.length = 0;
    this.clash = false;
    this.views = undefined;
    this.forgetWritten();
  }

  /**
   * `array`, an argument array (or a row of one) of a call that writes its caller's arrays,
   * read or written in place or copied: its bytes, to find views that overlap.
   */
  noteView(array: unknown, inPlace: boolean): void {
    if (!this.userWrites || !isTypedArray(array)) return;
    const views = (this.views ??= new Map());
    const { buffer, byteOffset, byteLength } = array;
    const view: View = { array, start: byteOffset, end: byteOffset + byteLength, inPlace };
    const known = views.get(buffer);
    if (known) known.push(view);
    else views.set(buffer, [view]);
  }

  /**
   * Whether two of the call's typed arrays are views of one buffer that overlap (not one
   * array passed twice, which is one block), or one was copied from the `wasmArrays` memory
   * the call reads in place without being one of its arrays (a part of one, whose block the
   * call may read or write in place another way).
   */
  overlappingViews(): boolean {
    const all = this.views;
    if (!all) return false;
    // Not kept past the call: a copier kept between calls must not keep the caller's arrays.
    this.views = undefined;
    const memory = this.resident?.memory.buffer;
    for (const [buffer, views] of all) {
      if (
        buffer === memory &&
        views.some((v) => !v.inPlace && !this.resident!.addressOf(v.array as Float64Array))
      )
        return true;
      if (views.length < 2) continue;
      views.sort((a, b) => a.start - b.start);
      let last = views[0]!;
      for (let k = 1; k < views.length; k++) {
        const view = views[k]!;
        // Overlapping bytes (neither empty), of two arrays, not one passed twice.
        const overlap = view.start < last.end && view.end > view.start && last.end > last.start;
        if (overlap && view.array !== last.array) return true;
        if (view.end > last.end) last = view;
      }
    }
    return false;
  }

  /**
   * An argument array in the `wasmArrays` memory, read or written there. Written there, it
   * must be a block of its own (a row of `rows()` may be read in place as part of its table)
   * holding numbers.
   */
  noteInPlace(kind: WasmKind, address: number, written: boolean): void {
    if (!this.userWrites) return;
    if (!written) this.readInPlace.push(address);
    else if (
      typeof kind === "object" &&
      "of" in kind &&
      kind.of === "number" &&
      !this.resident!.isRow(address)
    )
      this.writtenInPlace.push(address);
    else this.clash = true;
  }

  /** `value`, an argument array or object of kind `kind`, is at `address` for this call. */
  noteOrigin(kind: object, address: number, value: unknown): void {
    if (this.returnable?.has(kind)) this.origins!.set(address, value);
  }

  /**
   * Whether this call cannot run on arrays in place: an array it writes is in the memory but
   * copied (a read-and-write argument), or written in place and read in place another way.
   * A call that traps reruns from the caller's arrays: one it reads must not have changed.
   */
  inPlaceClash(): boolean {
    if (this.clash) return true;
    if (this.writtenInPlace.length === 0 || this.readInPlace.length === 0) return false;
    const written = new Set(this.writtenInPlace);
    return this.readInPlace.some((address) => written.has(address));
  }

  /**
   * Forgets the arrays and objects to copy back, so a copier kept between calls does not keep
   * the caller's alive. (Not by `length = 0`: a call into V8's runtime, slower than a whole
   * call of a small function.)
   */
  private forgetWritten(): void {
    for (let k = 0; k < this.backCount; k++) this.backArrays[k] = undefined;
    this.backCount = 0;
    this.backIndex = undefined;
    this.backObjects = undefined;
  }

  in(kind: WasmKind, value: unknown, written: boolean, writeOnly = false): number {
    if (kind === "opaque") return 0;
    if (kind === "number") {
      if (typeof value !== "number") throw new NotCopyable();
      return value;
    }
    if (kind === "boolean") return value ? 1 : 0;
    if (kind === "string") {
      if (typeof value !== "string") throw new NotCopyable();
      return this.strings.idOf(value);
    }
    // Only as a field (object() copies it).
    if ("optional" in kind) throw new NotCopyable();
    if ("fields" in kind) return this.object(kind.fields, checkedObject(value), written, writeOnly);
    const array = value as ArrayLike<unknown>;
    // Passed twice, one of them written: one block (the written one, copied first).
    if ((written || this.userWrites) && kind.of === "number") {
      const known = this.backAddressOf(array as ArrayLike<number>);
      if (known !== undefined) return known;
    }
    if ((!written || writeOnly) && this.resident) {
      const address = residentAddress(kind, array, this.resident);
      if (address !== undefined) {
        this.noteInPlace(kind, address, written);
        this.noteOrigin(kind, address, array);
        this.noteView(array, true);
        return address;
      }
    }
    this.noteView(array, false);
    // Written, copied, and yet in the memory, where another argument may read it in place.
    if (written && this.userWrites && this.resident && isResident(array, this.resident))
      this.clash = true;
    const address = this.at;
    const n = array.length;
    this.at += 8 + 8 * n;
    this.noteOrigin(kind, address, array);
    const { f64, i32 } = this.live;
    i32[address >> 2] = n;
    const first = (address + 8) >> 3;
    if (kind.of === "number") {
      if (isTypedArray(array) && n > SHORT) f64.set(array, first);
      else if (isTypedArray(array)) for (let j = 0; j < n; j++) f64[first + j] = array[j]!;
      else
        for (let j = 0; j < n; j++) {
          const x = array[j];
          if (typeof x !== "number") throw new NotCopyable();
          f64[first + j] = x;
        }
      if (written) this.copyBackLater(array as ArrayLike<number>, address);
      return address;
    }
    for (let j = 0; j < n; j++) {
      const row = this.in(kind.of, array[j], written, writeOnly);
      i32[(address + 8 + 8 * j) >> 2] = row;
    }
    return address;
  }

  private backAddressOf(array: ArrayLike<number>): number | undefined {
    if (this.backIndex) return this.backIndex.get(array);
    for (let k = 0; k < this.backCount; k++)
      if (this.backArrays[k] === array) return this.backAddresses[k];
    return undefined;
  }

  private copyBackLater(array: ArrayLike<number>, address: number): void {
    const k = this.backCount++;
    this.backArrays[k] = array;
    this.backAddresses[k] = address;
    if (this.backIndex) this.backIndex.set(array, address);
    else if (this.backCount > 8) {
      this.backIndex = new Map();
      for (let j = 0; j < this.backCount; j++)
        this.backIndex.set(this.backArrays[j]!, this.backAddresses[j]!);
    }
  }

  /** An object's block: its fields at 8 + 8k, read once each and checked against their kind. */
  private object(
    fields: [string, WasmKind][],
    object: Record<string, unknown>,
    written: boolean,
    writeOnly = false,
  ): number {
    if (written) {
      const known = this.backObjects?.get(object);
      if (known !== undefined) return known[0];
    }
    const address = this.at;
    this.at += 8 + 8 * fields.length;
    this.noteOrigin(fields, address, object);
    if (written) (this.backObjects ??= new Map()).set(object, [address, fields]);
    const leaf = leafCopier(fields, NotCopyable);
    if (leaf) {
      leaf(object, this.live.f64, this.live.i32, address);
      return address;
    }
    this.live.i32[address >> 2] = fields.length;
    let present = 0;
    for (let k = 0; k < fields.length; k++) {
      const [name, kind] = fields[k]!;
      const cell = address + 8 + 8 * k;
      let field = kind;
      if (typeof kind === "object" && "optional" in kind) {
        // Absent: NaN for a number, what JavaScript computes with undefined as, else 0.
        if (object[name] === undefined) {
          if (kind.optional === "number") this.live.f64[cell >> 3] = NaN;
          else this.live.i32[cell >> 2] = 0;
          continue;
        }
        present |= 1 << k;
        field = kind.optional;
      }
      const value = this.in(field, object[name], written, writeOnly);
      if (field === "number") this.live.f64[cell >> 3] = value;
      else if (field === "boolean") {
        if (typeof object[name] !== "boolean") throw new NotCopyable();
        this.live.i32[cell >> 2] = value;
      } else this.live.i32[cell >> 2] = value;
    }
    this.live.i32[(address + 4) >> 2] = present;
    return address;
  }

  /** Copies the written arrays' new contents back into the caller's arrays. */
  copyBack(): void {
    const { f64, i32 } = this.live;
    for (let k = 0; k < this.backCount; k++) {
      const array = this.backArrays[k]!;
      const address = this.backAddresses[k]!;
      const first = (address + 8) >> 3;
      const n = i32[address >> 2]!;
      // An integer array's cells hold its integers exactly: `set` converts them back as they were.
      if (isTypedArray(array) && n > SHORT) array.set(f64.subarray(first, first + n));
      else for (let j = 0; j < n; j++) (array as number[])[j] = f64[first + j]!;
    }
    if (this.backObjects)
      for (const [object, [address, fields]] of this.backObjects)
        fields.forEach(([name, kind], k) => {
          const cell = (address + 8 + 8 * k) >> 3;
          if (kind === "number") object[name] = f64[cell];
          else if (typeof kind === "object" && "optional" in kind && kind.optional === "number") {
            if (hasField(i32, address, k)) object[name] = f64[cell];
          }
        });
    this.forgetWritten();
  }

  out(kind: WasmKind, value: number): unknown {
    if (kind === "number") return value;
    if (kind === "boolean") return value !== 0;
    if (kind === "string") {
      // undefined where a string is expected: JavaScript's result would not be a string.
      if (value === 0) throw new NotCopyable();
      return this.strings.textOf(value);
    }
    // Never returned (backend.ts keeps such functions JavaScript): the field's value is not here.
    if (kind === "opaque" || "optional" in kind) throw new NotCopyable();
    // An element of `new Array(n)` never written: JavaScript's would be undefined (a hole).
    if (value === 0) throw new NotCopyable();
    // One of the arguments (or inside one): the caller's own object, as JavaScript returns it.
    const origin = this.origins?.get(value);
    if (origin !== undefined) return origin;
    const { f64, i32 } = this.live;
    if ("fields" in kind) {
      const object: Record<string, unknown> = {};
      kind.fields.forEach(([name, field], k) => {
        const cell = value + 8 + 8 * k;
        if (typeof field === "object" && "optional" in field) {
          // An optional field the object lacks is left out, as JavaScript's would be.
          if (!hasField(i32, value, k)) return;
          object[name] =
            field.optional === "number"
              ? f64[cell >> 3]
              : this.out(field.optional, i32[cell >> 2]!);
          return;
        }
        object[name] = field === "number" ? f64[cell >> 3] : this.out(field, i32[cell >> 2]!);
      });
      return object;
    }
    const n = i32[value >> 2]!;
    const first = (value + 8) >> 3;
    if (kind.of === "number") {
      if (kind.array === "Float64Array") return f64.slice(first, first + n);
      if (kind.array === "Array") return Array.from(f64.subarray(first, first + n));
      // The engine's conversion: a loop here would store into every kind of typed array, which
      // makes its stores polymorphic (30 ms for a million Int32 cells, against 1.1 ms).
      return new TYPED_ARRAYS[kind.array](f64.subarray(first, first + n));
    }
    const rows = Array.from({ length: n }, (_, j) =>
      this.out(kind.of, i32[(value + 8 + 8 * j) >> 2]!),
    );
    return rows;
  }
}

/** Whether the object at `address` has its optional field `k` (its presence mask, kinds.ts). */
function hasField(i32: Int32Array, address: number, k: number): boolean {
  return (i32[(address + 4) >> 2]! & (1 << k)) !== 0;
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
