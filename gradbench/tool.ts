// The GradBench tool for nabla: answers GradBench's JSON-lines protocol on stdin/stdout.
//
//   node bin/nabla.js run gradbench/tool.ts [--hand] [--dir DIR] [--multithreaded]
//   npm --prefix <nabla folder> run --silent gradbench:tool -- [--hand] [--dir DIR] [--multithreaded]
//
// GradBench's CLI splits the tool command into words and runs it without a shell, so the second
// form (no `cd`) is the one to give it; `--silent` keeps npm's `> nabla@… gradbench:tool` banner
// off stdout, which is the protocol channel.
//
// One JSON message per line comes in on stdin; exactly one JSON response line per message goes
// out on stdout, in order (see /work/shared/gradbench/README.md, "Protocol"):
//
//   start    → {id, tool: "nabla", config}
//   define   → loads evals/<module>.ts with a dynamic import, which nabla's loader compiles
//              (with the derivatives) on the spot; {id, success, timings: [define], error?}.
//              A module nabla cannot compile, or one that does not exist, is success false with
//              the diagnostics (or the reason) as `error`.
//   evaluate → prepare<Fn>(input) once (timed as "prepare"), then run<Fn>(prepared) until both
//              `min_runs` and `min_seconds` of the input are satisfied (once if the input has
//              neither, as hello's bare numbers), one "evaluate" timing per run in integer
//              nanoseconds; the output is the last run's result.
//   analysis → {id}; an invalid result is also reported on stderr.
//
// Options (or environment variables):
//   --hand       (NABLA_GRADBENCH_HAND=1) load hand/<module>.ts, the hand-written derivatives,
//                where there is one (llsq, lse, gmm, ba, lstm), else evals/<module>.ts
//   --dir DIR    (NABLA_GRADBENCH_DIR) load DIR/<module>.ts instead of evals/<module>.ts, e.g. a
//                modified copy of an eval
//   --multithreaded  GradBench's request to use several threads where a tool can. Accepted and
//                ignored: nabla's derivatives are plain single-threaded JavaScript, so the tool
//                runs on one thread either way (its `start` response says `"threads": 1`).
//
// Only protocol messages go to stdout: the tool keeps the real stdout for itself and sends
// everything else written there (console.log in an eval, say) to stderr. nabla's diagnostics and
// warnings go to stderr anyway. The tool exits when stdin closes.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { toJson } from "./json.js";

// --- stdout belongs to the protocol -----------------------------------------------------------

const protocolWrite = process.stdout.write.bind(process.stdout);
// Anything else that writes to stdout — console.log/info/dir/table go through this method too —
// lands on stderr.
process.stdout.write = ((chunk: unknown, encoding?: unknown, callback?: unknown): boolean =>
  (process.stderr.write as (...args: unknown[]) => boolean)(
    chunk,
    encoding,
    callback,
  )) as typeof process.stdout.write;
console.log = console.error;
console.info = console.error;
console.debug = console.error;

function send(response: object): void {
  let text: string;
  try {
    text = JSON.stringify(response);
  } catch (error) {
    // e.g. a BigInt or a cycle in an eval's output: still answer the message.
    text = JSON.stringify({
      id: (response as { id?: unknown }).id ?? null,
      success: false,
      error: `the response cannot be written as JSON: ${errorText(error)}`,
    });
  }
  protocolWrite(text + "\n");
}

function note(text: string): void {
  process.stderr.write(`gradbench tool: ${text}\n`);
}

// --- options ----------------------------------------------------------------------------------

interface Options {
  hand: boolean;
  dir: string | null;
  /** `--multithreaded` was given; recorded, not acted on (see the header). */
  multithreaded: boolean;
}

function parseOptions(argv: string[]): Options {
  const env = process.env;
  const options: Options = {
    hand:
      env.NABLA_GRADBENCH_HAND !== undefined &&
      !["", "0", "false"].includes(env.NABLA_GRADBENCH_HAND),
    dir: env.NABLA_GRADBENCH_DIR ? resolve(env.NABLA_GRADBENCH_DIR) : null,
    multithreaded: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--hand") options.hand = true;
    else if (a === "--dir" && i + 1 < argv.length) options.dir = resolve(argv[++i]);
    else if (a === "--multithreaded") options.multithreaded = true;
    else throw new Error(`unknown argument '${a}' (options: --hand, --dir DIR, --multithreaded)`);
  }
  return options;
}

