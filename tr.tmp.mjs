import { transformSync } from "oxc-transform";
import { readFileSync } from "node:fs";
const f = process.argv[2];
const r = transformSync(f, readFileSync(f, "utf8"), { typescript: {}, sourcemap: true });
console.log(r.errors.length, r.code.slice(0, 300));
