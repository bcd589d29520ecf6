import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { FunctionKey, ObjectType, Type } from "../ir/types.js";
import { functionKey } from "../ir/function-key.js";
import type { Registration } from "./registrations.js";
import {
  parseModule,
  type FunctionLike,
  type ModuleConstant,
  type SourceModule,
  type TypeDeclaration,
} from "./module.js";
import { aliasCandidates } from "./import-paths.js";
import type { TSEnumDeclaration } from "oxc-parser";

// The user's program as a graph of modules. Relative imports are resolved to files the way
// TypeScript's `bundler`/`nodenext` resolution does for sources: `./b`, `./b.ts`, and `./b.js`
// written for a `b.ts` file all name `b.ts`; so are the aliases of the project's tsconfig
// `paths` (`@/geometry`, see import-paths.ts). Other specifiers name packages.

const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs"];

export function isRelativeSpecifier(specifier: string): boolean {
  return specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("/");
}

/** What a path is, as module resolution sees it. */
export type PathKind = "file" | "other" | "none";

/** What `path` is on disk now: a file, something else (a folder), or nothing. */
export function pathKind(path: string): PathKind {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return !stat ? "none" : stat.isFile() ? "file" : "other";
  } catch {
    // ENOTDIR and the like: a path through a file names nothing.
    return "none";
  }
}

/**
 * The file a relative import names, trying the candidates in order. `kindOf` sees every path
 * tried, so a caller can remember them (a cached compile is stale when one of them changes).
 */
export function resolveRelative(
  fromFile: string,
  specifier: string,
  kindOf: (path: string) => PathKind = pathKind,
): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base];
  // Type declarations refer to each other by the names of the JavaScript files they describe.
  if (fromFile.endsWith(".d.ts")) candidates.unshift(base.replace(/\.(m|c)?js$/, "") + ".d.ts");
  const jsMatch = /\.(m|c)?js$/.exec(base);
  if (jsMatch) candidates.push(base.slice(0, -jsMatch[0].length) + `.${jsMatch[1] ?? ""}ts`);
  for (const ext of EXTENSIONS) candidates.push(base + ext);
  for (const ext of EXTENSIONS) candidates.push(resolve(base, "index" + ext));
  return candidates.find((c) => kindOf(c) === "file");
}

/**
 * The file an import of `fromFile` names: a relative specifier, or an alias of the project's
 * tsconfig `paths`; undefined for a package (or a file that does not exist).
 */
export function resolveImport(
  fromFile: string,
  specifier: string,
  kindOf: (path: string) => PathKind = pathKind,
): string | undefined {
  if (isRelativeSpecifier(specifier)) return resolveRelative(fromFile, specifier, kindOf);
  for (const candidate of aliasCandidates(fromFile, specifier)) {
    const file = resolveRelative(fromFile, candidate, kindOf);
    if (file) return file;
  }
  return undefined;
}

/** Whether an import of `fromFile` names a file of the project (relative, or a `paths` alias). */
export function isLocalSpecifier(fromFile: string, specifier: string): boolean {
  return isRelativeSpecifier(specifier) || resolveImport(fromFile, specifier) !== undefined;
}

/** A function found by name, with the module that declares it. */
export interface FunctionSymbol {
  module: SourceModule;
  name: string;
  node: FunctionLike;
  /** For a method: the class instance type `this` has (its first IR parameter). */
  thisType?: ObjectType;
  /** For a constructor: the instance it builds (`this` in its body) and returns. */
  constructs?: ObjectType;
  /** For a getter: read as a property where it runs as JavaScript. */
  getter?: boolean;
  /** For a setter: run as an assignment of the property where it runs as JavaScript. */
  setter?: boolean;
  /** For a member of a generic class's instantiation: what its type parameters stand for. */
  typeArguments?: ReadonlyMap<string, Type>;
}

/** A derivative rule the program registers (see resolve/rules.ts, which checks it). */
export interface DerivativeRule {
  /** The function the rule is for (its key is the key of calls to it). */
  key: FunctionKey;
  symbol: FunctionSymbol;
  registration: Registration;
  /** The module-level constant the registering module keeps the rule in. */
  constName: string;
  /** How the registering module names the function. */
  targetName: string;
  params: { name: string; type: Type }[];
  result: Type;
  hasForward: boolean;
  hasReverse: boolean;
}

export type RuleTable = Map<FunctionKey, DerivativeRule>;

