import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { formatDiagnostics, stderrOptions } from "../compiler/diagnostics/report.js";
import { compileWithLargeStack, type LargeStackResult } from "../compiler/large-stack.js";
import { installHooks } from "../register/install.js";
import { loaderInWorkers } from "../register/workers.js";
import { JAVASCRIPT_FILE, typeScriptRoots } from "./javascript-entry.js";
import { jsonReport } from "./json-report.js";

// The `nabla` command: run, emit and check TypeScript programs.

const USAGE = `nabla — automatic differentiation for TypeScript, done as a compiler

Usage:
  nabla run <file.ts> [args…]   compile the program with its derivatives and run it
  nabla emit <file.ts> [--ir]   print the compiled JavaScript (or the IR) with derivative code
  nabla check <file.ts|folder>… [--format json]
                                report diagnostics only (a folder: every .ts file in it);
                                exit code 1 on any error; JSON on stdout for CI and editors
  nabla --version | --help
`;

function version(): string {
  const pkg = JSON.parse(
    readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
  ) as { version: string };
  return pkg.version;
}

/** Whether `file` is a file; if not, says so. */
function existsFile(file: string): boolean {
  const path = resolve(file);
  if (!existsSync(path)) {
    process.stderr.write(`nabla: cannot find '${file}'\n`);
    return false;
  }
  if (!statSync(path).isFile()) {
    process.stderr.write(`nabla: '${file}' is a directory; give the TypeScript file to compile\n`);
    return false;
  }
  return true;
}

/** How `check` reports diagnostics: as text on stderr, or as JSON on stdout. */
type Format = "text" | "json";

function compile(
  file: string,
  ir = false,
  extra: string[] = [],
  format: Format = "text",
): LargeStackResult | undefined {
  if (!existsFile(file)) return undefined;
  const entry = resolve(file);
  let roots = [entry, ...extra.map((f) => resolve(f))];
  if (JAVASCRIPT_FILE.test(entry)) {
    // As `run` does: the JavaScript runs as written, the TypeScript it imports is compiled.
    roots = typeScriptRoots(entry);
    process.stderr.write(
      `nabla: ${file} is JavaScript, which runs as written (its operator calls are compiled at run time); ` +
        (roots.length > 0
          ? "compiling the TypeScript files it imports\n"
          : "it imports no TypeScript files to compile\n"),
    );
  }
  // On a thread with a large stack, as the loader compiles for `nabla run`.
  const result = compileWithLargeStack({ entries: roots, ir });
  if (format === "json")
    process.stdout.write(jsonReport(result.diagnostics, result.sourceText) + "\n");
  else if (result.diagnostics.length > 0)
    process.stderr.write(
      formatDiagnostics(result.diagnostics, result.sourceText, stderrOptions()) + "\n",
    );
  return result.diagnostics.some((d) => d.severity === "error") ? undefined : result;
}

async function run(file: string, args: string[]): Promise<number> {
  if (!existsFile(file)) return 1;
  // The loader compiles the program as it loads (reporting diagnostics as `check` does) and
  // keeps it on disk, so the next run of unchanged files starts without compiling.
  installHooks(undefined, { diskCache: true });
  loaderInWorkers();
  const path = resolve(file);
  process.argv = [process.argv[0]!, path, ...args];
  try {
    await import(pathToFileURL(path).href);
  } catch (error) {
    // The user's program failed at run time: show its own (source-mapped) stack.
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
  return 0;
}

function emit(file: string, ir: boolean): number {
  const result = compile(file, ir);
  if (!result) return 1;
  if (ir) {
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

/** `nabla check` of files and folders (every TypeScript file under a folder), compiled together. */
function check(paths: string[], format: Format): number {
  const files = paths.flatMap((p) => (isDirectory(p) ? typeScriptFilesUnder(p) : [p]));
  if (files.length === 0) {
    process.stderr.write(`nabla: no TypeScript files in ${paths.join(", ")}\n`);
    return 1;
  }
  const result = compile(files[0]!, false, files.slice(1), format);
  if (!result) return 1;
  if (format === "text") {
    const what = files.length === 1 ? files[0] : `${files.length} files`;
    process.stderr.write(`nabla: no errors in ${what} and the files it imports\n`);
  }
  return 0;
}

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
  if (command === "run") {
    const [file, ...args] = rest;
    if (!file) return usageError("'nabla run' needs a file");
    return run(file, args);
  }
  if (command === "emit" || command === "check") {
    let parsed;
    try {
      parsed = parseArgs({
        args: rest,
        allowPositionals: true,
        options: command === "emit" ? { ir: { type: "boolean" } } : { format: { type: "string" } },
        strict: true,
      });
    } catch (error) {
      return usageError(optionError(command, error));
    }
    const { values, positionals } = parsed as {
      values: { ir?: boolean; format?: string };
      positionals: string[];
    };
    if (command === "check") {
      const format = values.format ?? "text";
      if (format !== "text" && format !== "json")
        return usageError(`'--format' is 'text' or 'json', not '${format}'`);
      if (positionals.length === 0) return usageError("'nabla check' needs a file or a folder");
      return check(positionals, format);
    }
    const [file] = positionals;
    if (!file || positionals.length > 1) return usageError("'nabla emit' needs exactly one file");
    return emit(file, values.ir ?? false);
  }
  return usageError(`unknown command '${command}'`);
}

/** parseArgs' complaint, in nabla's words. */
function optionError(command: string, error: unknown): string {
  const code = (error as { code?: string }).code;
  const option = /'([^' ]*)/.exec(error instanceof Error ? error.message : "")?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option)
    return `unknown option '${option}' for 'nabla ${command}'`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option)
    return `option '${option}' of 'nabla ${command}' needs a value`;
  return error instanceof Error ? error.message : String(error);
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The TypeScript files under `dir`, outside node_modules and hidden folders, sorted. */
function typeScriptFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter(
      (f) =>
        /\.(c|m)?ts$/.test(f) &&
        !/\.d\.(c|m)?ts$/.test(f) &&
        !f.split(/[\\/]/).some((part) => part === "node_modules" || part.startsWith(".")),
    )
    .sort()
    .map((f) => join(dir, f));
}

function usageError(message: string): number {
  process.stderr.write(`nabla: ${message}\n\n${USAGE}`);
  return 2;
}
