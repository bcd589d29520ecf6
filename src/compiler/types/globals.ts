import type { SourceModule } from "../parse/module.js";

// Which `Math`, `Number`, `Array`, `isFinite`… is meant: the platform's only where no binding
// of the program hides it. A module may declare its own `Math` (or import one); a call of
// `Math.cos` is then a call of the program's `cos`, never the built-in rule.

/** Something that knows the local variables in scope, as lowering's scopes do. */
export interface LocalScope {
  lookup(name: string): unknown;
}

/**
 * Whether `name`, read in `mod` where `scope` holds the local variables, is the platform's
 * global: no local variable, top-level declaration or value import of the module binds it.
 */
export function isPlatformGlobal(mod: SourceModule, name: string, scope?: LocalScope): boolean {
  return !mod.topLevel.has(name) && !scope?.lookup(name);
}
