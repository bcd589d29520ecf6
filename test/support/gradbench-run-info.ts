import type { RunInfo } from "../../bench/gradbench/results.js";

/** The facts of a made-up benchmark run, for tests of the GradBench report. */
export const TEST_RUN_INFO: RunInfo = {
  date: "2026-01-01",
  command: "npm run bench:gradbench",
  node: "v20.0.0",
  cpu: "Test CPU",
  logicalCpus: 2,
  platform: "linux x64",
  loadStart: [0.5, 0.5, 0.5],
  loadEnd: [0.7, 0.6, 0.5],
  tfjsVersion: null,
  seconds: 0.5,
  capSeconds: 1,
  warmupSeconds: 0.25,
  durationMs: 1000,
  full: true,
  cpp: null,
  wasm: false,
};
