// The memory the instances of every function compiled to wasm use in this thread (but those
// bound to a `wasmArrays` memory). V8 reserves about 10 GB of address space for each wasm
// memory, whatever its size, to check accesses with guard pages: a memory per function made a
// process of a few hundred compiled functions reserve terabytes, more than some machines allow
// (a test process importing ~170 programs stopped getting memories at ~1 TB). One memory is
// enough, since calls never overlap (runtime/wasm.ts' `wasmCall.busy`) and no call leaves data
// in memory for the next. A call needing more than it has gets a new, larger memory; instances
// made on the old one keep it while they suffice, so memories made in all are few (each at
// least twice the last).

const PAGE = 65536;
/** The largest memory made to double the last one; a call needing more still gets it. */
const DOUBLING_LIMIT = 2 ** 31;

/** A memory and views of all of it (a view of `memory.buffer` is made once: it never grows). */
export interface SharedMemory {
  memory: WebAssembly.Memory;
  bytes: number;
  f64: Float64Array;
  i32: Int32Array;
}

let current: SharedMemory | undefined;

let made = 0;

/** How many memories this thread has made for instances (for tests and benches). */
export function memoriesMade(): number {
  return made;
}

/**
 * The thread's memory for instances, if it holds `needed` bytes; else a new one of a quarter
 * more than needed (so slightly larger calls fit), and at least twice the last, which becomes
 * the one later instances get.
 */
export function memoryFor(needed: number): SharedMemory {
  if (current && current.bytes >= needed) return current;
  const fitting = Math.ceil((needed * 1.25) / PAGE);
  const doubled = current ? Math.min(2 * current.bytes, DOUBLING_LIMIT) / PAGE : 0;
  let pages = Math.max(fitting, doubled);
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: pages });
  } catch (error) {
    // Refused at twice the last (a memory limit): what the call needs may still be given.
    if (pages === fitting) throw error;
    pages = fitting;
    memory = new WebAssembly.Memory({ initial: pages });
  }
  current = {
    memory,
    bytes: pages * PAGE,
    f64: new Float64Array(memory.buffer),
    i32: new Int32Array(memory.buffer),
  };
  made++;
  return current;
}
