// Repro: an integer typed array (Uint8Array, Int32Array…) as non-differentiated data is refused.
import { gradient } from "nabla";

interface Dataset {
  xs: number[];
  labels: Uint8Array;
}
function loss(w: number, data: Dataset): number {
  let s = 0;
  data.xs.forEach((x, i) => (s += (w * x - data.labels[i]) ** 2));
  return s;
}
console.log(gradient(loss, { wrt: 0 })(0.5, { xs: [1, 2], labels: Uint8Array.of(1, 0) }));
