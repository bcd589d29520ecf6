import { dirname } from "node:path";
import { createPathsMatcher, getTsconfig, type TsConfigResult } from "get-tsconfig";

// Import specifiers that name files of the project without being relative: the aliases of
// the nearest tsconfig.json's `compilerOptions.paths` (`"@/*": ["src/*"]`, with its `baseUrl`
// and `extends`), read by get-tsconfig as TypeScript reads them. Without a tsconfig, or with
// no `paths`, a specifier that is not relative names a package.

type Matcher = (specifier: string) => string[];

const tsconfigs = new Map<string, TsConfigResult | null>();
const matchers = new WeakMap<TsConfigResult, Matcher | null>();

/** The absolute paths an aliased specifier may name, in the order TypeScript tries them. */
export function aliasCandidates(fromFile: string, specifier: string): string[] {
  if (specifier.startsWith(".") || specifier.startsWith("/")) return [];
  const dir = dirname(fromFile);
  let tsconfig = tsconfigs.get(dir);
  if (tsconfig === undefined) {
    tsconfig = readTsconfig(dir);
    tsconfigs.set(dir, tsconfig);
  }
  if (!tsconfig) return [];
  let matcher = matchers.get(tsconfig);
  if (matcher === undefined) {
    matcher = createPathsMatcher(tsconfig);
    matchers.set(tsconfig, matcher);
  }
  return matcher ? matcher(specifier) : [];
}

/** Forgets the tsconfig files read (a watcher calls it when one changes). */
export function forgetTsconfigs(): void {
  tsconfigs.clear();
}

function readTsconfig(dir: string): TsConfigResult | null {
  try {
    return getTsconfig(dir);
  } catch {
    // A tsconfig.json TypeScript itself could not read: no aliases, as without one.
    return null;
  }
}
