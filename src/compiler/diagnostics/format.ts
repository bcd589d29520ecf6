import { codeFrameColumns } from "@babel/code-frame";
import type { SourceLoc } from "../ir/types.js";
import type { Diagnostic } from "./diagnostic.js";

// Renders diagnostics as `file:line:col`, the reason, a code frame, then notes with their own
// frames (the call chain), the way compilers users already know print them.

export interface Position {
  line: number;
  column: number;
}

/** Offsets where the lines of one text start, for offset → line lookups by binary search. */
class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  position(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 };
  }
}

// Callers ask about one text many times in a row (every line of a generated module).
let lastIndex: LineIndex | undefined;

/** Maps UTF-16 offsets (what oxc-parser reports to JS) to 1-based line and column. */
export function positionAt(text: string, offset: number): Position {
  if (lastIndex?.text !== text) lastIndex = new LineIndex(text);
  return lastIndex.position(Math.min(offset, text.length));
}

/** The source text of a file, for code frames (`CompileResult.sourceText`). */
export type SourceLookup = (file: string) => string | undefined;

/** Options of {@link formatDiagnostic} and {@link formatDiagnostics}. */
export interface FormatOptions {
  /** Prints paths relative to this folder when given. */
  cwd?: string;
  /** Colors the output with ANSI escapes (labels, and code frames highlighted). Default: false. */
  color?: boolean;
  /** Code frames cut source lines longer than this many columns. Default: 160. */
  width?: number;
}

function displayPath(file: string, cwd: string | undefined): string {
  if (cwd && file.startsWith(cwd + "/")) return file.slice(cwd.length + 1);
  return file;
}

/** Code frames show at most this many columns of a line, around the position. */
const FRAME_WIDTH = 160;

/** The fewest columns of source a frame shows, however narrow the terminal. */
const MIN_FRAME_WIDTH = 40;

/**
 * The part of a long line a frame shows: `width` columns from `from`, with `…` where it is
 * cut. Every line of one frame is cut at the same columns, so they stay aligned.
 */
function cut(line: string, from: number, width: number): string {
  return (
    (from > 0 ? "…" : "") + line.slice(from, from + width) + (line.length > from + width ? "…" : "")
  );
}

function frame(
  loc: SourceLoc,
  sources: SourceLookup,
  color: boolean,
  lines: number,
  width: number,
): string {
  const text = sources(loc.file);
  if (text === undefined) return "";
  const start = positionAt(text, loc.start);
  const end = positionAt(text, Math.max(loc.start + 1, loc.end));
  const range = {
    start,
    end:
      end.line === start.line
        ? end
        : { line: start.line, column: lineLength(text, start.line) + 1 },
  };
  const options = {
    highlightCode: color,
    forceColor: color,
    linesAbove: lines,
    linesBelow: 0,
  };
  const all = text.split("\n");
  const shown = all.slice(Math.max(0, start.line - 1 - lines), start.line);
  if (shown.every((l) => l.length <= width)) return codeFrameColumns(text, range, options);
  // A long line (generated or minified code, a long formula) is cut to a window that keeps
  // the start of the range in view, a third of the way in; a long line above it is cut at the
  // same columns, so they stay aligned, and a short one is shown whole. Empty lines before
  // them keep the line numbers.
  const target = shown[shown.length - 1]!;
  const from =
    target.length > width && start.column - 1 > width / 3
      ? Math.min(start.column - 1 - Math.floor(width / 3), target.length - width)
      : 0;
  const shift = from > 0 ? 1 - from : 0;
  const excerpt = [
    ...Array<string>(start.line - shown.length).fill(""),
    ...shown.map((line) => (line.length <= width ? line : cut(line, from, width))),
  ];
  const last = excerpt[excerpt.length - 1]!.length;
  const clipped = {
    start: { line: start.line, column: start.column + shift },
    end: { line: start.line, column: Math.min(range.end.column + shift, last + 1) },
  };
  return codeFrameColumns(excerpt.join("\n"), clipped, options);
}

function lineLength(text: string, line: number): number {
  return (text.split("\n")[line - 1] ?? "").length;
}

export function locationText(loc: SourceLoc, sources: SourceLookup, cwd?: string): string {
  const text = sources(loc.file);
  const pos = text === undefined ? { line: 0, column: 0 } : positionAt(text, loc.start);
  return `${displayPath(loc.file, cwd)}:${pos.line}:${pos.column}`;
}

/**
 * One diagnostic as the `nabla` command prints it: `file:line:col: severity CODE: message`, a
 * code frame, the `help:` line when there is one, then each note with its own location and
 * frame.
 */
export function formatDiagnostic(
  d: Diagnostic,
  sources: SourceLookup,
  options: FormatOptions = {},
): string {
  const color = options.color ?? false;
  const width = Math.max(MIN_FRAME_WIDTH, options.width ?? FRAME_WIDTH);
  const paint = color ? ansi : plain;
  const where = (loc: SourceLoc) => paint.bold(locationText(loc, sources, options.cwd));
  const severity = d.severity === "error" ? paint.red : paint.yellow;
  const out = [`${where(d.loc)}: ${severity(`${d.severity} ${d.code}`)}: ${d.message}`];
  out.push(frame(d.loc, sources, color, 1, width));
  // The fix right under the code it fixes, before the call chain that led there.
  if (d.help) out.push(`${paint.cyan("help")}: ${d.help}`);
  for (const note of d.notes) {
    if (note.loc) {
      out.push(`${where(note.loc)}: ${paint.bold("note")}: ${note.message}`);
      out.push(frame(note.loc, sources, color, 0, width));
    } else {
      out.push(`${paint.bold("note")}: ${note.message}`);
    }
  }
  return out.filter((s) => s !== "").join("\n");
}

type Paint = (text: string) => string;

const ansiStyle =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;

/** The styles of a diagnostic's labels on a terminal (code frames are @babel/code-frame's). */
const ansi = {
  bold: ansiStyle(1, 22),
  red: (text: string) => ansiStyle(1, 22)(ansiStyle(31, 39)(text)),
  yellow: (text: string) => ansiStyle(1, 22)(ansiStyle(33, 39)(text)),
  cyan: (text: string) => ansiStyle(1, 22)(ansiStyle(36, 39)(text)),
};

const identity: Paint = (text) => text;
const plain: typeof ansi = { bold: identity, red: identity, yellow: identity, cyan: identity };
