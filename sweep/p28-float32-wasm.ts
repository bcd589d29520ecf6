// Float32Array image-like convolution with clamped borders; gradient in js and wasm.
import { gradient, differential, pullback, jacobian } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

const W = 5;
const H = 4;
const KERNEL = [1, 2, 1, 2, 4, 2, 1, 2, 1].map((k) => k / 16);

function blur(img: Float64Array): Float64Array {
  const out = new Float64Array(img.length);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let acc = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const sx = Math.min(W - 1, Math.max(0, x + dx));
          const sy = Math.min(H - 1, Math.max(0, y + dy));
          acc += KERNEL[(dy + 1) * 3 + dx + 1] * img[sy * W + sx];
        }
      }
      out[y * W + x] = acc;
    }
  }
  return out;
}

function sharpnessLoss(img: Float64Array, target: Float64Array): number {
  const b = blur(blur(img));
  let loss = 0;
  for (let i = 0; i < b.length; i++) {
    const d = b[i] - target[i];
    loss += d * d + 0.01 * Math.abs(img[i]);
  }
  return loss;
}

const img = Float64Array.from({ length: W * H }, (_, i) => Math.sin(i * 1.3) + 0.1);
const target = Float64Array.from({ length: W * H }, (_, i) => Math.cos(i * 0.7));
const g = gradient(sharpnessLoss, { wrt: 0 })(img, target);
compare(
  "grad vs fd",
  g,
  fdGrad((v) => sharpnessLoss(Float64Array.from(v), target), [...img]),
);
const dir = Float64Array.from(img, (_, i) => (i % 2 ? 1 : -1));
compare(
  "fwd vs rev",
  differential(sharpnessLoss, { wrt: 0 })(img, target)(dir),
  g.reduce((s, gi, i) => s + gi * dir[i], 0),
);
compare("wasm", gradient(sharpnessLoss, { wrt: 0, backend: "wasm" })(img, target), g);
const pb = pullback(blur)(img)(target);
const Jr = jacobian(blur, { mode: "reverse" })(img);
const Jf = jacobian(blur, { mode: "forward" })(img);
compare("jac f vs r", Jf, Jr);
compare(
  "pullback vs J^T t",
  pb,
  [...img].map((_, j) => Jr.reduce((s: number, row, i) => s + row[j] * target[i], 0)),
);
summary("p28-float32-wasm");
