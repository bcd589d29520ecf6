import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import {
  parseModule,
  type FunctionLike,
  type ModuleConstant,
  type SourceModule,
} from "./module.js";

// The user's program as a graph of modules. Relative imports are resolved to files the way
// TypeScript's `bundler`/`nodenext` resolution does for sources: `./b`, `./b.ts`, and `./b.js`
// written for a `b.ts` file all name `b.ts`.

const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs"];

export function isRelativeSpecifier(specifier: string): boolean {
  return specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("/");
}

export function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base];
  const jsMatch = /\.(m|c)?js$/.exec(base);
  if (jsMatch) candidates.push(base.slice(0, -jsMatch[0].length) + `.${jsMatch[1] ?? ""}ts`);
  for (const ext of EXTENSIONS) candidates.push(base + ext);
  for (const ext of EXTENSIONS) candidates.push(resolve(base, "index" + ext));
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** A function found by name, with the module that declares it. */
export interface FunctionSymbol {
  module: SourceModule;
  name: string;
  node: FunctionLike;
}

export class ProgramGraph {
  private readonly modules = new Map<string, SourceModule>();

  /** `overrides` supplies source text for files not on disk, or newer than the disk copy. */
  constructor(private readonly overrides: Map<string, string> = new Map()) {}

  load(file: string): SourceModule {
    let mod = this.modules.get(file);
    if (!mod) {
      const text = this.overrides.get(file) ?? readFileSync(file, "utf8");
      mod = parseModule(file, text);
      this.modules.set(file, mod);
    }
    return mod;
  }

  sourceText(file: string): string | undefined {
    return this.modules.get(file)?.text ?? this.overrides.get(file);
  }

  loadedModules(): SourceModule[] {
    return [...this.modules.values()];
  }

  /** The module a relative import of `mod` refers to, parsed; undefined for packages. */
  importedModule(mod: SourceModule, specifier: string): SourceModule | undefined {
    if (!isRelativeSpecifier(specifier)) return undefined;
    const file = resolveRelative(mod.file, specifier);
    return file ? this.load(file) : undefined;
  }

  /** Follows an exported name through re-exports to its declaring module. */
  resolveExport(
    mod: SourceModule,
    exported: string,
    seen = new Set<string>(),
  ): FunctionSymbol | undefined {
    const key = `${mod.file}#${exported}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    const local = mod.exports.get(exported);
    if (local !== undefined) return this.resolveLocalFunction(mod, local, seen);
    const reexport = mod.reexports.get(exported);
    if (reexport) {
      const target = this.importedModule(mod, reexport.specifier);
      return target && this.resolveExport(target, reexport.imported, seen);
    }
    if (exported === "default") return undefined;
    for (const specifier of mod.starExports) {
      const target = this.importedModule(mod, specifier);
      const found = target && this.resolveExport(target, exported, seen);
      if (found) return found;
    }
    return undefined;
  }

  /** The module constant an exported name of `mod` denotes, following re-exports. */
  resolveExportedConstant(
    mod: SourceModule,
    exported: string,
    seen = new Set<string>(),
  ): ModuleConstant | undefined {
    const key = `${mod.file}#${exported}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    const local = mod.exports.get(exported);
    if (local !== undefined) return this.resolveLocalConstant(mod, local, seen);
    const reexport = mod.reexports.get(exported);
    if (reexport) {
      const target = this.importedModule(mod, reexport.specifier);
      return target && this.resolveExportedConstant(target, reexport.imported, seen);
    }
    for (const specifier of mod.starExports) {
      const target = this.importedModule(mod, specifier);
      const found = target && this.resolveExportedConstant(target, exported, seen);
      if (found) return found;
    }
    return undefined;
  }

  /** The module constant a top-level name of `mod` denotes, following imports. */
  resolveLocalConstant(
    mod: SourceModule,
    name: string,
    seen = new Set<string>(),
  ): ModuleConstant | undefined {
    const constant = mod.constants.get(name);
    if (constant) return constant;
    const binding = mod.imports.get(name);
    if (!binding || binding.imported === "*") return undefined;
    const target = this.importedModule(mod, binding.specifier);
    return target && this.resolveExportedConstant(target, binding.imported, seen);
  }

  /** The function a top-level name of `mod` denotes, following imports across files. */
  resolveLocalFunction(
    mod: SourceModule,
    name: string,
    seen = new Set<string>(),
  ): FunctionSymbol | undefined {
    const node = mod.functions.get(name);
    if (node) return { module: mod, name, node };
    const binding = mod.imports.get(name);
    if (!binding || binding.imported === "*") return undefined;
    const target = this.importedModule(mod, binding.specifier);
    return target ? this.resolveExport(target, binding.imported, seen) : undefined;
  }
}
