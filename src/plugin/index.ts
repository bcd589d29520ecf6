/**
 * The nabla bundler plugin, for Vite (and Vitest), Rollup, esbuild and webpack: it compiles
 * each TypeScript module of an app with its derivatives, with a source map back to the
 * source. The default export holds one plugin per bundler ({@link default}).
 *
 * @module nabla/plugin
 */

import { fileURLToPath } from "node:url";
import { createUnplugin, type SourceMapCompact, type UnpluginInstance } from "unplugin";
import { IncrementalCompiler } from "../compiler/incremental.js";
import { formatDiagnostics } from "../compiler/diagnostics/report.js";
import { resolveImport } from "../compiler/parse/program.js";
import { matcher, type FilterPattern } from "./filter.js";
import { ServedModules, type DevServer } from "./dev-server.js";

// The bundler plugin: one unplugin transform serves Vite, Rollup, esbuild and webpack. Each
// TypeScript module is replaced by nabla's output for it (types stripped, operator calls
// replaced, derivatives appended), with a source map back to the user's source.

/** Options of the nabla bundler plugin. */
export interface NablaPluginOptions {
  /**
   * Files to compile: a RegExp tested against the absolute path, a glob (relative to the
   * working folder, or absolute), or an array of them. Default: TypeScript files (`.ts`,
   * `.mts`, `.cts`).
   */
  include?: FilterPattern;
  /**
   * Files to leave to the bundler, in the same forms as `include`. Default: anything under
   * `node_modules` and `.d.ts` files.
   */
  exclude?: FilterPattern;
  /**
   * The backend of the derivative of every operator call that names none (a call's own
   * `backend` option wins): `"wasm"` (WebAssembly where the function qualifies, JavaScript
   * elsewhere, without a warning per call), `"auto"` (WebAssembly where it qualifies and
   * loops over array elements) or `"js"`. Default: `"js"`.
   */
  backend?: "js" | "wasm" | "auto";
}

export type { FilterPattern };

const DEFAULT_INCLUDE = /\.(c|m)?ts$/;
const DEFAULT_EXCLUDE = /[\\/]node_modules[\\/]|\.d\.(c|m)?ts$/;
const RUNTIME = fileURLToPath(new URL("../runtime/index.js", import.meta.url));

/** The file a module id names: bundlers may add a query (`?v=…`) or a null-byte prefix. */
function fileOf(id: string): string {
  return id.replace(/[?#].*$/, "");
}

/**
 * The nabla plugin for each bundler: `nabla.vite()`, `nabla.rollup()`, `nabla.esbuild()`,
 * `nabla.webpack()` (and the other bundlers unplugin supports).
 *
 * @example
 * ```ts
 * // vite.config.ts
 * import { defineConfig } from "vite";
 * import nabla from "nabla/plugin";
 * export default defineConfig({ plugins: [nabla.vite()] });
 * ```
 */
const nabla: UnpluginInstance<NablaPluginOptions | undefined, false> = createUnplugin(
  (options: NablaPluginOptions | undefined) => {
    const include = matcher(options?.include ?? DEFAULT_INCLUDE);
    const exclude = matcher(options?.exclude ?? DEFAULT_EXCLUDE);
    const backend = options?.backend;
    // A misspelt backend would otherwise quietly give JavaScript.
    if (backend !== undefined && backend !== "js" && backend !== "wasm" && backend !== "auto")
      throw new Error(
        `nabla: the plugin's 'backend' option is "js", "wasm" or "auto", not ${JSON.stringify(backend)}`,
      );
    const compiler = new IncrementalCompiler(backend ? { backend } : {});
    const served = new ServedModules();
    const wanted = (id: string) => {
      const file = fileOf(id);
      return !id.startsWith("\0") && include(file) && !exclude(file);
    };
    return {
      name: "nabla",
      enforce: "pre",
      resolveId(specifier, importer) {
        if (specifier === "nabla" || specifier === "nabla/runtime") return RUNTIME;
        // `./lib.js` names `./lib.ts` in TypeScript's NodeNext style; some bundlers only
        // look for the file as written, and few read the tsconfig's `paths` aliases.
        // An absolute path is the bundler's own answer: left alone.
        if (importer && !specifier.startsWith("/") && wanted(importer)) {
          const file = resolveImport(fileOf(importer), specifier);
          if (file && wanted(file)) return file;
        }
        return null;
      },
      transformInclude: wanted,
      transform(code, id) {
        const file = fileOf(id);
        const result = compiler.compile(file, code);
        const format = () =>
          formatDiagnostics(result.diagnostics, result.sourceText, { cwd: process.cwd() });
        if (!result.output) {
          // Throwing is the one way to fail a build that every bundler understands.
          throw new Error(`nabla could not compile ${file}:\n${format()}`);
        }
        if (result.fresh && result.diagnostics.length > 0) this.warn(format());
        served.record(file, result.output.code);
        if (result.fresh) served.invalidateChanged((f) => compiler.currentOutput(f)?.code);
        return { code: result.output.code, map: result.output.map as unknown as SourceMapCompact };
      },
      watchChange(id, change) {
        compiler.invalidate(fileOf(id), change.event === "delete");
        served.forget(fileOf(id));
      },
      vite: {
        configureServer(server) {
          served.attach(server as unknown as DevServer);
        },
      },
      esbuild: {
        // esbuild resolves `./lib.js` to `./lib.ts` itself, and puts what a plugin resolves
        // in the plugin's own namespace, so only the runtime is resolved here.
        onResolveFilter: /^\b\B$/,
        setup(build) {
          build.onResolve({ filter: /^nabla(\/runtime)?$/ }, () => ({ path: RUNTIME }));
        },
        loader: "js",
      },
    };
  },
);

export default nabla;
