import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { PASS_NAMES, PIPELINES } from "../compiler/differentiate/pipeline.js";
import { build } from "./build.js";
import { check } from "./check.js";
import { compileFiles } from "./compile.js";
import { run } from "./run.js";
import { optionError, USAGE, usageError } from "./usage.js";
import { runWatching } from "./watch.js";
import type { Backend } from "../api/wasm-entry.js";

// The `nabla` command: reads the command line and hands it to the command's own file.

function version(): string {
  const pkg = JSON.parse(
    readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
  ) as { version: string };
  return pkg.version;
}

function emit(
  file: string,
  ir: boolean,
  printAfter: string | undefined,
  activity: boolean,
  backend: Backend | undefined,
): number {
  if (printAfter !== undefined && !(PASS_NAMES as string[]).includes(printAfter))
    return usageError(
      `unknown pass '${printAfter}' for --print-after; the passes are ${PASS_NAMES.join(", ")}`,
    );
  if (activity && printAfter !== undefined)
    return usageError("--activity and --print-after print different things; give one");
  const result = compileFiles({
    files: [file],
    ir: ir || printAfter !== undefined || activity,
    ...(printAfter !== undefined ? { printAfter } : {}),
    ...(activity ? { activity } : {}),
    ...(backend ? { backend } : {}),
  });
  if (!result) return 1;
  if (printAfter !== undefined && !result.ir) {
    const pipelines = Object.entries(PIPELINES)
      .filter(([, passes]) => (passes as readonly string[]).includes(printAfter))
      .map(([name]) => name);
    process.stderr.write(
      `nabla: no function of this program went through '${printAfter}', which runs in the ${pipelines.join(", ")} pipeline${pipelines.length > 1 ? "s" : ""} (see differentiate/pipeline.ts)\n`,
    );
    return 0;
  }
  if (ir || printAfter !== undefined || activity) {
    process.stdout.write(result.ir + "\n");
    return 0;
  }
  const entry = resolve(file);
  const files = [...result.outputs.keys()].sort((a, b) =>
    a === entry ? -1 : b === entry ? 1 : a.localeCompare(b),
  );
  for (const f of files) {
    if (files.length > 1) process.stdout.write(`// ==== ${f} ====\n`);
    process.stdout.write(result.outputs.get(f)!.code);
  }
  return 0;
}

/** `--backend`'s value (undefined when not given), or the exit code of a usage error. */
function backendOption(value: string | undefined): Backend | undefined | number {
  if (value === undefined || BACKENDS.includes(value as Backend)) return value as Backend;
  return usageError(`'--backend' is 'js', 'wasm' or 'auto', not '${value}'`);
}
const BACKENDS: readonly Backend[] = ["js", "wasm", "auto"];

/**
 * `nabla run [--watch] [--backend <b>] <file> [args…]`: options only before the file; the
 * rest is the program's.
 */
function runCommand(rest: string[]): Promise<number> | number {
  let watch = false;
  let backend: string | undefined;
  let i = 0;
  for (; i < rest.length && rest[i]!.startsWith("-"); i++) {
    if (rest[i] === "--watch") watch = true;
    else if (rest[i] === "--backend") {
      backend = rest[++i];
      if (backend === undefined)
        return usageError("option '--backend' of 'nabla run' needs a value");
    } else if (rest[i]!.startsWith("--backend=")) backend = rest[i]!.slice("--backend=".length);
    else if (rest[i] === "--") {
      i++;
      break;
    } else return usageError(`unknown option '${rest[i]}' for 'nabla run'`);
  }
  const [file, ...args] = rest.slice(i);
  if (!file) return usageError("'nabla run' needs a file");
  const chosen = backendOption(backend);
  if (typeof chosen === "number") return chosen;
  return watch ? runWatching(file, args, chosen) : run(file, args, chosen);
}

const OPTIONS = {
  emit: {
    ir: { type: "boolean" },
    "print-after": { type: "string" },
    activity: { type: "boolean" },
    backend: { type: "string" },
  },
  check: {
    format: { type: "string" },
    project: { type: "string", short: "p" },
    backend: { type: "string" },
  },
  build: {
    "out-dir": { type: "string" },
    project: { type: "string", short: "p" },
    backend: { type: "string" },
  },
} as const;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command) return usageError("no command given");
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === "--version" || command === "-v") {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (command === "run") return runCommand(rest);
  if (command !== "emit" && command !== "check" && command !== "build")
    return usageError(`unknown ${command.startsWith("-") ? "option" : "command"} '${command}'`);
  let parsed;
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, options: OPTIONS[command] });
  } catch (error) {
    return usageError(optionError(command, error));
  }
  const { values, positionals } = parsed as {
    values: {
      ir?: boolean;
      "print-after"?: string;
      activity?: boolean;
      format?: string;
      project?: string;
      "out-dir"?: string;
      backend?: string;
    };
    positionals: string[];
  };
  const backend = backendOption(values.backend);
  if (typeof backend === "number") return backend;
  if (values.project !== undefined && positionals.length > 0)
    return usageError(`'nabla ${command}' takes paths or '--project', not both`);
  if (command === "check") {
    const format = values.format ?? "text";
    if (format !== "text" && format !== "json")
      return usageError(`'--format' is 'text' or 'json', not '${format}'`);
    return check(positionals, values.project, format, backend);
  }
  if (command === "build") return build(positionals, values.project, values["out-dir"], backend);
  const [file] = positionals;
  if (!file || positionals.length > 1) return usageError("'nabla emit' needs exactly one file");
  return emit(file, values.ir ?? false, values["print-after"], values.activity ?? false, backend);
}
