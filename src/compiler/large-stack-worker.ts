import { workerData, type MessagePort } from "node:worker_threads";
import type { LargeStackReply, LargeStackRequest } from "./large-stack.js";

// The worker of large-stack.ts: compiles, posts the result, then wakes the waiting thread.
// Whatever happens, it answers: the other thread is blocked until it does.

const { port, signal, request } = workerData as {
  port: MessagePort;
  signal: Int32Array;
  request: LargeStackRequest;
};

let reply: LargeStackReply;
try {
  const { compileProgram } = await import("./compile.js");
  const { printActivity, printFunction } = await import("./ir/printer.js");
  const { isVaried } = await import("./analysis/activity.js");
  const afterPass: string[] = [];
  const activities: string[] = [];
  const result = compileProgram(request.entries, {
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
  reply = {
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
  reply =
    error instanceof Error
      ? { ok: false, message: error.message, stack: error.stack }
      : { ok: false, message: String(error) };
}
port.postMessage(reply);
port.close();
Atomics.store(signal, 0, 1);
Atomics.notify(signal, 0);
