import { Worker, isMainThread, workerData } from "node:worker_threads";
import { parseSync } from "oxc-parser";
import { readFileSync } from "node:fs";
if (isMainThread) {
  const w = new Worker(new URL(import.meta.url), { workerData: process.argv[2], resourceLimits: { stackSizeMb: Number(process.argv[3]) } });
  w.on("exit", c => console.log("worker exit", c)); w.on("error", e => console.log("worker error", e.message));
} else {
  const r = parseSync(workerData, readFileSync(workerData, "utf8"));
  console.log("parsed in worker", r.errors.length);
}
