import { receiveMessageOnPort, workerData, type MessagePort } from "node:worker_threads";
import { awaitFlag } from "./emit/wasm/await-flag.js";
import type { LargeStackReply, LargeStackRequest } from "./large-stack.js";

// The worker of large-stack.ts: waits for a request, compiles, posts the result, wakes the
// waiting thread, and waits for the next. Whatever happens, it answers: the other thread is
// blocked until it does.

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };

/** The compiler, or why it could not be loaded (a missing package), which every reply says. */
async function load() {
  try {
    return {
      ...(await import("./compile.js")),
      ...(await import("./ir/printer.js")),
      ...(await import("./analysis/activity.js")),
    };
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
const compiler = await load();

/** One compile, answered whatever happens: the other thread is blocked until it is. */
function answer(request: LargeStackRequest | undefined): LargeStackReply {
  try {
    if (!request) throw new Error("the compiler's thread was woken without a request");
    if (compiler instanceof Error) throw compiler;
    const { compileProgram, printActivity, printFunction, isVaried } = compiler;
    const afterPass: string[] = [];
    const activities: string[] = [];
    const result = compileProgram(request.entries, {
      ...(request.backend ? { backend: request.backend } : {}),
      ...(request.activity
        ? {
            observeActivity: (fn, wrt, activity, inlined) => {
              activities.push(
                printActivity(fn, wrt, inlined, {
                  isActive: (v) => activity.isActive(v),
                  isVaried: (v) => isVaried(activity, v),
                  isUseful: (v) => activity.useful.has(v.id),
                }),
              );
            },
          }
        : {}),
      ...(request.printAfter
        ? {
            observe: (pass, fn, pipeline) => {
              if (pass === request.printAfter)
                afterPass.push(`// after ${pass} (${pipeline} pipeline)\n${printFunction(fn)}`);
            },
          }
        : {}),
    });
    // The texts diagnostics point into, or every file read when asked.
    const files = request.inputs
      ? [...result.inputs().keys()]
      : result.diagnostics.flatMap((d) => [d.loc.file, ...d.notes.map((n) => n.loc?.file ?? "")]);
    const texts = new Map<string, string>();
    for (const file of files) {
      const text = result.sourceText(file);
      if (text !== undefined) texts.set(file, text);
    }
    return {
      ok: true,
      diagnostics: result.diagnostics,
      outputs: [...result.outputs],
      texts: [...texts],
      probes: [...result.probes()],
      ...(request.activity
        ? { ir: activities.join("\n\n") }
        : request.printAfter
          ? { ir: afterPass.join("\n\n") }
          : request.ir
            ? { ir: [...result.functions.values()].map(printFunction).join("\n\n") }
            : {}),
    };
  } catch (error) {
    return error instanceof Error
      ? { ok: false, message: error.message, stack: error.stack }
      : { ok: false, message: String(error) };
  }
}

// Requests come one at a time, each announced by signal[1]; each reply by signal[0].
for (;;) {
  awaitFlag(signal, Infinity, 1);
  Atomics.store(signal, 1, 0);
  const request = receiveMessageOnPort(port)?.message as LargeStackRequest | undefined;
  const reply = answer(request);
  port.postMessage(reply);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}