export class ProgramGraph {
  private readonly modules = new Map<string, SourceModule>();
  /** The derivatives the program registers (see resolve/rules.ts), filled by the driver. */
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

  /** Every path resolution looked at, with what it was then. */
  private readonly probed = new Map<string, PathKind>();
  /** Files read that are not modules (package manifests), with their text then. */
  private readonly otherReads = new Map<string, string>();

  /** `overrides` supplies source text for files not on disk, or newer than the disk copy. */
  constructor(
    /** The types phase, run on each module as it loads (the driver passes it: parse comes first). */
    private readonly typeModule: (mod: SourceModule) => void,
    private readonly overrides: Map<string, string> = new Map(),
  ) {}

  /** What `path` is, looked at once per compile and remembered (see {@link probes}). */
  readonly kindOf = (path: string): PathKind => {
    let kind = this.probed.get(path);
    if (kind === undefined) this.probed.set(path, (kind = pathKind(path)));
    return kind;
  };

  /** The file a relative or aliased import of `fromFile` names, as {@link resolveImport}. */
  resolveRelative(fromFile: string, specifier: string): string | undefined {
    return resolveImport(fromFile, specifier, this.kindOf);
  }

  /**
   * Every path module resolution looked at and what it was (a file, something else, nothing):
   * a compile depends on these as much as on the files it read. A file appearing where there
   * was none (`lib.ts` next to `lib/index.ts`) can change what an import names.
   */
  probes(): Map<string, PathKind> {
    return new Map(this.probed);
  }

  /** Every file read, modules and package manifests, with its text. */
  inputs(): Map<string, string> {
    return new Map([
      ...[...this.modules.values()].map((m) => [m.file, m.text] as const),
      ...this.otherReads,
    ]);
  }

