import { compileProgram } from "./dist/src/compiler/compile.js";
import { scalingProgram } from "./dist/bench/compile-scaling.js";
const [shape, n] = process.argv.slice(2);
const file = "/tmp/scale/prof-" + shape + ".ts";
const src = scalingProgram(shape, Number(n));
for (let i = 0; i < 3; i++) {
const t = performance.now();
const r = compileProgram([file], { sources: new Map([[file, src]]) });
console.log(shape, n, (performance.now() - t).toFixed(0), "ms", r.diagnostics.length, "diagnostics");
}
