import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { installHooks } from "../register/install.js";
import { loaderInWorkers } from "../register/workers.js";
import { existsFile } from "./compile.js";
import type { Backend } from "../api/wasm-entry.js";

// `nabla run`: the program runs in this process, compiled by nabla's loader as it loads.

export async function run(file: string, args: string[], backend?: Backend): Promise<number> {
  if (!existsFile(file)) return 1;
  // The loader compiles the program as it loads (reporting diagnostics as `check` does) and
  // keeps it on disk, so the next run of unchanged files starts without compiling.
  installHooks(undefined, { diskCache: true, ...(backend ? { backend } : {}) });
  loaderInWorkers();
  const path = resolve(file);
  process.argv = [process.argv[0]!, path, ...args];
  try {
    await import(pathToFileURL(path).href);
  } catch (error) {
    // The user's program failed at run time: show its own (source-mapped) stack.
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
  return 0;
}
