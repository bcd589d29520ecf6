import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { createFilesMatcher, findTsconfig, parseTsconfig } from "get-tsconfig";

// What `nabla check` and `nabla build` work on: files, folders, and TypeScript projects
// (tsconfig.json, read with its `extends`, `files`, `include` and `exclude` by get-tsconfig,
// which does not need the TypeScript compiler).

export const TYPESCRIPT_SOURCE = /\.(c|m)?tsx?$/;
export const DECLARATION = /\.d\.(c|m)?tsx?$/;

/** TypeScript files to compile, and the folder their layout is relative to. */
export interface Inputs {
  /** Absolute paths, sorted. */
  files: string[];
  /** Where the folder layout of the files starts (`build` keeps it under the out folder). */
  root: string;
  /** The tsconfig.json of a project given alone, with its `outDir`. */
  project?: { tsconfig: string; outDir?: string };
  /** What was given, for messages: the paths, or the tsconfig.json. */
  label: string;
  /** The files named as files, not found in a folder or project: path → name given. */
  named: Map<string, string>;
}

/** Inputs, or a sentence saying why there are none. */
export type InputsResult = Inputs | { error: string };

/**
 * The inputs `paths` and `project` name: a file is itself; a folder holding tsconfig.json is
 * that project, another folder its TypeScript files; `project` is a tsconfig.json or a folder
 * holding one. With neither, the tsconfig.json found from `cwd` upwards, as `tsc` finds it.
 */
export function gatherInputs(
  paths: string[],
  project: string | undefined,
  cwd: string,
): InputsResult | undefined {
  if (project !== undefined) {
    const path = resolve(cwd, project);
    const tsconfig = isDirectory(path) ? join(path, "tsconfig.json") : path;
    if (!existsSync(tsconfig)) return { error: `cannot find '${project}'` };
    return projectInputs(tsconfig, relative(cwd, tsconfig));
  }
  if (paths.length === 0) {
    const found = findTsconfig(cwd);
    return found ? projectInputs(found, relative(cwd, found)) : undefined;
  }
  const files: string[] = [];
  const named = new Map<string, string>();
  const folders: string[] = [];
  for (const p of paths) {
    const path = resolve(cwd, p);
    if (!existsSync(path)) return { error: `cannot find '${p}'` };
    if (!isDirectory(path)) {
      files.push(path);
      named.set(path, p);
      continue;
    }
    folders.push(path);
    const tsconfig = join(path, "tsconfig.json");
    if (existsSync(tsconfig)) {
      const inputs = projectInputs(tsconfig, relative(cwd, tsconfig) || "tsconfig.json");
      if ("error" in inputs) return inputs;
      if (paths.length === 1) return inputs;
      files.push(...inputs.files);
    } else files.push(...typeScriptFilesUnder(path));
  }
  const unique = [...new Set(files)].sort();
  const root =
    paths.length === 1 && folders.length === 1 ? folders[0]! : commonFolder(unique, folders);
  return { files: unique, root, label: paths.join(", "), named };
}

/** The TypeScript files of the project of `tsconfig` (its own name for messages: `name`). */
function projectInputs(tsconfig: string, name: string): InputsResult {
  let config;
  try {
    config = parseTsconfig(tsconfig);
  } catch (error) {
    return { error: `cannot read '${name}': ${(error as Error).message}` };
  }
  const matches = createFilesMatcher({ config, path: tsconfig });
  const base = dirname(tsconfig);
  // The folders to look in: the fixed start of each `include` pattern (`src` of
  // `src/**/*`), the project's folder by default; and the `files` listed.
  const patterns = config.include ?? (config.files ? [] : ["**/*"]);
  const candidates = (config.files ?? []).map((f) => resolve(base, f));
  for (const pattern of patterns) {
    const fixed = pattern.split("/");
    const wild = fixed.findIndex((part) => /[*?]/.test(part));
    const start = resolve(base, wild === -1 ? pattern : fixed.slice(0, wild).join("/"));
    if (isDirectory(start)) candidates.push(...typeScriptFilesUnder(start));
    else if (existsSync(start)) candidates.push(start);
  }
  const files = [...new Set(candidates)]
    .filter((f) => TYPESCRIPT_SOURCE.test(f) && !DECLARATION.test(f) && matches(f))
    .sort();
  const options = config.compilerOptions ?? {};
  // As tsc lays out its output: from `rootDir`, or the deepest folder holding every file.
  const rootDir = options.rootDir
    ? resolve(base, options.rootDir)
    : commonFolder(files, files.length > 0 ? [] : [base]);
  return {
    files,
    root: rootDir,
    project: {
      tsconfig,
      ...(options.outDir ? { outDir: resolve(base, options.outDir) } : {}),
    },
    label: name,
    named: new Map(),
  };
}

// (Not a JSDoc comment: nabla would take the tag named in it for this function's own.)
// Whether `file` uses nabla: imports it, or tags functions as differentiable (the JSDoc tag).
export function usesNabla(file: string): boolean {
  // A quick look at the text: a false match only costs a check of a file that needed none.
  return /["']nabla(\/[\w-]+)?["']|@differentiable\b/.test(readFileSync(file, "utf8"));
}

/** The TypeScript files under `dir`, outside node_modules and hidden folders, sorted. */
export function typeScriptFilesUnder(dir: string): string[] {
  const found: string[] = [];
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile() && TYPESCRIPT_SOURCE.test(path) && !DECLARATION.test(path))
        found.push(path);
    }
  };
  visit(dir);
  return found.sort();
}

export function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** Whether `path` is `folder` or inside it. */
export function isInside(path: string, folder: string): boolean {
  const r = relative(folder, path);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
}

/** The deepest folder holding every file of `files` and every folder of `folders`. */
function commonFolder(files: string[], folders: string[]): string {
  const all = [...files.map((f) => dirname(f)), ...folders];
  if (all.length === 0) return process.cwd();
  let common = all[0]!;
  for (const folder of all) while (!isInside(folder, common)) common = dirname(common);
  return common.endsWith(sep) && common.length > 1 ? common.slice(0, -1) : common;
}
