import { readFileSync } from "node:fs";
import { parseModule } from "../compiler/parse/module.js";
import { resolveImport } from "../compiler/parse/program.js";

// A JavaScript entry (`nabla run main.js`). Node runs JavaScript as written: nabla's loader
// compiles only the TypeScript files it reaches, each the root of a program, and an operator
// called in the JavaScript itself is compiled at run time (the no-build fallback). `check`
// and `emit` look at what `run` compiles, so the three agree on what a program is.

export const JAVASCRIPT_FILE = /\.(c|m)?js$/;
const TYPESCRIPT_FILE = /\.(c|m)?tsx?$/;

/**
 * The TypeScript files a JavaScript entry reaches through static relative imports and
 * re-exports, through other JavaScript files too: the roots of what the loader compiles.
 */
export function typeScriptRoots(entry: string): string[] {
  const roots: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (TYPESCRIPT_FILE.test(file)) {
      roots.push(file);
      return;
    }
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return; // Node reports a missing module when it runs the program.
    }
    for (const statement of parseModule(file, text).program.body) {
      const source =
        statement.type === "ImportDeclaration" ||
        statement.type === "ExportAllDeclaration" ||
        statement.type === "ExportNamedDeclaration"
          ? statement.source
          : null;
      const specifier = source ? String(source.value) : undefined;
      const target = specifier ? resolveImport(file, specifier) : undefined;
      if (target && (TYPESCRIPT_FILE.test(target) || JAVASCRIPT_FILE.test(target))) visit(target);
    }
  };
  visit(entry);
  return roots;
}
