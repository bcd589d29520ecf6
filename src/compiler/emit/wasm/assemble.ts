import { awaitFlag } from "./await-flag.js";
import {
  MessageChannel,
  receiveMessageOnPort,
  Worker,
  type MessagePort,
} from "node:worker_threads";

// WAT text → wasm bytes, with wabt (WABT's own JavaScript build), synchronously: the compiler
// is synchronous and wabt loads asynchronously, so it runs on a thread of its own, started on
// the first module and kept, which this thread waits for. wabt's memory grows as it works;
// on its own thread, its growth detaches no ArrayBuffer of the thread that runs the user's
// code (a detached buffer slows every typed-array loop of its thread, docs/native-gap.md).

let assembler: { port: MessagePort; signal: Int32Array } | undefined;
const cache = new Map<string, Uint8Array>();

/** How long to wait for the assembler thread (loading wabt takes about a second). */
const TIMEOUT_MS = 60_000;

/** The reply of assemble-worker.ts. */
export type AssembleReply = { ok: true; bytes: Uint8Array } | { ok: false; error: string };

function thread(): { port: MessagePort; signal: Int32Array } {
  if (assembler) return assembler;
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./assemble-worker.js", import.meta.url), {
    workerData: { port: port2, signal },
    transferList: [port2],
    execArgv: [],
  });
  worker.unref();
  port1.unref();
  worker.once("exit", () => (assembler = undefined));
  assembler = { port: port1, signal };
  return assembler;
}

/** The bytes of the module `text`, or an Error with wabt's message. */
export function assembleWat(text: string): Uint8Array {
  const known = cache.get(text);
  if (known) return known;
  const { port, signal } = thread();
  Atomics.store(signal, 0, 0);
  port.postMessage(text);
  if (!awaitFlag(signal, TIMEOUT_MS))
    throw new Error("the WebAssembly assembler (wabt) did not answer");
  const reply = receiveMessageOnPort(port)?.message as AssembleReply | undefined;
  if (!reply) throw new Error("the WebAssembly assembler (wabt) gave no reply");
  if (!reply.ok) throw new Error(`wabt: ${reply.error}`);
  cache.set(text, reply.bytes);
  return reply.bytes;
}
