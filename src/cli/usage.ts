// The usage text of the `nabla` command, and its complaints about a command line.

export const USAGE = `nabla — automatic differentiation for TypeScript, done as a compiler

Usage:
  nabla run <file.ts> [args…]   compile the program with its derivatives and run it
  nabla run --backend <js|wasm|auto> <file.ts> [args…]
                                the same, with derivatives of operator calls that name no
                                backend in WebAssembly ('wasm'), where it pays ('auto'), or
                                JavaScript ('js', the default); 'emit', 'check' and 'build'
                                take '--backend' too
  nabla run --watch <file.ts> [args…]
                                the same, run again when the file or one it imports changes
                                (with '--backend' too)
  nabla emit <file.ts> [--ir]   print the compiled JavaScript (or the IR) with derivative code
  nabla emit <file.ts> --print-after <pass>
                                print each function right after one pass of the pipeline
                                (cse, dce, licm, scalarize, pack-captures, sink-last-writes,
                                sink-last-calls, primal-calls, restore-slots, verify)
  nabla emit <file.ts> --activity
                                print which values of each differentiated function are
                                [ACTIVE], [VARIED] or [USEFUL], then its IR
  nabla check [<file.ts|folder>…] [-p tsconfig.json] [--format json]
                                report diagnostics only; exit code 1 on any error.
                                A folder: its .ts files that use nabla; no path, -p, or a
                                folder holding tsconfig.json: the files of that project.
                                --format json: diagnostics on stdout, for CI and editors
  nabla build [<file.ts|folder>…] [-p tsconfig.json] --out-dir <dir>
                                write the compiled JavaScript (derivatives included, with
                                source maps) of every .ts file, keeping the folder layout,
                                to run with plain node or to publish
  nabla --version | --help
`;

/** Prints `message` and the usage on stderr; the exit code of a command-line mistake. */
export function usageError(message: string): number {
  process.stderr.write(`nabla: ${message}\n\n${USAGE}`);
  return 2;
}

/** parseArgs' complaint, in nabla's words. */
export function optionError(command: string, error: unknown): string {
  const code = (error as { code?: string }).code;
  const option = /'([^' ]*)/.exec(error instanceof Error ? error.message : "")?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option)
    return `unknown option '${option}' for 'nabla ${command}'`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option)
    return `option '${option}' of 'nabla ${command}' needs a value`;
  return error instanceof Error ? error.message : String(error);
}
