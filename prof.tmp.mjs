import { compileProgram } from "./dist/src/compiler/compile.js";
import { scalingProgram } from "./dist/bench/compile-scaling.js";
import { readFileSync } from "node:fs";
const [shape, n] = process.argv.slice(2);
const file = "/tmp/scale/prof-" + shape + ".ts";
const src = shape.endsWith(".ts") ? readFileSync(shape, "utf8") : scalingProgram(shape, Number(n));
const t = performance.now();
const r = compileProgram([shape.endsWith(".ts") ? shape : file], { sources: new Map([[file, src]]) });
console.log(shape, n, (performance.now() - t).toFixed(0), "ms", r.diagnostics.length, "diagnostics");
if (r.diagnostics.length) { const { formatDiagnostics } = await import("./dist/src/compiler/diagnostics/report.js"); console.log(formatDiagnostics(r.diagnostics, r.sourceText).slice(0, 1500)); }
