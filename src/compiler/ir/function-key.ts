import type { FunctionKey } from "./types.js";

// A function key is `<file>#<name>`: an absolute path (or `package:<specifier>`), then a
// name. Either may hold more `#`s: a folder `c#` or a file `a#1.ts` in the path, and in the
// name the keys of the function values a specialization is made for
// (`integrate{f=<file>#lambda_1_3}`). The file ends at the first `#` that follows a module's
// file name (its extension) and starts a name: no path separator before the name's first
// `{`. A key whose file has no module extension ends its file at the first `#`.

const MODULE_FILE = /\.(d\.)?(c|m)?[jt]sx?$/;

/** The index of the `#` that ends the key's file. */
function separator(key: FunctionKey): number {
  for (let at = key.indexOf("#"); at >= 0; at = key.indexOf("#", at + 1)) {
    const file = key.slice(0, at);
    if (!file.startsWith("package:") && !MODULE_FILE.test(file)) continue;
    const brace = key.indexOf("{", at);
    const head = key.slice(at + 1, brace < 0 ? undefined : brace);
    if (!head.includes("/") && !head.includes("\\")) return at;
  }
  return key.indexOf("#");
}

/** The file of a function key. */
export function keyFile(key: FunctionKey): string {
  return key.slice(0, separator(key));
}

/** The name of a function key (for a derivative's key, with its configuration). */
export function keyName(key: FunctionKey): string {
  return key.slice(separator(key) + 1);
}

/** The key of the function `name` of the module `file`. */
export function functionKey(file: string, name: string): FunctionKey {
  return `${file}#${name}`;
}

/** The key of a function symbol of the program. */
export function symbolKey(symbol: { module: { file: string }; name: string }): FunctionKey {
  return functionKey(symbol.module.file, symbol.name);
}

/**
 * The key of one instantiation of a generic function: the function's key and a name for the
 * instantiation (`sumBy<sumBy$of$2>`), an identifier, so no type's text enters the key.
 */
export function instanceKey(key: FunctionKey, instance: string): FunctionKey {
  return `${key}<${instance}>`;
}

/**
 * The function a generic instantiation's key is of (`…#sumBy` for `…#sumBy<sumBy$of$2>`),
 * which is what runs at run time: types are erased. A generic method of a generic class's
 * instantiation has two (`…#Box.map<Box$of><map$of>`). Other keys are returned unchanged.
 */
export function genericKey(key: FunctionKey): FunctionKey {
  return key.replace(/(<[\w$]+>)+$/, "");
}
