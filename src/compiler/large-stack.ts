import {
  MessageChannel,
  receiveMessageOnPort,
  Worker,
  type MessagePort,
} from "node:worker_threads";
import { awaitFlag } from "./emit/wasm/await-flag.js";
import type { CompileResult } from "./compile.js";
import type { Backend } from "../api/wasm-entry.js";
import type { PathKind } from "./parse/program.js";
import type { Diagnostic } from "./diagnostics/diagnostic.js";
import type { ModuleOutput } from "./emit/js/module.js";

// Runs the compiler on a thread with a large stack, synchronously. The native parser
// recurses per level of nesting and kills the process when its stack overflows (the 4 MB of
// the loader's hooks thread gave out at 5,000 nested parentheses); the compiler's own passes
// recurse too. A worker's `resourceLimits.stackSizeMb` sizes both its native stack and V8's
// limit, so every entry point that compiles for the user (`nabla check`, `emit`, `run` and
// the loader) does it here and reaches the same verdict on the same file.

/** The worker's stack: input within the nesting limits (parse/nesting.ts) needs far less. */
export const COMPILER_STACK_MB = 256;

export interface LargeStackRequest {
  entries: string[];
  /** Also return the text of every file read (for the loader's disk cache). */
  inputs?: boolean;
  /** Also return the IR of every function, printed (`nabla emit --ir`). */
  ir?: boolean;
  /**
   * Return instead each function as it is right after this pass, every time a pipeline runs it
   * (`nabla emit --ir --print-after=<pass>`; see differentiate/pipeline.ts).
   */
  printAfter?: string;
  /** Return instead the activity of each function differentiated (`nabla emit --activity`). */
  activity?: boolean;
  /** The program-wide backend of operator calls (CompileOptions.backend). */
  backend?: Backend;
}

/** A {@link CompileResult} without the IR objects, and the printed IR if asked for. */
export interface LargeStackResult extends Omit<CompileResult, "functions"> {
  ir?: string;
}

/** What the worker posts back (see large-stack-worker.ts). */
export type LargeStackReply =
  | {
      ok: true;
      diagnostics: Diagnostic[];
      outputs: [string, ModuleOutput][];
      texts: [string, string][];
      probes: [string, PathKind][];
      ir?: string;
    }
  | { ok: false; message: string; stack?: string };

/**
 * The thread that compiles: one per thread that asks, started on the first compile and kept,
 * so what it keeps warm between compiles (TypeScript's checker process, see
 * types/typescript-checker.ts) stays warm for the loader's next module. `signal[0]` says a
 * reply is there, `signal[1]` a request.
 */
let compiler: { port: MessagePort; signal: Int32Array } | undefined;

function compilerThread(): { port: MessagePort; signal: Int32Array } {
  if (compiler) return compiler;
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./large-stack-worker.js", import.meta.url), {
    workerData: { port: port2, signal },
    transferList: [port2],
    resourceLimits: { stackSizeMb: COMPILER_STACK_MB },
    // Not the flags of this process (`--import nabla/register` would install hooks there too).
    execArgv: [],
  });
  // It waits for requests forever: it must not keep the process alive.
  worker.unref();
  port1.unref();
  worker.once("exit", () => (compiler = undefined));
  compiler = { port: port1, signal };
  return compiler;
}

/** Compiles `request.entries` in a worker with a {@link COMPILER_STACK_MB} MB stack and waits. */
export function compileWithLargeStack(request: LargeStackRequest): LargeStackResult {
  const { port: port1, signal } = compilerThread();
  Atomics.store(signal, 0, 0);
  port1.postMessage(request);
  Atomics.store(signal, 1, 1);
  Atomics.notify(signal, 1);
  awaitFlag(signal);
  const reply = receiveMessageOnPort(port1)?.message as LargeStackReply | undefined;
  if (!reply) throw new Error("the compiler's worker stopped without an answer");
  if (!reply.ok) {
    const error = new Error(reply.message);
    if (reply.stack) error.stack = reply.stack;
    throw error;
  }
  const texts = new Map(reply.texts);
  return {
    diagnostics: reply.diagnostics,
    outputs: new Map(reply.outputs),
    sourceText: (file) => texts.get(file),
    inputs: () => texts,
    probes: () => new Map(reply.probes),
    ...(reply.ir !== undefined ? { ir: reply.ir } : {}),
  };
}
