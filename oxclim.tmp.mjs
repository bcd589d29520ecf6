import { Worker, isMainThread, workerData } from "node:worker_threads";
import { spawnSync } from "node:child_process";
import { parseSync } from "oxc-parser";
const shapes = {
  parens: n => `export const f = (x) => ${"(".repeat(n)}x${")".repeat(n)};`,
  rmul: n => `export const f = (x) => ${"(x*".repeat(n)}x${")".repeat(n)};`,
  ternary: n => `export const f = (x) => ${"x > 1 ? x : ".repeat(n)}x;`,
  unary: n => `export const f = (x) => ${"- ".repeat(n)}x;`,
  not: n => `export const f = (x) => ${"!".repeat(n)}x;`,
  call: n => `export const f = (x) => ${"g(".repeat(n)}x${")".repeat(n)};`,
  arr: n => `export const f = (x) => ${"[".repeat(n)}x${"]".repeat(n)};`,
  obj: n => `export const f = (x) => (${"{a:".repeat(n)}x${"}".repeat(n)});`,
  elseif: n => `export function f(x) { let r = 0;\n${Array.from({length:n},(_, i)=>`${i?"} else ":""}if (x < ${i}) {\n r = ${i};`).join("\n")}\n}\n return r; }`,
  ifnest: n => `export function f(x) { let r = 0;\n${"if (x > 0) ".repeat(n)} r = 1;\n return r; }`,
  blocks: n => `export function f(x) { ${"{".repeat(n)} x++; ${"}".repeat(n)} return x; }`,
  arrow: n => `export const f = ${"(x) => ".repeat(n)}1;`,
  arrow1: n => `export const f = ${"x => ".repeat(n)}1;`,
  pow: n => `export const f = (x) => ${"x ** ".repeat(n)}1;`,
  assign: n => `let a; export const f = (x) => ${"a = ".repeat(n)}x;`,
  gen: n => `let a: ${"Array<".repeat(n)}number${">".repeat(n)};`,
  arrT: n => `let a: number${"[]".repeat(n)};`,
  fnT: n => `let a: ${"() => ".repeat(n)}number;`,
  union: n => `let a: ${"(A | ".repeat(n)}B${")".repeat(n)};`,
  tmpl: n => `let a = ${"`${".repeat(n)}1${"}`".repeat(n)};`,
  label: n => `${"a: ".repeat(n)}1;`,
  neww: n => `let a = ${"new ".repeat(n)}X;`,
  typeofs: n => `let a = ${"typeof ".repeat(n)}X;`,
  cond_t: n => `type A = ${"X extends Y ? Z : ".repeat(n)}W;`,
};
if (!isMainThread) {
  try { parseSync("a.ts", workerData); } catch (e) { process.exit(3); }
  process.exit(0);
} else if (process.argv[2] === "one") {
  const [, , , name, n, mb] = process.argv;
  const w = new Worker(new URL(import.meta.url), { workerData: shapes[name](Number(n)), resourceLimits: { stackSizeMb: Number(mb) } });
  w.on("exit", c => process.exit(c));
} else {
  const mb = 16;
  for (const name of Object.keys(shapes)) {
    let lo = 10, hi = 400000;
    while (hi - lo > lo * 0.05) {
      const mid = Math.round((lo + hi) / 2);
      const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, "one", name, String(mid), String(mb)]);
      if (r.status === 0) lo = mid; else hi = mid;
    }
    console.log(name.padEnd(8), lo, "levels in", mb, "MB →", Math.round(mb * 1048576 / lo), "bytes/level");
  }
}
