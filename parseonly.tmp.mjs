import { parseSync } from "oxc-parser";
import { readFileSync } from "node:fs";
const f = process.argv[2];
const r = parseSync(f, readFileSync(f, "utf8"));
console.log("parsed", r.errors.length, JSON.stringify(r.errors).slice(0,300));
