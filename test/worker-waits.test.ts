import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { assembleWat } from "../src/compiler/emit/wasm/assemble.js";
import { awaitFlag } from "../src/compiler/emit/wasm/await-flag.js";

// The compiler waits for wabt's thread with Atomics.wait. A wake-up is not a reply: the
// thread's notify for one module can come after the wait for the next began (CI saw
// "the WebAssembly assembler (wabt) gave no reply" under load, and calls fell back to
// JavaScript). awaitFlag must return only once the flag is set.

const NOTIFIER = `
const { workerData } = require("node:worker_threads");
const signal = workerData;
const start = Date.now();
// Wake-ups with the flag still 0, for 150 ms, then the flag.
while (Date.now() - start < 150) { Atomics.notify(signal, 0); Atomics.wait(signal, 1, 0, 1); }
Atomics.store(signal, 0, 1);
Atomics.notify(signal, 0);
`;

test("a wake-up without the flag does not end the wait for the assembler", () => {
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(NOTIFIER, { eval: true, workerData: signal });
  try {
    const start = Date.now();
    assert.equal(awaitFlag(signal, 10_000), true);
    assert.equal(Atomics.load(signal, 0), 1, "returned before the flag was set");
    assert.ok(Date.now() - start >= 100, "returned on an early wake-up");
  } finally {
    void worker.terminate();
  }
});

test("a flag never set: the wait ends at its timeout with false", () => {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const start = Date.now();
  assert.equal(awaitFlag(signal, 50), false);
  assert.ok(Date.now() - start >= 50);
});

test("many modules in a row are each assembled, none refused for want of a reply", () => {
  for (let i = 0; i < 300; i++) {
    const bytes = assembleWat(`(module (func (export "f") (result i32) i32.const ${i}))`);
    const instance = new WebAssembly.Instance(
      new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>),
    );
    assert.equal((instance.exports.f as () => number)(), i);
  }
});
