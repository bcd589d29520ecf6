// Arrays of objects: fill with a shared object (aliasing!), map copies, structuredClone.
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface Cell {
  value: number;
  weight: number;
}

function sharedFill(xs: number[]): number {
  const shared: Cell = { value: 0, weight: 1 };
  const cells: Cell[] = new Array(xs.length).fill(shared); // every slot is the same object
  xs.forEach((x, i) => {
    cells[i].value += x * (i + 1);
  });
  return cells.reduce((s, c) => s + c.value * c.value, 0);
}

function copiedCells(xs: number[]): number {
  const base: Cell[] = xs.map((x) => ({ value: x, weight: 2 }));
  const copies = base.map((c) => ({ ...c }));
  copies.forEach((c) => (c.value *= c.weight));
  const deep = structuredClone(base);
  deep[0].value = 10;
  return base.reduce((s, c, i) => s + c.value * copies[i].value + deep[i].value, 0);
}

const x = [0.5, -1, 2];
const g1 = gradient(sharedFill)(x);
compare("shared grad vs fd", g1, fdGrad(sharedFill, x));
compare("shared fwd vs rev", differential(sharedFill)(x)([1, 2, 3]), g1[0] + 2 * g1[1] + 3 * g1[2]);
const g2 = gradient(copiedCells)(x);
compare("copies grad vs fd", g2, fdGrad(copiedCells, x));
compare(
  "copies fwd vs rev",
  differential(copiedCells)(x)([1, 2, 3]),
  g2[0] + 2 * g2[1] + 3 * g2[2],
);
summary("p20-shared-fill");
