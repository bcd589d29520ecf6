import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ObjectType } from "../ir/types.js";
import type { RuleTable } from "../analyze/rules.js";
import {
  parseModule,
  type FunctionLike,
  type ModuleConstant,
  type SourceModule,
  type TypeDeclaration,
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
  // Type declarations refer to each other by the names of the JavaScript files they describe.
  if (fromFile.endsWith(".d.ts")) candidates.unshift(base.replace(/\.(m|c)?js$/, "") + ".d.ts");
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
  /** For a method: the class instance type `this` has (its first IR parameter). */
  thisType?: ObjectType;
}

export class ProgramGraph {
  private readonly modules = new Map<string, SourceModule>();
  /** The derivatives the program registers (see analyze/rules.ts), filled by the driver. */
  rules: RuleTable = new Map();

  private readonly generatedNames = new Map<string, string>();
  private readonly takenNames = new Set<string>();

  /**
   * A name for a function the compiler makes (a specialization, a lifted lambda) in `file`,
   * one per `key`: `preferred`, or with a counter if another key of that file has it.
   */
  generatedName(file: string, key: string, preferred: string): string {
    const known = this.generatedNames.get(key);
    if (known) return known;
    let name = preferred;
    for (let i = 2; this.takenNames.has(`${file}#${name}`); i++) name = `${preferred}$${i}`;
    this.takenNames.add(`${file}#${name}`);
    this.generatedNames.set(key, name);
    return name;
  }

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

  /**
   * A function of an npm package, from the package's type declarations (`.d.ts`): enough to
   * know its signature, for a call to it that has a registered derivative. Its module's `file`
   * is `package:<specifier>`, which is how generated code knows to import it from the package.
   */
  packageFunction(
    from: SourceModule,
    specifier: string,
    exported: string,
  ): FunctionSymbol | undefined {
    const file = findDeclarations(from.file, specifier);
    if (!file) return undefined;
    const found = this.resolveExported(this.load(file), exported, new Set(), declaredIn);
    return found && { ...found, module: { ...found.module, file: packageFile(specifier) } };
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

  /** Follows an exported name through re-exports to the function it names. */
  resolveExport(mod: SourceModule, exported: string): FunctionSymbol | undefined {
    return this.resolveExported(mod, exported, new Set(), functionIn);
  }

  /** The function a top-level name of `mod` denotes, following imports across files. */
  resolveLocalFunction(mod: SourceModule, name: string): FunctionSymbol | undefined {
    return this.resolveLocal(mod, name, new Set(), functionIn);
  }

  /** The module constant an exported name of `mod` denotes, following re-exports. */
  resolveExportedConstant(mod: SourceModule, exported: string): ModuleConstant | undefined {
    return this.resolveExported(mod, exported, new Set(), constantIn);
  }

  /** The module constant a top-level name of `mod` denotes, following imports. */
  resolveLocalConstant(mod: SourceModule, name: string): ModuleConstant | undefined {
    return this.resolveLocal(mod, name, new Set(), constantIn);
  }

  /** The interface, type alias or class a name used in `mod` denotes, following imports. */
  resolveType(mod: SourceModule, name: string): TypeSymbol | undefined {
    return this.resolveLocal(mod, name, new Set(), typeIn);
  }

  /** What `exported` of `mod` names, through `export { … }`, `export … from` and `export *`. */
  private resolveExported<T>(
    mod: SourceModule,
    exported: string,
    seen: Set<string>,
    find: Finder<T>,
  ): T | undefined {
    const key = `${mod.file}#${exported}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    const local = mod.exports.get(exported);
    if (local !== undefined) return this.resolveLocal(mod, local, seen, find);
    const reexport = mod.reexports.get(exported);
    if (reexport) {
      const target = this.importedModule(mod, reexport.specifier);
      return target && this.resolveExported(target, reexport.imported, seen, find);
    }
    if (exported === "default") return undefined;
    for (const specifier of mod.starExports) {
      const target = this.importedModule(mod, specifier);
      const found = target && this.resolveExported(target, exported, seen, find);
      if (found) return found;
    }
    return undefined;
  }

  /** What a top-level name of `mod` names: declared there, or imported from another file. */
  private resolveLocal<T>(
    mod: SourceModule,
    name: string,
    seen: Set<string>,
    find: Finder<T>,
  ): T | undefined {
    const found = find(mod, name);
    if (found) return found;
    const binding = mod.imports.get(name);
    if (!binding || binding.imported === "*") return undefined;
    const target = this.importedModule(mod, binding.specifier);
    return target && this.resolveExported(target, binding.imported, seen, find);
  }
}

/** How the module of an npm package is named in function keys. */
export function packageFile(specifier: string): string {
  return `package:${specifier}`;
}

/** The `.d.ts` file of package `specifier` as seen from `fromFile`, looking up node_modules. */
function findDeclarations(fromFile: string, specifier: string): string | undefined {
  for (let dir = dirname(fromFile); ; dir = dirname(dir)) {
    const base = resolve(dir, "node_modules", specifier);
    const manifest = resolve(base, "package.json");
    if (existsSync(manifest)) {
      const json = JSON.parse(readFileSync(manifest, "utf8")) as {
        types?: string;
        typings?: string;
      };
      const types = resolve(base, json.types ?? json.typings ?? "index.d.ts");
      return existsSync(types) ? types : undefined;
    }
    if (existsSync(`${base}.d.ts`)) return `${base}.d.ts`;
    if (dirname(dir) === dir) return undefined;
  }
}

const declaredIn: Finder<FunctionSymbol> = (mod, name) => {
  const node = mod.declaredFunctions.get(name) ?? mod.functions.get(name);
  return node && { module: mod, name, node };
};

/** Looks a name up among one module's own declarations. */
type Finder<T> = (mod: SourceModule, name: string) => T | undefined;

const functionIn: Finder<FunctionSymbol> = (mod, name) => {
  const node = mod.functions.get(name);
  return node && { module: mod, name, node };
};

/** An interface, type alias or class found by name, with the module that declares it. */
export interface TypeSymbol {
  module: SourceModule;
  name: string;
  node: TypeDeclaration;
}

const typeIn: Finder<TypeSymbol> = (mod, name) => {
  const node = mod.types.get(name);
  return node && { module: mod, name, node };
};

const constantIn: Finder<ModuleConstant> = (mod, name) => mod.constants.get(name);
