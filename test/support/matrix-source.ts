// Source text shared by tests of programs written as people write them.

/** A matrix product of arrays of rows built by `push`, as TypeScript developers write it. */
export const MAT_MUL = `function matMul(a: number[][], b: number[][]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < a.length; i++) {
    const row: number[] = [];
    for (let j = 0; j < b[0].length; j++) {
      let sum = 0;
      for (let t = 0; t < b.length; t++) sum += a[i][t] * b[t][j];
      row.push(sum);
    }
    out.push(row);
  }
  return out;
}`;
