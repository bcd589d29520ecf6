// Fitting a line to noisy points by gradient descent: the gradient of the squared error with
// respect to the slope and the intercept comes from nabla's reverse mode.
import { valueWithGradient } from "nabla";

const xs = [0, 1, 2, 3, 4, 5, 6, 7];
const ys = [1.1, 2.9, 5.2, 7.1, 8.8, 11.2, 13.1, 14.8];

/** Squared error of the line y = slope·x + intercept on point i. */
function pointError(slope: number, intercept: number, x: number, y: number): number {
  const r = slope * x + intercept - y;
  return r * r;
}

const step = valueWithGradient(pointError, { wrt: [0, 1] });
let slope = 0;
let intercept = 0;
for (let epoch = 0; epoch < 5000; epoch++) {
  let loss = 0;
  let dSlope = 0;
  let dIntercept = 0;
  for (let i = 0; i < xs.length; i++) {
    const { value, gradient } = step(slope, intercept, xs[i]!, ys[i]!);
    loss += value;
    dSlope += gradient[0];
    dIntercept += gradient[1];
  }
  slope -= 0.002 * dSlope;
  intercept -= 0.002 * dIntercept;
  if (epoch % 1000 === 0) console.log(`epoch ${epoch}: loss ${loss.toFixed(4)}`);
}
console.log(`y ≈ ${slope.toFixed(3)}·x + ${intercept.toFixed(3)}`);
