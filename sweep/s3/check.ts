// Shared checking helpers for the sweep-3 programs: central differences and comparisons.
export function fdGrad(f: (x: number[]) => number, x: number[], h = 1e-5): number[] {
  const g: number[] = [];
  for (let i = 0; i < x.length; i++) {
    const xp = x.slice();
    const xm = x.slice();
    xp[i] += h;
    xm[i] -= h;
    g.push((f(xp) - f(xm)) / (2 * h));
  }
  return g;
}

export function fd1(f: (x: number) => number, x: number, h = 1e-5): number {
  return (f(x + h) - f(x - h)) / (2 * h);
}

// Jacobian by central differences: one row per output, one column per input.
export function fdJac(f: (x: number[]) => number[], x: number[], h = 1e-5): number[][] {
  const cols = x.map((_, i) => {
    const xp = x.slice();
    const xm = x.slice();
    xp[i] += h;
    xm[i] -= h;
    const a = f(xp);
    const b = f(xm);
    return a.map((v, k) => (v - b[k]) / (2 * h));
  });
  return cols[0].map((_, r) => cols.map((c) => c[r]));
}

export function flat(v: unknown): number[] {
  if (typeof v === "number") return [v];
  if (Array.isArray(v) || ArrayBuffer.isView(v))
    return Array.from(v as ArrayLike<unknown>).flatMap(flat);
  if (v && typeof v === "object")
    return Object.keys(v)
      .sort()
      .flatMap((k) => flat((v as Record<string, unknown>)[k]));
  return [];
}

let failures = 0;
export function compare(label: string, a: unknown, b: unknown, tol = 1e-5): void {
  const x = flat(a);
  const y = flat(b);
  let err = x.length === y.length && x.length > 0 ? 0 : Infinity;
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const scale = Math.max(1, Math.abs(x[i]), Math.abs(y[i]));
    err = Math.max(err, Math.abs(x[i] - y[i]) / scale);
    if (Number.isNaN(x[i]) || Number.isNaN(y[i])) err = Infinity;
  }
  const ok = err <= tol;
  if (!ok) failures++;
  console.log(
    `${ok ? "ok  " : "FAIL"} ${label} err=${err.toExponential(2)}${ok ? "" : `\n   a=${JSON.stringify(x)}\n   b=${JSON.stringify(y)}`}`,
  );
}

export function summary(name: string): void {
  console.log(`== ${name}: ${failures === 0 ? "ALL OK" : `${failures} FAILURES`}`);
}
