import type { Backend } from "../api/wasm-entry.js";

// `NABLA_BACKEND`: the program-wide backend of nabla's loader where no option gives one — for
// `node --import nabla/register` (which takes no options of its own), the way `nabla run
// --watch --backend` passes its choice to the watcher, and for test runs under wasm.

export const BACKEND_VARIABLE = "NABLA_BACKEND";

const BACKENDS: readonly string[] = ["js", "wasm", "auto"] satisfies Backend[];

/** The backend `NABLA_BACKEND` names (undefined when unset or empty); throws for another value. */
export function environmentBackend(value = process.env[BACKEND_VARIABLE]): Backend | undefined {
  if (value === undefined || value === "") return undefined;
  if (BACKENDS.includes(value)) return value as Backend;
  throw new Error(
    `${BACKEND_VARIABLE} (nabla's program-wide backend) is 'js', 'wasm' or 'auto', not '${value}'`,
  );
}
