import * as nodeModule from "node:module";
import type { ModuleOutput } from "../compiler/emit/js/module.js";
import type { HooksData, load, resolve } from "./hooks.js";
import type { Backend } from "../api/wasm-entry.js";
import { environmentBackend } from "./environment-backend.js";

export interface InstallOptions {
  /** Reuse compiled programs across starts (the loader's disk cache), unless NABLA_CACHE=0. */
  diskCache?: boolean;
  /** The program-wide backend of operator calls (CompileOptions.backend); default NABLA_BACKEND. */
  backend?: Backend;
}

/** The synchronous, in-thread hooks API of newer Node versions (22.15+); absent on Node 20. */
type RegisterHooks = (hooks: { resolve: typeof resolve; load: typeof load }) => unknown;
const registerHooks = (nodeModule as { registerHooks?: RegisterHooks }).registerHooks;
// Where hooks run in this thread the compiler is loaded here; otherwise only in the hooks thread.
const inThread = registerHooks ? await import("./hooks.js") : undefined;

/** Installs nabla's module hooks in this process, optionally with outputs compiled ahead of time. */
export function installHooks(
  outputs?: Map<string, ModuleOutput>,
  options: InstallOptions = {},
): void {
  // The option, else NABLA_BACKEND (so `nabla run --backend` wins over the environment).
  const backend = options.backend ?? environmentBackend();
  const data: HooksData = {
    outputs: outputs ? [...outputs] : [],
    diskCache: options.diskCache ?? false,
    ...(backend ? { backend } : {}),
  };
  if (registerHooks && inThread) {
    void inThread.initialize?.(data);
    registerHooks({ resolve: inThread.resolve, load: inThread.load });
  } else {
    nodeModule.register(new URL("./hooks.js", import.meta.url), { data });
  }
  process.setSourceMapsEnabled(true);
}
