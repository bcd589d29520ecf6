import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { writeProgram, childStderr } from "./support/harness.js";
import { nabla } from "./support/cli.js";

// Imports through the aliases of a project's tsconfig `paths` (`@/geometry`), as projects set
// them up: the compiler, the loader `nabla run` uses and `nabla build` resolve them as
// TypeScript does, and TypeScript's checker types what is imported through them.

const PROJECT = {
  "tsconfig.json": `{
  // comments and trailing commas, as tsconfig files have them
  "compilerOptions": {
    "target": "ES2022",
    "module": "preserve",
    "strict": true,
    "baseUrl": ".",
    "paths": { "@/*": ["src/lib/*"], "~geo": ["src/lib/geometry.ts"] },
  },
  "include": ["src"],
}
`,
  "src/lib/geometry.ts": `export function makePoint(x: number, y: number) {
  return { x, y, label: "p" };
}
export function norm2(p: { x: number; y: number }): number {
  return p.x * p.x + p.y * p.y;
}
`,
  "src/main.ts": `import { gradient } from "nabla";
import { makePoint, norm2 } from "@/geometry";
import * as geo from "~geo";
export function energy(a: number, b: number): number {
  const p = makePoint(a * b, b);
  return norm2(p) + geo.norm2(geo.makePoint(a, 1));
}
console.log(JSON.stringify(gradient(energy, { wrt: [0, 1] })(0.5, 2)));
`,
};

test("nabla run and nabla check follow tsconfig paths aliases, with inferred types across them", () => {
  const dir = writeProgram(PROJECT);
  const run = nabla(["run", "src/main.ts"], dir);
  assert.equal(childStderr(run), "");
  // energy = (ab)² + b² + a² + 1: ∂/∂a = 2ab² + 2a, ∂/∂b = 2a²b + 2b.
  assert.deepEqual(JSON.parse(run.stdout), [2 * 0.5 * 4 + 1, 2 * 0.25 * 2 + 4]);
  const check = nabla(["check", "src/main.ts"], dir);
  assert.equal(check.status, 0, check.stdout + check.stderr);
});

test("nabla build rewrites aliases to relative paths, so plain node finds the files", () => {
  const dir = writeProgram(PROJECT);
  const build = nabla(["build", "-p", "tsconfig.json", "--out-dir", "out"], dir);
  assert.equal(build.status, 0, build.stdout + build.stderr);
  const main = readFileSync(join(dir, "out/main.js"), "utf8");
  assert.match(main, /import \{ makePoint, norm2 \} from "\.\/lib\/geometry\.js";/);
  assert.match(main, /import \* as geo from "\.\/lib\/geometry\.js";/);
  assert.doesNotMatch(main, /from "(@|~)/);
});