// --- modules ----------------------------------------------------------------------------------

type Fn = (arg: unknown) => unknown;

interface EvalModule {
  [name: string]: unknown;
}

interface Defined {
  module: EvalModule;
  file: string;
  functions: string[];
}

const HERE = fileURLToPath(new URL(".", import.meta.url));
const MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function capitalize(s: string): string {
  return s.length === 0 ? s : s[0].toUpperCase() + s.slice(1);
}

/** The GradBench functions a module provides: every `<fn>` with both `prepare<Fn>` and
 *  `run<Fn>` exported. */
function functionsOf(module: EvalModule): string[] {
  const names: string[] = [];
  for (const key of Object.keys(module)) {
    const m = /^run([A-Z].*)$/.exec(key);
    if (m === null) continue;
    if (typeof module[key] !== "function" || typeof module[`prepare${m[1]}`] !== "function")
      continue;
    names.push(m[1][0].toLowerCase() + m[1].slice(1));
  }
  return names.sort();
}

/** The file that implements `name`, or why there is none. */
function locate(name: string, options: Options): { file: string } | { error: string } {
  if (!MODULE_NAME.test(name)) return { error: `'${name}' is not a valid module name` };
  const candidates: string[] = [];
  if (options.dir !== null) candidates.push(resolve(options.dir, `${name}.ts`));
  else {
    if (options.hand) candidates.push(resolve(HERE, "hand", `${name}.ts`));
    candidates.push(resolve(HERE, "evals", `${name}.ts`));
  }
  const file = candidates.find((f) => existsSync(f));
  if (file === undefined)
    return {
      error: `nabla has no eval '${name}' (looked for ${candidates.join(", ")})`,
    };
  return { file };
}

const ANSI_COLOR = new RegExp(String.fromCharCode(27) + "\\[[0-9;]*m", "g");

/** An error's message, without the terminal colors nabla's diagnostics have when stderr is a
 *  terminal (it goes into a JSON response). */
function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(ANSI_COLOR, "");
}

// --- the protocol -----------------------------------------------------------------------------

interface Timing {
  name: string;
  nanoseconds: number;
}

interface Message {
  id?: unknown;
  kind?: unknown;
  module?: unknown;
  function?: unknown;
  input?: unknown;
  of?: unknown;
  valid?: unknown;
  error?: unknown;
}

class Tool {
  private readonly defined = new Map<string, Defined>();
  /** Why each module whose define failed could not be defined. */
  private readonly undefinable = new Map<string, string>();

  constructor(private readonly options: Options) {}

  async handle(message: Message): Promise<object> {
    const id = message.id ?? null;
    switch (message.kind) {
      case "start":
        return {
          id,
          tool: "nabla",
          config: {
            derivatives: this.options.hand ? "hand where available" : "nabla",
            threads: 1,
          },
        };
      case "define":
        return { id, ...(await this.define(message.module)) };
      case "evaluate":
        return { id, ...this.evaluate(message.module, message.function, message.input) };
      case "analysis":
        if (message.valid === false)
          note(
            `message ${String(message.of)} was judged invalid` +
              (typeof message.error === "string" ? `: ${message.error}` : ""),
          );
        return { id };
      default:
        return {
          id,
          success: false,
          error: `unknown message kind ${JSON.stringify(message.kind)}`,
        };
    }
  }

  private async define(
    name: unknown,
  ): Promise<{ success: boolean; timings?: Timing[]; error?: string }> {
    if (typeof name !== "string") return { success: false, error: "define needs a module name" };
    const result = await this.load(name);
    if (!result.success) this.undefinable.set(name, result.error ?? "");
    else this.undefinable.delete(name);
    return result;
  }

