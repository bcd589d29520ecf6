import { parentPort, workerData } from "node:worker_threads";
import { measureScaling, type ScalingShape } from "./compile-scaling.js";

// Measures one scaling point on a thread with a large stack, as the `nabla` command compiles
// (src/compiler/large-stack.ts): a long chain of calls is compiled by recursion.

const { file, shape, lines, runs } = workerData as {
  file: string;
  shape: ScalingShape;
  lines: number;
  runs: number;
};
parentPort!.postMessage(measureScaling(file, shape, lines, runs));
