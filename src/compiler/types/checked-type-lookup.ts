import type { Type } from "../ir/types.js";
import type { ProgramGraph } from "../parse/program.js";

// declared-types.ts asks the checker for the type of a field it cannot type itself
// (`public rest = Spring.defaults.rest`), but the checker's types (checked-types.ts) are
// converted with declared-types.ts: checked-types.ts hands its lookup here when it loads, so
// the two do not import each other.

type Lookup = (program: ProgramGraph, file: string, position: number) => Type | undefined;

let lookup: Lookup | undefined;

/** Called once by checked-types.ts. */
export function provideCheckedTypeAt(fn: Lookup): void {
  lookup = fn;
}

/** The checker's type of the expression at `position` of `file`, if the checker is loaded. */
export function checkedTypeAt(
  program: ProgramGraph,
  file: string,
  position: number,
): Type | undefined {
  return lookup?.(program, file, position);
}
