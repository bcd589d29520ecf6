import type { FunctionKey } from "./types.js";

// A function key is `<absolute file>#<name>`. The file's path may itself hold a `#` (a folder
// named `c#`, a file `a#1.ts`); a name never does (identifiers, `Class.method`, and a
// derivative's `@kind(…)` suffix), so the file ends at the key's last `#`.

/** The file of a function key. */
export function keyFile(key: FunctionKey): string {
  return key.slice(0, key.lastIndexOf("#"));
}

/** The name of a function key (for a derivative's key, with its configuration). */
export function keyName(key: FunctionKey): string {
  return key.slice(key.lastIndexOf("#") + 1);
}
