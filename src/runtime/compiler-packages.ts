// The runtime needs nothing but itself; the compiler needs the packages below, which are
// optional dependencies so that a runtime-only install (`npm install nabla --omit=optional`:
// running precompiled output, or a bundle's server side) stays small and has no native
// binaries. When one is missing, the entry points say so instead of Node's bare
// "Cannot find package".

/** The packages the compiler needs (and so the loader, the plugin and the command). */
export const COMPILER_PACKAGES = [
  "oxc-parser",
  "oxc-transform",
  "@babel/code-frame",
  "@jridgewell/gen-mapping",
  "@jridgewell/remapping",
  "magic-string",
] as const;

/** The packages only the plugin (filters, bundler glue) and the command (tsconfig) need. */
const TOOL_PACKAGES = ["picomatch", "unplugin", "get-tsconfig"] as const;

/** The optional package `error` reports missing, if it is a failure to load one. */
export function missingCompilerPackage(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return [...COMPILER_PACKAGES, ...TOOL_PACKAGES].find(
    (name) => message.includes(`'${name}'`) || message.includes(`"${name}"`),
  );
}

/** What to tell a user whose install lacks a compiler package. */
export function missingCompilerAdvice(name: string): string {
  return (
    `nabla's compiler needs the package '${name}', which is not installed: nabla was installed ` +
    `without its optional dependencies (npm's --omit=optional), which leaves only the runtime. ` +
    `Install nabla again without --omit=optional to compile`
  );
}
