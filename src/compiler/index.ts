// What `nabla/compiler` exports: the compiler as a library, for tools that drive it (the Node
// loader, the bundler plugin, editors, build scripts).

/**
 * The nabla compiler as a library, for tools that drive it: {@link compileProgram} compiles a
 * program from its entry files into JavaScript with the derivative code, and
 * {@link IncrementalCompiler} serves a host that loads one file at a time (a loader, a
 * bundler). Diagnostics are plain data ({@link Diagnostic}) that {@link formatDiagnostics}
 * prints the way the `nabla` command does.
 *
 * @module nabla/compiler
 */

export { compileProgram, type CompileOptions, type CompileResult } from "./compile.js";
export type { ModuleOutput } from "./emit/js/module.js";
export type { PassName, PassObserver, PipelineName } from "./differentiate/pipeline.js";
export type { PathKind } from "./parse/program.js";
export type { Diagnostic, DiagnosticNote, Severity } from "./diagnostics/diagnostic.js";
export { formatDiagnostics } from "./diagnostics/report.js";
export { formatDiagnostic, type FormatOptions, type SourceLookup } from "./diagnostics/format.js";
export { IncrementalCompiler, type FileResult } from "./incremental.js";
