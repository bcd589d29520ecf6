import { workerData, type MessagePort } from "node:worker_threads";
import type { AssembleReply } from "./assemble.js";

// The assembler's thread (see assemble.ts): loads wabt once, then turns each WAT text it is
// sent into bytes, posts them and wakes the waiting thread.

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };

/** wabt's tools, or why they could not be loaded (an install without optional packages). */
type Tools = Awaited<ReturnType<typeof import("wabt")>>;
let tools: Tools | undefined;
let unavailable = "";
try {
  tools = await (await import("wabt")).default();
} catch (error) {
  unavailable = `the package 'wabt' could not be loaded (${error instanceof Error ? error.message : String(error)})`;
}

/**
 * What generated modules use beyond the first version of wasm, all in every current engine
 * (SIMD since Chrome 91, Firefox 89, Safari 16.4; an engine without it fails to compile the
 * module, and the calls run as JavaScript).
 */
const FEATURES = {
  multi_value: true,
  bulk_memory: true,
  sat_float_to_int: true,
  mutable_globals: true,
  simd: true,
};

port.on("message", (text: string) => {
  let reply: AssembleReply;
  try {
    if (!tools) throw new Error(unavailable);
    const module = tools.parseWat("nabla.wat", text, FEATURES);
    try {
      module.validate();
      const { buffer } = module.toBinary({});
      // A copy of its own: wabt's result may view wabt's heap.
      reply = { ok: true, bytes: new Uint8Array(buffer) };
    } finally {
      module.destroy();
    }
  } catch (error) {
    reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
