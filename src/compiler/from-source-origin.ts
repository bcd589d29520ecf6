import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "./diagnostics/diagnostic.js";
import type { SourceLookup } from "./diagnostics/format.js";
import type { SourceLoc } from "./ir/types.js";

// Where the diagnostics of a function compiled at run time point: at the function in the
// user's file when its text is found there (a `.js`/`.mjs` file run as it is), else at its
// text as the program runs it, with the operator's call site named in the heading (a `.ts`
// file run by tsx: the running text is the transpiled one, which is in no file).

/** Where the operator was called, from a stack frame: a path or file URL, 1-based line and column. */
export interface CallSite {
  file: string;
  line: number;
  column: number;
}

/** The compiled module's side: where the function's text is in it and how to map back. */
export interface GeneratedFunction {
  /** The module file's name and the offsets of the function's text in it. */
  file: string;
  start: number;
  end: number;
  /** Offset in the generated function text → offset in the function's own text. */
  toOriginal(offset: number): number;
  /** The function's own text (`Function.prototype.toString`). */
  text: string;
}

/** Diagnostics moved to the user's file or the function's text, with their source lookup. */
export interface PlacedDiagnostics {
  diagnostics: Diagnostic[];
  sources: SourceLookup;
  /** The call site, when the diagnostics cannot point into its file: `file:line:column`. */
  calledAt?: string;
}

/** `site.file` as a path to read, when it names a file on disk. */
function pathOf(file: string): string | undefined {
  try {
    if (file.startsWith("file://")) return fileURLToPath(file);
    return isAbsolute(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The UTF-16 offset of a 1-based line and column (what V8 stack frames count). */
function offsetOf(text: string, line: number, column: number): number | undefined {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    offset = text.indexOf("\n", offset) + 1;
    if (offset === 0) return undefined;
  }
  return Math.min(offset + column - 1, text.length);
}

/**
 * Where `fn` is in `text`: its only occurrence, or else the one that starts on the call's
 * line at or after the call (a function written inside the operator call).
 */
function findFunction(text: string, fn: string, call: number | undefined): number | undefined {
  const found: number[] = [];
  for (let i = text.indexOf(fn); i >= 0; i = text.indexOf(fn, i + 1)) found.push(i);
  if (found.length === 1) return found[0];
  if (call === undefined) return undefined;
  return found.find((i) => i >= call && !text.slice(call, i).includes("\n"));
}

/** Moves the diagnostics of the compiled module to where the user can read them. */
export function placeDiagnostics(
  diagnostics: Diagnostic[],
  generated: GeneratedFunction,
  label: string,
  callSite: CallSite | undefined,
  compiledSources: SourceLookup,
): PlacedDiagnostics {
  const path = callSite && pathOf(callSite.file);
  const fileText = path === undefined ? undefined : readText(path);
  const call =
    fileText === undefined ? undefined : offsetOf(fileText, callSite!.line, callSite!.column);
  const at = fileText === undefined ? undefined : findFunction(fileText, generated.text, call);

  const place = (loc: SourceLoc): SourceLoc => {
    if (loc.file !== generated.file) return loc;
    if (loc.start >= generated.start && loc.start < generated.end) {
      const start = generated.toOriginal(loc.start - generated.start);
      const end = generated.toOriginal(Math.min(loc.end, generated.end) - generated.start);
      return at !== undefined
        ? { file: path!, start: at + start, end: at + end }
        : { file: label, start, end };
    }
    // The rest of the module is the operator call: point at the user's call.
    return call !== undefined
      ? { file: path!, start: call, end: call }
      : { file: label, start: 0, end: 0 };
  };
  const placed = diagnostics.map((d) => ({
    ...d,
    loc: place(d.loc),
    notes: d.notes.map((n) => (n.loc ? { ...n, loc: place(n.loc) } : n)),
  }));
  return {
    diagnostics: placed,
    sources: (file) =>
      file === path ? fileText : file === label ? generated.text : compiledSources(file),
    ...(at === undefined && callSite
      ? { calledAt: `${path ?? callSite.file}:${callSite.line}:${callSite.column}` }
      : {}),
  };
}
