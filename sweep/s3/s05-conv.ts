// Image filtering: 2-D convolution on number[][] with zero padding, Array.from grids,
// flat()/flatMap, Math.max(...); gradient w.r.t. the kernel, jacobian w.r.t. the image.
import { gradient, jacobian, differential } from "nabla";
import { compare, fdGrad, fdJac, summary } from "./check.ts";

type Image = number[][];

function convolve(img: Image, kernel: Image): Image {
  const h = img.length;
  const w = img[0].length;
  const k = kernel.length;
  const r = Math.floor(k / 2);
  return Array.from({ length: h }, (_, y) =>
    Array.from({ length: w }, (_, x) => {
      let acc = 0;
      for (let dy = -r; dy <= r; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
          acc += img[yy][xx] * kernel[dy + r][dx + r];
        }
      }
      return acc;
    }),
  );
}

function relu(img: Image): Image {
  return img.map((row) => row.map((v) => Math.max(0, v)));
}

function maxPool(img: Image): number[] {
  const out: number[] = [];
  for (let y = 0; y + 1 < img.length; y += 2)
    for (let x = 0; x + 1 < img[0].length; x += 2)
      out.push(Math.max(img[y][x], img[y][x + 1], img[y + 1][x], img[y + 1][x + 1]));
  return out;
}

const image: Image = Array.from({ length: 6 }, (_, y) =>
  Array.from({ length: 6 }, (_, x) => Math.sin(x * 0.9 + y * 0.4) + 0.1 * x),
);
const target = [0.5, 1, 0.2, 0.7, 0.1, 0.9, 0.3, 0.4, 0.8];

function loss(kernelFlat: number[]): number {
  const kernel = [kernelFlat.slice(0, 3), kernelFlat.slice(3, 6), kernelFlat.slice(6, 9)];
  const pooled = maxPool(relu(convolve(image, kernel)));
  const peak = Math.max(...pooled);
  return pooled.reduce((s, p, i) => s + (p - target[i]) ** 2, 0) + 0.1 * peak;
}

function features(pixels: number[]): number[] {
  const img = Array.from({ length: 4 }, (_, y) => pixels.slice(y * 4, y * 4 + 4));
  const edge = [
    [0, -1, 0],
    [-1, 4, -1],
    [0, -1, 0],
  ];
  return convolve(img, edge).flat().flatMap((v, i) => (i % 5 === 0 ? [v, v * v] : [v]));
}

const k0 = [0.1, 0.2, 0.1, 0.0, 0.5, 0.0, -0.1, 0.2, 0.1];
const g = gradient(loss)(k0);
compare("grad vs fd", g, fdGrad(loss, k0));
const dk = k0.map((_, i) => Math.cos(i));
compare("fwd vs rev", differential(loss)(k0)(dk), g.reduce((s, gi, i) => s + gi * dk[i], 0));
const px = Array.from({ length: 16 }, (_, i) => Math.cos(i * 0.7));
const J = jacobian(features)(px);
compare("jacobian vs fd", J, fdJac(features, px));
compare("jacobian fwd vs rev", J, jacobian(features, { mode: "reverse" })(px));
compare("wasm grad", gradient(loss, { backend: "wasm" })(k0), g);
summary("s05-conv");
