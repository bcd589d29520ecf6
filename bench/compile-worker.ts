import { parentPort, workerData } from "node:worker_threads";
import { measureCompileTime } from "./compile-time.js";

// measureCompileTime on a thread of its own, so its first compile is cold (see
// measureCompileTimeOffThread).

const { file, source, runs } = workerData as { file: string; source: string; runs: number };
parentPort!.postMessage(measureCompileTime(file, source, runs));
