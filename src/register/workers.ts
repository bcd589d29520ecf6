import { createRequire, syncBuiltinESMExports } from "node:module";
import type { WorkerOptions } from "node:worker_threads";

// Worker threads of a program started by `nabla run`. Module hooks registered in a thread do
// not reach the threads it starts; a worker gets them only from its `execArgv`, as every
// worker of `node --import nabla/register app.ts` does. `nabla run` registers its hooks from
// code, so it gives each worker that `--import` itself.

const REGISTER = new URL("./index.js", import.meta.url).href;

/** The worker's command-line options, with nabla's loader. */
function withLoader(execArgv: readonly string[]): string[] {
  return execArgv.includes(REGISTER) ? [...execArgv] : ["--import", REGISTER, ...execArgv];
}

/**
 * Makes `new Worker(…)` (from `node:worker_threads`, imported or required, in the program and
 * in its packages) start threads with nabla's loader, so a worker may be a TypeScript file.
 */
export function loaderInWorkers(): void {
  // The module's own object: changing it, then syncing, changes what `import` gives too.
  const workerThreads = createRequire(import.meta.url)(
    "node:worker_threads",
  ) as typeof import("node:worker_threads");
  const Base = workerThreads.Worker;
  class Worker extends Base {
    constructor(filename: string | URL, options: WorkerOptions = {}) {
      super(filename, { ...options, execArgv: withLoader(options.execArgv ?? process.execArgv) });
    }
  }
  workerThreads.Worker = Worker;
  syncBuiltinESMExports();
}
