import { compileFiles, type Format } from "./compile.js";
import { jsonReport } from "./json-report.js";
import { gatherInputs, usesNabla } from "./project.js";
import { usageError } from "./usage.js";
import type { Backend } from "../api/wasm-entry.js";

// `nabla check`: files, folders and TypeScript projects, compiled together for diagnostics.

/** `nabla check` of `paths` (or of the project `project`, or of the tsconfig.json found). */
export function check(
  paths: string[],
  project: string | undefined,
  format: Format,
  backend?: Backend,
): number {
  const inputs = gatherInputs(paths, project, process.cwd());
  if (!inputs)
    return usageError("'nabla check' needs a file or a folder, or a tsconfig.json here or above");
  if ("error" in inputs) {
    process.stderr.write(`nabla: ${inputs.error}\n`);
    return 1;
  }
  const { files, named, label } = inputs;
  if (files.length === 0) {
    process.stderr.write(`nabla: no TypeScript files in ${label}\n`);
    return 1;
  }
  // A file found in a folder or project that does not use nabla has nothing to check (a file
  // that imports it is checked with it).
  const checked = files.filter((f) => named.has(f) || usesNabla(f));
  const gathered = files.length > named.size;
  const what =
    checked.length === files.length
      ? count(checked.length)
      : `${count(checked.length)} that use nabla (of ${files.length} TypeScript files in ${label})`;
  if (checked.length === 0) {
    if (format === "json") process.stdout.write(jsonReport([], () => undefined, []) + "\n");
    else
      process.stderr.write(`nabla: nothing to check: no TypeScript file in ${label} uses nabla\n`);
    return 0;
  }
  const result = compileFiles({
    files: checked.map((f) => named.get(f) ?? f),
    format,
    ...(backend ? { backend } : {}),
  });
  if (format === "json") return result ? 0 : 1;
  if (!result) {
    if (gathered) process.stderr.write(`nabla: checked ${what}\n`);
    return 1;
  }
  process.stderr.write(
    checked.length === 1 && !gathered
      ? `nabla: no errors in ${named.get(checked[0]!)} and the files it imports\n`
      : `nabla: no errors in ${what} and the files they import\n`,
  );
  return 0;
}

function count(n: number): string {
  return n === 1 ? "1 file" : `${n} files`;
}
