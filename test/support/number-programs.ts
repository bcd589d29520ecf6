import { assertGradientTwoWays, loadProgram, type Differential, type Fn } from "./harness.js";

// What the sweeps' regression tests share (test/sweep2-regressions.test.ts,
// test/sweep3-regressions.test.ts): a program defining `f` of numbers, its gradient checked
// against central differences and against forward mode along each coordinate.

interface Compiled {
  f: Fn;
  g: (...xs: number[]) => number[];
  d: Differential;
}

/** Compiles `body` (which defines `f`) and checks its gradient two ways at each point. */
export async function checkProgram(body: string, points: number[][]): Promise<void> {
  const m = await loadProgram<Compiled>({
    "main.ts": `import { differential, gradient } from "nabla";
${body}
export const g = gradient(f);
export const d = differential(f);
`,
  });
  for (const xs of points) assertGradientTwoWays("f", m.f, m.g(...xs), m.d, xs, 1e-6, 1e-12);
}
