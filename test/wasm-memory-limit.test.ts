import { test } from "node:test";
import assert from "node:assert/strict";
import { memoryFor } from "../src/runtime/wasm-memory.js";

// The thread's memory for wasm instances (runtime/wasm-memory.ts) is replaced by one at least
// twice as large when a call needs more. Where the engine refuses that much (a limit on
// memory), the call still gets what it needs; only when that is refused too does it run as
// JavaScript (runtime/wasm.ts catches the error). In a process of its own: the memory is the
// thread's.

const PAGE = 65536;
/** The bytes that make memoryFor ask for this many pages (it adds a quarter). */
const needing = (pages: number) => (pages * PAGE) / 1.25;

test("a doubled memory the engine refuses gives way to the size the call needs", () => {
  const Memory = WebAssembly.Memory;
  const asked: number[] = [];
  WebAssembly.Memory = function (descriptor: WebAssembly.MemoryDescriptor) {
    asked.push(descriptor.initial);
    if (descriptor.initial > 150)
      throw new RangeError("WebAssembly.Memory(): could not allocate memory");
    return new Memory(descriptor);
  } as unknown as typeof WebAssembly.Memory;
  try {
    const first = memoryFor(needing(40));
    assert.equal(first.bytes, 40 * PAGE);
    assert.equal(memoryFor(needing(45)), first, "what fits (36 pages) is the same memory");
    // Twice the last: 80 pages, though 60 would do.
    const second = memoryFor(needing(60));
    assert.equal(second.bytes, 80 * PAGE);
    // Twice the last (160) is refused: the 110 the call asks for.
    const third = memoryFor(needing(110));
    assert.equal(third.bytes, 110 * PAGE);
    assert.equal(third.f64.length, (110 * PAGE) / 8);
    // More than the limit either way: refused, and the last memory stays the thread's.
    assert.throws(() => memoryFor(needing(200)), RangeError);
    assert.deepEqual(asked, [40, 80, 160, 110, 220, 200]);
    assert.equal(memoryFor(needing(100)), third);
  } finally {
    WebAssembly.Memory = Memory;
  }
});
