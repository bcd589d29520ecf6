import { mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { LargeStackResult } from "../compiler/large-stack.js";
import { compileFiles } from "./compile.js";
import { DECLARATION, gatherInputs, isInside, TYPESCRIPT_SOURCE } from "./project.js";
import { relinkImports } from "./specifiers.js";
import { usageError } from "./usage.js";
import type { Backend } from "../api/wasm-entry.js";

// `nabla build`: the compiled JavaScript of every TypeScript file of the input, derivatives
// included, written with source maps under an out folder in the input's folder layout. The
// output runs with plain `node` (it imports the runtime from "nabla"), so a library can
// publish code whose derivatives are already generated.

/** `nabla build` of `paths` (or of a project) into `outDir` (or the project's `outDir`). */
export function build(
  paths: string[],
  project: string | undefined,
  outDir: string | undefined,
  backend?: Backend,
): number {
  const inputs = gatherInputs(paths, project, process.cwd());
  if (!inputs)
    return usageError("'nabla build' needs a file or a folder, or a tsconfig.json here or above");
  if ("error" in inputs) {
    process.stderr.write(`nabla: ${inputs.error}\n`);
    return 1;
  }
  const out = outDir !== undefined ? resolve(outDir) : inputs.project?.outDir;
  if (!out)
    return usageError("'nabla build' needs '--out-dir <dir>' (or 'outDir' in tsconfig.json)");
  const notTypeScript = [...inputs.named.values()].filter((name) => !TYPESCRIPT_SOURCE.test(name));
  if (notTypeScript.length > 0) {
    process.stderr.write(
      `nabla: 'nabla build' compiles TypeScript files; '${notTypeScript[0]}' is not one\n`,
    );
    return 1;
  }
  // Never the files of an earlier build, when the out folder is inside the input.
  const files = inputs.files.filter((f) => !isInside(f, out));
  if (files.length === 0) {
    process.stderr.write(`nabla: no TypeScript files in ${inputs.label}\n`);
    return 1;
  }
  const result = compileFiles({
    files: files.map((f) => inputs.named.get(f) ?? f),
    ...(backend ? { backend } : {}),
  });
  if (!result) return 1;
  return write(result, inputs.root, out);
}

/** Writes the outputs of `result` (sources under `root`) to `out`; the exit code. */
function write(result: LargeStackResult, root: string, out: string): number {
  const sources = [...result.outputs.keys()].filter(
    (f) =>
      TYPESCRIPT_SOURCE.test(f) && !DECLARATION.test(f) && !f.split(sep).includes("node_modules"),
  );
  // A module the input imports from outside its folder has no place in the layout.
  const outside = sources.filter((f) => !isInside(f, root));
  if (outside.length > 0) {
    const name = relative(process.cwd(), outside[0]!);
    process.stderr.write(
      `nabla: '${name}' is imported by the input but is outside '${relative(process.cwd(), root) || "."}'; build a folder that holds both\n`,
    );
    return 1;
  }
  const outFileOf = (source: string) =>
    sources.includes(source)
      ? join(out, relative(root, source)).replace(/ts(x?)$/, "js")
      : undefined;
  for (const source of sources) {
    const outFile = outFileOf(source)!;
    const output = result.outputs.get(source)!;
    const { code, map, unbuilt } = relinkImports(
      source,
      outFile,
      output.code,
      output.map,
      outFileOf,
    );
    for (const specifier of unbuilt)
      process.stderr.write(
        `nabla: warning: ${relative(process.cwd(), source)} imports '${specifier}', which 'nabla build' does not write; copy it to the out folder\n`,
      );
    // The map names the source relative to where it is written, and carries its text.
    const written = {
      ...map,
      file: basename(outFile),
      sources: map.sources.map((s) => (s ? relative(dirname(outFile), s).split(sep).join("/") : s)),
    };
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, `${code}//# sourceMappingURL=${basename(outFile)}.map\n`);
    writeFileSync(`${outFile}.map`, JSON.stringify(written));
  }
  const files = sources.length === 1 ? "1 JavaScript file" : `${sources.length} JavaScript files`;
  process.stderr.write(
    `nabla: wrote ${files} with derivatives and source maps to ${relative(process.cwd(), out) || "."}\n`,
  );
  return 0;
}
