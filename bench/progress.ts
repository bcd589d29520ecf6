// Progress of a long benchmark run, on stderr (stdout stays for the results).
//
//   const p = progress(total, "bench");
//   p.step("reverse: gradient (a) …");   // starts step k of total
//   p.log("    nabla  121 ns/call …");    // a detail line, kept in the log
//   p.done();                            // "bench: 23 steps in 1:42"
//
// (`p.fail()` instead of `p.done()` after an error.)
//
// On a terminal the status line `bench [k/N 0:42] name` is redrawn in place (carriage return,
// clear line), with detail lines printed above it; otherwise (a CI log, a file) every step is
// one plain line, so the log reads top to bottom. The elapsed time is that of the whole run,
// shown when a step starts or a line is logged: benchmarks are synchronous loops, so a timer
// could not tick while they run.

/** Where progress goes: process.stderr, or anything with `write` (tests, a log file). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  stream?: ProgressStream;
  /** Redraw one line in place; by default when the stream is a terminal (and TERM is not dumb). */
  inPlace?: boolean;
  /** Milliseconds since some fixed point; for tests. */
  now?: () => number;
}

export interface Progress {
  /** Starts the next step: `[k/N]`, the elapsed time and `name`. */
  step(name: string): void;
  /** A line kept in the log (on a terminal, printed above the status line). */
  log(message: string): void;
  /** Ends the run: clears the status line and prints `message`, by default a summary. */
  done(message?: string): void;
  /** Ends the run after an error: keeps the current step on screen, then prints `message`. */
  fail(message?: string): void;
  /** Milliseconds since the reporter was made. */
  elapsedMs(): number;
}

const CLEAR_LINE = "\r\x1b[2K";

/** `m:ss`, or `h:mm:ss` from an hour on. */
export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  const mm = Math.floor(s / 60);
  const ss = String(s % 60).padStart(2, "0");
  if (mm < 60) return `${mm}:${ss}`;
  return `${Math.floor(mm / 60)}:${String(mm % 60).padStart(2, "0")}:${ss}`;
}

/** `text` cut to `width` characters (code points), with an ellipsis if cut. */
function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/** A progress reporter for `total` steps, its lines prefixed with `label`. */
export function progress(total: number, label: string, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => Number(process.hrtime.bigint()) / 1e6);
  const inPlace =
    options.inPlace ?? (stream.isTTY === true && (process.env["TERM"] ?? "") !== "dumb");
  const start = now();
  const digits = String(total).length;
  let k = 0;
  let current = "";
  let shown = false; // whether a status line is on the screen (in-place mode)
  let finished = false;

  const elapsedMs = () => now() - start;
  const status = () => {
    const count = `${String(k).padStart(digits)}/${Math.max(total, k)}`;
    return `${label} [${count} ${formatElapsed(elapsedMs())}] ${current}`;
  };
  const draw = () => {
    // One character short of the width: a line that fills it wraps on some terminals, and
    // "clear line" then clears only its last row.
    const width = Math.max(20, (stream.columns ?? 80) - 1);
    stream.write(`${CLEAR_LINE}${fit(status(), width)}`);
    shown = true;
  };
  const clear = () => {
    if (shown) stream.write(CLEAR_LINE);
    shown = false;
  };

  return {
    step(name) {
      k += 1;
      current = name;
      if (finished || !inPlace) stream.write(`${status()}\n`);
      else draw();
    },
    log(message) {
      if (finished || !inPlace) {
        stream.write(`${message}\n`);
        return;
      }
      clear();
      stream.write(`${message}\n`);
      if (k > 0) draw();
    },
    done(message) {
      if (finished) return;
      finished = true;
      clear();
      const steps = k === total ? `${k} step${k === 1 ? "" : "s"}` : `${k} of ${total} steps`;
      stream.write(`${message ?? `${label}: ${steps} in ${formatElapsed(elapsedMs())}`}\n`);
    },
    fail(message) {
      if (finished) return;
      finished = true;
      if (shown) stream.write("\n");
      shown = false;
      const where = k === 0 ? "before the first step" : `in step ${k}/${Math.max(total, k)}`;
      stream.write(
        `${message ?? `${label}: failed ${where} after ${formatElapsed(elapsedMs())}`}\n`,
      );
    },
    elapsedMs,
  };
}
