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
  /** Highlights code frames with ANSI colors. Default: false. */
  color?: boolean;
}

function displayPath(file: string, cwd: string | undefined): string {
  if (cwd && file.startsWith(cwd + "/")) return file.slice(cwd.length + 1);
  return file;
}

/** Code frames show at most this many columns of a line, around the position. */
const FRAME_WIDTH = 160;

function frame(loc: SourceLoc, sources: SourceLookup, color: boolean, lines: number): string {
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
  const all = text.split("\n");
  const shown = all.slice(Math.max(0, start.line - 1 - lines), start.line);
  if (shown.every((l) => l.length <= FRAME_WIDTH))
    return codeFrameColumns(text, range, {
      highlightCode: color,
      linesAbove: lines,
      linesBelow: 0,
    });
  // A long line (generated or minified code) is cut to a window around the position, with
  // empty lines before it so the line numbers stay.
  const window = (line: string, from: number) =>
    (from > 0 ? "…" : "") +
    line.slice(from, from + FRAME_WIDTH) +
    (line.length > from + FRAME_WIDTH ? "…" : "");
  const target = shown[shown.length - 1]!;
  const from = target.length > FRAME_WIDTH ? Math.max(0, start.column - 1 - FRAME_WIDTH / 2) : 0;
  const shift = from > 0 ? 1 - from : 0;
  const excerpt = [
    ...Array<string>(start.line - shown.length).fill(""),
    ...shown.slice(0, -1).map((line) => window(line, 0)),
    window(target, from),
  ];
  const last = excerpt[excerpt.length - 1]!.length;
  const clipped = {
    start: { line: start.line, column: start.column + shift },
    end: { line: start.line, column: Math.min(range.end.column + shift, last + 1) },
  };
  return codeFrameColumns(excerpt.join("\n"), clipped, {
    highlightCode: color,
    linesAbove: lines,
    linesBelow: 0,
  });
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
  const out = [
    `${locationText(d.loc, sources, options.cwd)}: ${d.severity} ${d.code}: ${d.message}`,
  ];
  out.push(frame(d.loc, sources, color, 1));
  // The fix right under the code it fixes, before the call chain that led there.
  if (d.help) out.push(`help: ${d.help}`);
  for (const note of d.notes) {
    if (note.loc) {
      out.push(`${locationText(note.loc, sources, options.cwd)}: note: ${note.message}`);
      out.push(frame(note.loc, sources, color, 0));
    } else {
      out.push(`note: ${note.message}`);
    }
  }
  return out.filter((s) => s !== "").join("\n");
}