  load(file: string): SourceModule {
    let mod = this.modules.get(file);
    if (!mod) {
      const text = this.overrides.get(file) ?? readFileSync(file, "utf8");
      mod = parseModule(file, text);
      this.modules.set(file, mod);
      this.typeModule(mod);
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
    const file = this.findDeclarations(from.file, specifier);
    if (!file) return undefined;
    const found = this.resolveExported(this.load(file), exported, new Set(), declaredIn);
    return found && { ...found, module: { ...found.module, file: packageFile(specifier) } };
  }

  /**
   * A constant of an npm package, from its type declarations (`export declare const K: number`):
   * its type, for a read of it in differentiated code (the read is of the imported name).
   */
  packageConstant(
    from: SourceModule,
    specifier: string,
    exported: string,
  ): ModuleConstant | undefined {
    const file = this.findDeclarations(from.file, specifier);
    return file
      ? this.resolveExported(this.load(file), exported, new Set(), constantIn)
      : undefined;
  }

  loadedModules(): SourceModule[] {
    return [...this.modules.values()];
  }

  /** The module a relative import of `mod` refers to, parsed; undefined for packages. */
  importedModule(mod: SourceModule, specifier: string): SourceModule | undefined {
    const file = this.resolveRelative(mod.file, specifier);
    return file ? this.load(file) : undefined;
  }

  /** The `.d.ts` file of package `specifier` as seen from `fromFile`, looking up node_modules. */
  private findDeclarations(fromFile: string, specifier: string): string | undefined {
    for (let dir = dirname(fromFile); ; dir = dirname(dir)) {
      const base = resolve(dir, "node_modules", specifier);
      const manifest = resolve(base, "package.json");
      if (this.kindOf(manifest) !== "none") {
        const text = this.overrides.get(manifest) ?? readFileSync(manifest, "utf8");
        this.otherReads.set(manifest, text);
        const json = JSON.parse(text) as { types?: string; typings?: string };
        const types = resolve(base, json.types ?? json.typings ?? "index.d.ts");
        return this.kindOf(types) !== "none" ? types : undefined;
      }
      if (this.kindOf(`${base}.d.ts`) !== "none") return `${base}.d.ts`;
      if (dirname(dir) === dir) return undefined;
    }
  }

  /**
   * The module a top-level name of `mod` holds as a namespace: `import * as ns from "./m"`, or
   * an imported name another module exports as one (`export * as ns from "./m"`, `import * as
   * m …; export { m }`), through re-exports.
   */
  namespaceModule(
    mod: SourceModule,
    name: string,
    seen = new Set<string>(),
  ): SourceModule | undefined {
    const binding = mod.imports.get(name);
    if (!binding || binding.typeOnly) return undefined;
    const target = this.importedModule(mod, binding.specifier);
    if (!target || binding.imported === "*") return target;
    return this.exportedNamespace(target, binding.imported, seen);
  }

  /** The namespace `mod` exports as `exported` (`export * as ns from "./m"`), if it does. */
  exportedNamespace(
    mod: SourceModule,
    exported: string,
    seen = new Set<string>(),
  ): SourceModule | undefined {
    const key = functionKey(mod.file, exported);
    if (seen.has(key)) return undefined;
    seen.add(key);
    const local = mod.exports.get(exported);
    if (local !== undefined) return this.namespaceModule(mod, local, seen);
    const reexport = mod.reexports.get(exported);
    if (reexport) {
      const target = this.importedModule(mod, reexport.specifier);
      if (!target || reexport.imported === "*") return target;
      return this.exportedNamespace(target, reexport.imported, seen);
    }
    if (exported === "default") return undefined;
    for (const specifier of mod.starExports) {
      const target = this.importedModule(mod, specifier);
      const found = target && this.exportedNamespace(target, exported, seen);
      if (found) return found;
    }
    return undefined;
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

  /**
   * The module constant `path` denotes in `mod` (a top-level name, or `ns.name` of a namespace
   * import), with the module that declares it.
   */
  resolveConstantWhere(
    mod: SourceModule,
    path: string,
  ): { module: SourceModule; constant: ModuleConstant } | undefined {
    const [head, member, ...rest] = path.split(".");
    if (member === undefined) return this.resolveLocal(mod, head!, new Set(), constantWhere);
    const namespace = rest.length === 0 ? this.namespaceModule(mod, head!) : undefined;
    return namespace && this.resolveExported(namespace, member, new Set(), constantWhere);
  }

  /** The interface, type alias or class a name used in `mod` denotes, following imports. */
  resolveType(mod: SourceModule, name: string): TypeSymbol | undefined {
    // `geo.Vec`: a type of a module imported as a namespace (`import * as geo from "./geo"`).
    const dot = name.lastIndexOf(".");
    if (dot > 0) {
      const target = this.namespaceAt(mod, name.slice(0, dot));
      return target && this.resolveExported(target, name.slice(dot + 1), new Set(), typeIn);
    }
    return this.resolveLocal(mod, name, new Set(), typeIn);
  }

  /** Whether `from` imports `to`, directly or through the modules it imports (not types only). */
  reaches(from: SourceModule, to: SourceModule): boolean {
    const seen = new Set<string>([from.file]);
    const queue = [from];
    while (queue.length > 0) {
      const mod = queue.pop()!;
      const specifiers = [
        ...[...mod.imports.values()].filter((b) => !b.typeOnly).map((b) => b.specifier),
        ...[...mod.reexports.values()].map((b) => b.specifier),
        ...mod.starExports,
      ];
      for (const specifier of specifiers) {
        const next = this.importedModule(mod, specifier);
        if (!next || seen.has(next.file)) continue;
        if (next === to) return true;
        seen.add(next.file);
        queue.push(next);
      }
    }
    return false;
  }

  /** The module a dotted path of namespaces names in `mod` (`geo`, `lib.geo`), if it does. */
  namespaceAt(mod: SourceModule, path: string): SourceModule | undefined {
    const [first, ...rest] = path.split(".");
    let target = this.namespaceModule(mod, first!);
    for (const part of rest) target = target && this.exportedNamespace(target, part);
    return target;
  }

  /** The enum a name used in `mod` denotes, following imports. */
  resolveEnum(mod: SourceModule, name: string): EnumSymbol | undefined {
    return this.resolveLocal(mod, name, new Set(), enumIn);
  }

  /** What `exported` of `mod` names, through `export { … }`, `export … from` and `export *`. */
  private resolveExported<T>(
    mod: SourceModule,
    exported: string,
    seen: Set<string>,
    find: Finder<T>,
  ): T | undefined {
    const key = functionKey(mod.file, exported);
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

const constantWhere: Finder<{ module: SourceModule; constant: ModuleConstant }> = (mod, name) => {
  const constant = constantIn(mod, name);
  return constant && { module: mod, constant };
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

/** An enum found by name, with the module that declares it. */
export interface EnumSymbol {
  module: SourceModule;
  node: TSEnumDeclaration;
}

const enumIn: Finder<EnumSymbol> = (mod, name) => {
  const node = mod.enums.get(name);
  return node && { module: mod, node };
};

const constantIn: Finder<ModuleConstant> = (mod, name) => mod.constants.get(name);