  private async load(
    name: string,
  ): Promise<{ success: boolean; timings?: Timing[]; error?: string }> {
    const start = process.hrtime.bigint();
    const where = locate(name, this.options);
    if ("error" in where) return { success: false, error: where.error };
    let module: EvalModule;
    try {
      module = (await import(pathToFileURL(where.file).href)) as EvalModule;
    } catch (error) {
      // nabla's loader throws the formatted diagnostics when the module does not compile.
      note(`define ${name}: ${errorText(error)}`);
      return { success: false, error: errorText(error) };
    }
    const functions = functionsOf(module);
    if (functions.length === 0)
      return {
        success: false,
        error: `${where.file} is not a GradBench eval module: it exports no prepare<Fn>/run<Fn> pair`,
      };
    const nanoseconds = Number(process.hrtime.bigint() - start);
    this.defined.set(name, { module, file: where.file, functions });
    note(`defined ${name} from ${where.file} (${functions.join(", ")})`);
    return { success: true, timings: [{ name: "define", nanoseconds }] };
  }

  private evaluate(
    moduleName: unknown,
    fnName: unknown,
    input: unknown,
  ): { success: boolean; output?: unknown; timings?: Timing[]; error?: string } {
    if (typeof moduleName !== "string" || typeof fnName !== "string")
      return { success: false, error: "evaluate needs a module and a function name" };
    const defined = this.defined.get(moduleName);
    if (defined === undefined) {
      const why = this.undefinable.get(moduleName);
      return {
        success: false,
        error:
          why === undefined
            ? `module '${moduleName}' is not defined (send define first)`
            : `module '${moduleName}' could not be defined: ${why.split("\n")[0]}`,
      };
    }
    if (!defined.functions.includes(fnName))
      return {
        success: false,
        error:
          `module '${moduleName}' has no function '${fnName}' (no prepare${capitalize(fnName)}/` +
          `run${capitalize(fnName)} in ${defined.file}); it has: ${defined.functions.join(", ")}`,
      };
    const prepare = defined.module[`prepare${capitalize(fnName)}`] as Fn;
    const run = defined.module[`run${capitalize(fnName)}`] as Fn;
    const { minRuns, minNanoseconds } = repetitions(input);

    const timings: Timing[] = [];
    let output: unknown;
    try {
      const t0 = process.hrtime.bigint();
      const prepared = prepare(input);
      const t1 = process.hrtime.bigint();
      timings.push({ name: "prepare", nanoseconds: Number(t1 - t0) });
      let runs = 0;
      const start = process.hrtime.bigint();
      let now = start;
      while (runs < minRuns || now - start < minNanoseconds) {
        const before = process.hrtime.bigint();
        output = run(prepared);
        now = process.hrtime.bigint();
        timings.push({ name: "evaluate", nanoseconds: Number(now - before) });
        runs++;
      }
    } catch (error) {
      note(
        `evaluate ${moduleName}::${fnName} threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      return { success: false, error: `${moduleName}::${fnName} threw: ${errorText(error)}` };
    }
    if (output === undefined)
      return {
        success: false,
        error: `run${capitalize(fnName)} of '${moduleName}' returned undefined`,
      };
    return { success: true, output: toJson(output), timings };
  }
}

/** GradBench's repetition rule: run while runs < min_runs or elapsed < min_seconds; inputs
 *  without these fields (hello's bare numbers) run once. */
function repetitions(input: unknown): { minRuns: number; minNanoseconds: bigint } {
  let minRuns = 1;
  let minSeconds = 0;
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    const fields = input as { min_runs?: unknown; min_seconds?: unknown };
    if (typeof fields.min_runs === "number" && Number.isFinite(fields.min_runs))
      minRuns = Math.max(1, Math.ceil(fields.min_runs));
    if (typeof fields.min_seconds === "number" && Number.isFinite(fields.min_seconds))
      minSeconds = Math.max(0, fields.min_seconds);
  }
  return { minRuns, minNanoseconds: BigInt(Math.round(minSeconds * 1e9)) };
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    note(errorText(error));
    process.exitCode = 2;
    return;
  }
  if (options.multithreaded)
    note("--multithreaded: nabla's derivatives are single-threaded; running on one thread");
  const tool = new Tool(options);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch (error) {
      note(`not a JSON message: ${errorText(error)}`);
      send({ id: null, success: false, error: `not a JSON message: ${errorText(error)}` });
      continue;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      send({ id: null, success: false, error: "a message must be a JSON object" });
      continue;
    }
    let response: object;
    try {
      response = await tool.handle(message);
    } catch (error) {
      // Not expected (handle catches what the evals throw), but never leave a message unanswered.
      response = { id: message.id ?? null, success: false, error: errorText(error) };
    }
    send(response);
  }
}

await main();
