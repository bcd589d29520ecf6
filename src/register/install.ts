import { register } from "node:module";
import type { ModuleOutput } from "../compiler/emit/module.js";
import type { HooksData } from "./hooks.js";

/** Installs nabla's module hooks in this process, optionally with outputs compiled ahead of time. */
export function installHooks(outputs?: Map<string, ModuleOutput>): void {
  const data: HooksData = { outputs: outputs ? [...outputs] : [] };
  register(new URL("./hooks.js", import.meta.url), { data });
  process.setSourceMapsEnabled(true);
}
