import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { assertClose, finiteGradient, loadProgram } from "./harness.js";

// A program written as plain TypeScript that defines `f(x, y)`, compiled with its gradient
// (`valueWithGradient`) and differential: the gradient checked against central differences,
// the differential against the gradient (forward against reverse mode), and the value
// against the plain function's.

interface Compiled {
  f: (x: number, y: number) => number;
  vg: (x: number, y: number) => { value: number; gradient: [number, number] };
  d: (x: number, y: number) => (dx: number, dy: number) => number;
}

/** `exact`: nabla's value is the plain function's to the bit (else to 1e-14 relative). */
export async function checkTwoWays(
  body: string,
  points: [number, number][] = [
    [0.7, -0.4],
    [1.3, 0.9],
  ],
  exact = true,
  /** Other modules of the program, which main.ts may import. */
  modules: Record<string, string> = {},
): Promise<void> {
  const m = await compiled(body, modules, "");
  for (const [x, y] of points) {
    const { value } = m.vg(x, y);
    if (exact) assert.equal(value, m.f(x, y), `value at (${x}, ${y})`);
    else assertClose(value, m.f(x, y), 1e-14, `value at (${x}, ${y})`);
    checkDerivatives(m, m.f, x, y);
  }
}

/**
 * `f` of `body` run as plain JavaScript: its types stripped by TypeScript, no nabla. The other
 * `modules` it imports (`./geo`) are written next to it, in a folder of their own.
 */
export async function plainF(
  body: string,
  modules: Record<string, string> = {},
): Promise<(x: number, y: number) => number> {
  type Plain = { f: (x: number, y: number) => number };
  if (Object.keys(modules).length === 0) {
    const m = (await import(
      `data:text/javascript,${encodeURIComponent(strip(body, "main.ts", modules))}`
    )) as Plain;
    return m.f;
  }
  const dir = mkdtempSync(join(tmpdir(), "nabla-plain-"));
  for (const [name, text] of Object.entries({ ...modules, "main.ts": body })) {
    const file = join(dir, name.replace(/\.ts$/, ".mjs"));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, strip(text, name, modules));
  }
  const m = (await import(pathToFileURL(join(dir, "main.mjs")).href)) as Plain;
  return m.f;
}

/**
 * `text` (the module `name`) with its types stripped by TypeScript and each relative import
 * (`./geo`, `./geo.js`, `../math`, a folder's `index.ts`) naming the `.mjs` file of `modules`
 * it resolves to.
 */
function strip(text: string, name: string, modules: Record<string, string>): string {
  const out = ts.transpileModule(text, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  return out.replace(/(from\s+|import\s*\(\s*)(["'])(\.\.?\/[^"']*)\2/g, (_, lead, quote, spec) => {
    const base = posix.join(posix.dirname(name), spec.replace(/\.(js|ts)$/, ""));
    const target = [`${base}.ts`, `${base}/index.ts`].find((c) => c in modules) ?? `${base}.ts`;
    let rel = posix.relative(posix.dirname(name), target.replace(/\.ts$/, ".mjs"));
    if (!rel.startsWith(".")) rel = `./${rel}`;
    return `${lead}${quote}${rel}${quote}`;
  });
}

/**
 * As checkTwoWays, with the program also run as plain JavaScript (plainF): nabla's value must
 * be its value to the bit, and the differences are taken of it, not of nabla's primal.
 */
export async function checkAgainstPlain(
  body: string,
  points: [number, number][] = [
    [0.7, -0.4],
    [1.3, 0.9],
  ],
  backend: "js" | "wasm" | "auto" = "js",
  /** Other modules of the program, which main.ts may import (`./geo`). */
  modules: Record<string, string> = {},
): Promise<void> {
  const m = await compiled(body, modules, `, backend: "${backend}"`);
  const plain = await plainF(body, modules);
  for (const [x, y] of points) {
    const { value } = m.vg(x, y);
    assert.equal(value, plain(x, y), `value at (${x}, ${y}), against plain JavaScript`);
    checkDerivatives(m, plain, x, y);
  }
}

/** `body` compiled with `f`'s gradient and differential (`options`: more of their options). */
function compiled(
  body: string,
  modules: Record<string, string>,
  options: string,
): Promise<Compiled> {
  return loadProgram<Compiled>({
    ...modules,
    "main.ts": `import { differential, valueWithGradient } from "nabla";
${body}
export const vg = valueWithGradient(f, { wrt: [0, 1]${options} });
export const d = differential(f, { wrt: [0, 1]${options} });
`,
  });
}

/** nabla's gradient at (x, y) against central differences of `reference`, and forward mode. */
function checkDerivatives(
  m: Compiled,
  reference: (x: number, y: number) => number,
  x: number,
  y: number,
): void {
  const expected = finiteGradient(reference, [x, y]);
  m.vg(x, y).gradient.forEach((g, i) => {
    assertClose(g, expected[i]!, 1e-6, `∂f/∂x${i} at (${x}, ${y}), finite differences`);
    const e: [number, number] = [0, 0];
    e[i] = 1;
    assertClose(m.d(x, y)(...e), g, 1e-12, `∂f/∂x${i} at (${x}, ${y}), forward mode`);
  });
}
