/**
 * Importing `nabla/register` installs nabla's Node module hooks: TypeScript files are
 * compiled by nabla as Node loads them (derivatives included), and `"nabla"` resolves to the
 * running nabla. It exports nothing; use it as `node --import nabla/register app.ts`, or
 * `node --watch --import nabla/register app.ts` to rerun on every change. Compiled programs
 * are cached on disk; `NABLA_CACHE=0` turns the cache off. `NABLA_BACKEND=wasm` (or `auto`)
 * gives every operator call that names no `backend` that one, as `nabla run --backend` does.
 *
 * @module nabla/register
 */

import { COMPILER_PACKAGES, missingCompilerAdvice } from "../runtime/compiler-packages.js";

// An install without the optional compiler packages gets a sentence, not a failure deep in
// the hooks thread.
for (const name of COMPILER_PACKAGES) {
  try {
    import.meta.resolve(name);
  } catch {
    throw new Error(`nabla/register: ${missingCompilerAdvice(name)}.`);
  }
}
const { installHooks } = await import("./install.js");

// `node --import nabla/register app.ts`: runs TypeScript programs compiled by nabla, their
// derivatives included, with compiled programs cached on disk between starts. NABLA_BACKEND
// (`wasm`, `auto`, `js`) is the backend of every operator call that names none (install.ts).

installHooks(undefined, { diskCache: true });
