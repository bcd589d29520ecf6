// The evals that have a TensorFlow.js version (bench/gradbench/tfjs-<eval>.ts).

import { gmm } from "./tfjs-gmm.js";
import { kmeans } from "./tfjs-kmeans.js";
import { llsq } from "./tfjs-llsq.js";
import { lse } from "./tfjs-lse.js";
import { lstm } from "./tfjs-lstm.js";
import { ode } from "./tfjs-ode.js";
import type { TfjsEval } from "./tfjs-eval.js";

export const TFJS_EVALS: { [evalName: string]: TfjsEval } = { llsq, lse, ode, kmeans, gmm, lstm };
