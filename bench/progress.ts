// Progress of a long benchmark run, on stderr (stdout stays for the results).
//
//   const p = progress(total, "bench");
//   p.step("reverse: gradient (a) …");   // starts step k of total
//   p.log("    nabla  121 ns/call …");    // a detail line, kept in the log
//   p.done();                            // "bench: 23 steps in 1:42" (p.fail() after an error)
//
// On a terminal the status line `bench [k/N 0:42] name` is redrawn in place by log-update,
// with detail lines printed above it; otherwise (a CI log, a file) every step is one plain
// line, so the log reads top to bottom. The elapsed time is that of the whole run, shown when
// a step starts or a line is logged: benchmarks are synchronous loops, so a timer could not
// tick while they run.

import { createLogUpdate } from "log-update";

export interface Progress {
  /** Starts the next step: `[k/N]`, the elapsed time and `name`. */
  step(name: string): void;
  /** A line kept in the log (on a terminal, printed above the status line). */
  log(message: string): void;
  /** Ends the run: clears the status line and prints a summary. */
  done(): void;
  /** Ends the run after an error: keeps the current step on screen, then says where it failed. */
  fail(): void;
}

/** `m:ss`, or `h:mm:ss` from an hour on. */
export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  const mm = Math.floor(s / 60);
  const ss = String(s % 60).padStart(2, "0");
  if (mm < 60) return `${mm}:${ss}`;
  return `${Math.floor(mm / 60)}:${String(mm % 60).padStart(2, "0")}:${ss}`;
}

/** A progress reporter for `total` steps on stderr, its lines prefixed with `label`. */
export function progress(total: number, label: string): Progress {
  const stream = process.stderr;
  const inPlace = stream.isTTY === true && process.env["TERM"] !== "dumb";
  const render = inPlace ? createLogUpdate(stream) : null;
  const start = Date.now();
  const elapsed = () => formatElapsed(Date.now() - start);
  let k = 0;
  let current = "";
  let finished = false;
  const status = () =>
    `${label} [${String(k).padStart(String(total).length)}/${Math.max(total, k)} ${elapsed()}] ${current}`;
  // After done() or fail(), or off a terminal: plain lines.
  const line = (text: string) => stream.write(`${text}\n`);
  const finish = (keepStatus: boolean, message: string) => {
    if (finished) return;
    finished = true;
    if (keepStatus) render?.persist(status());
    else render?.clear();
    render?.done();
    line(message);
  };

  return {
    step(name) {
      k += 1;
      current = name;
      if (render && !finished) render(status());
      else line(status());
    },
    log(message) {
      if (!render || finished) return void line(message);
      render.persist(message);
      if (k > 0) render(status());
    },
    done() {
      const steps = k === total ? `${k} step${k === 1 ? "" : "s"}` : `${k} of ${total} steps`;
      finish(false, `${label}: ${steps} in ${elapsed()}`);
    },
    fail() {
      const where = k === 0 ? "before the first step" : `in step ${k}/${Math.max(total, k)}`;
      finish(true, `${label}: failed ${where} after ${elapsed()}`);
    },
  };
}
