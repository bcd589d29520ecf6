// What a TensorFlow.js version of a GradBench eval provides (bench/gradbench/tfjs-*.ts): from
// the eval's JSON input, tensors made once (GradBench's "prepare"), then the primal and the
// derivative as functions returning GradBench's output shape as plain numbers and arrays (each
// call creates and frees its own tensors with tf.tidy), and `dispose` for the prepared tensors.
// All of it in float32 on the pure-JavaScript 'cpu' backend (bench/tfjs.ts: initTfjs).

import type { Json } from "./compare.js";

export interface TfjsPrepared {
  primal(): Json;
  derivative(): Json;
  dispose(): void;
}

export interface TfjsEval {
  prepare(input: unknown): TfjsPrepared;
  /**
   * Small inputs on which the derivative is also checked against nabla's, where the workloads
   * alone would make a weak check (ode's gradients on the workloads underflow to 0).
   */
  extraChecks?: unknown[];
  /** Time only this many workloads (the first ones): for a version that takes seconds a call. */
  maxWorkloads?: number;
}
