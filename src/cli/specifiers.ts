import remapping from "@jridgewell/remapping";
import MagicString from "magic-string";
import { parseSync, type Node } from "oxc-parser";
import { dirname, relative, sep } from "node:path";
import type { EncodedSourceMap } from "../compiler/emit/js/module.js";
import { walk } from "../compiler/parse/module.js";
import { resolveImport } from "../compiler/parse/program.js";

// `nabla build` writes `lib.ts` as `lib.js`: the relative imports of the compiled code
// (`./lib.ts`, `./lib`, `./folder`, and those of the generated derivatives, which name the
// `.ts` file) must name the written files, so that plain `node` runs them.

export interface Relinked {
  code: string;
  map: EncodedSourceMap;
  /** Relative imports of files `build` does not write (JSON, JavaScript…), as written. */
  unbuilt: string[];
}

/**
 * The compiled module `code` of the source `file`, written as `outFile`, with every relative
 * import of a compiled file (`outFileOf` gives where it is written) naming that file, and its
 * source map `map` following the edit.
 */
export function relinkImports(
  file: string,
  outFile: string,
  code: string,
  map: EncodedSourceMap,
  outFileOf: (source: string) => string | undefined,
): Relinked {
  const edited = new MagicString(code);
  const unbuilt: string[] = [];
  const program = parseSync(outFile, code, { sourceType: "module" }).program as Node;
  walk(program, (node) => {
    const source =
      node.type === "ImportDeclaration" ||
      node.type === "ExportAllDeclaration" ||
      node.type === "ExportNamedDeclaration" ||
      node.type === "ImportExpression"
        ? node.source
        : null;
    if (!source || source.type !== "Literal" || typeof source.value !== "string") return;
    const specifier = source.value;
    const target = resolveImport(file, specifier);
    if (!target) return;
    const written = target && outFileOf(target);
    if (!written) {
      if (target) unbuilt.push(specifier);
      return;
    }
    let path = relative(dirname(outFile), written).split(sep).join("/");
    if (!path.startsWith(".")) path = `./${path}`;
    if (path !== specifier) edited.overwrite(source.start, source.end, JSON.stringify(path));
  });
  if (!edited.hasChanged()) return { code, map, unbuilt };
  const editMap = edited.generateMap({ source: outFile, hires: true });
  const composed = remapping([editMap as never, map as never], () => null);
  return { code: edited.toString(), map: composed as unknown as EncodedSourceMap, unbuilt };
}
