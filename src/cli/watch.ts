import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { existsFile } from "./compile.js";
import type { Backend } from "../api/wasm-entry.js";
import { BACKEND_VARIABLE } from "../register/environment-backend.js";

// `nabla run --watch`: Node's own watch mode over nabla's loader, the same as
// `node --watch --import nabla/register file.ts`. Node reruns the program when the entry or
// any module it imported changes (the loader's compiled TypeScript included); nabla's disk
// cache makes a rerun of unchanged files skip the compiler.

const REGISTER = new URL("../register/index.js", import.meta.url);

/**
 * Runs `file` under `node --watch` until this process is stopped; its exit code then. The
 * loader takes the program-wide backend from the environment (NABLA_BACKEND).
 */
export function runWatching(file: string, args: string[], backend?: Backend): Promise<number> {
  if (!existsFile(file)) return Promise.resolve(1);
  const env = backend ? { ...process.env, [BACKEND_VARIABLE]: backend } : process.env;
  const child = spawn(
    process.execPath,
    ["--watch", "--import", REGISTER.href, resolve(file), ...args],
    { stdio: "inherit", env },
  );
  // Stopping nabla stops the watcher and the program it runs.
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  return new Promise((done) => {
    child.on("error", (error) => {
      process.stderr.write(`nabla: cannot start node --watch: ${error.message}\n`);
      done(1);
    });
    child.on("exit", (code, signal) => {
      for (const s of signals) process.off(s, forward);
      done(code ?? (signal === "SIGINT" ? 130 : 1));
    });
  });
}
