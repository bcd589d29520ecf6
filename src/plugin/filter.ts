import { isAbsolute, relative, resolve, sep } from "node:path";
import picomatch from "picomatch";

// The include/exclude filter as the bundler ecosystem writes it (Rollup's and unplugin's
// `createFilter`): a RegExp, a glob string, or an array of either. Globs are matched against
// the file's path relative to the working folder and against its absolute path, so
// `"src/**/*.ts"`, `"**/*.ts"` and `"/abs/path/**"` all mean what they say.

/** One pattern or several: RegExps tested against the absolute path, or globs. */
export type FilterPattern = string | RegExp | readonly (string | RegExp)[];

/** A test of an absolute path against patterns; `undefined` patterns match nothing. */
export function matcher(
  patterns: FilterPattern | undefined,
  cwd: string = process.cwd(),
): (file: string) => boolean {
  if (patterns === undefined) return () => false;
  const list = (Array.isArray(patterns) ? patterns : [patterns]) as (string | RegExp)[];
  const tests = list.map((pattern): ((file: string) => boolean) => {
    if (pattern instanceof RegExp) {
      // A global or sticky RegExp keeps state between tests; a fresh copy does not.
      const re = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
      return (file) => re.test(file);
    }
    if (typeof pattern !== "string") {
      throw new TypeError(`nabla plugin: a filter pattern must be a string or a RegExp`);
    }
    const glob = isAbsolute(pattern) ? pattern : resolve(cwd, pattern);
    const isMatch = picomatch(toPosix(glob), { dot: true });
    const isRelativeMatch = picomatch(toPosix(pattern), { dot: true });
    return (file) => isMatch(toPosix(file)) || isRelativeMatch(toPosix(relative(cwd, file)));
  });
  return (file) => tests.some((t) => t(file));
}

function toPosix(path: string): string {
  return sep === "\\" ? path.split(sep).join("/") : path;
}
