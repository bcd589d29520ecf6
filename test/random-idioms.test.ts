import { test } from "node:test";
import assert from "node:assert/strict";
import { checkProgram, failureText } from "./support/idiom-check.js";
import { rng } from "./support/random-program.js";
import {
  IDIOM_NAMES,
  REJECTED_IDIOMS,
  randomIdiomProgram,
  type IdiomProgram,
} from "./support/random-idioms.js";

// Random programs written the way TypeScript users write them (test/support/random-idioms.ts):
// arrays filled by index and grown with push, copies of arrays of objects, arrays and matrices,
// optional fields and parameters read with `??` and `||`, reads past the ends of arrays,
// optional chaining, names that look like nabla's generated ones, a shadowed `Math`, class
// instances, nested objects, arrays of objects mutated in loops, functions held in data
// (scenario objects of arrows, tables of Math functions, class fields holding functions),
// interfaces implemented by several classes, local functions calling themselves, arrays of a
// class and its subclasses, iterable classes spread, functions returning the program's
// functions, module-level `gradient(energy)` called inside. One test per idiom (its programs use only it,
// with scalar statements around), and one of programs mixing several.
// Each program must compile; forward and reverse mode must agree with finite differences of
// the plain program (types stripped by TypeScript) where it is smooth, and with each other
// everywhere, and nabla's values must be the plain program's (support/idiom-check.ts).
//
// Programs using an idiom of REJECTED_IDIOMS may be refused with a diagnostic (never a wrong
// result or a crash) unless NABLA_STRICT_IDIOMS=1. NABLA_RANDOM_RUNS sets
// how many programs per idiom (the long run: npm run test:idioms-long), NABLA_SEED which.

const runs = Number(process.env.NABLA_RANDOM_RUNS ?? 4);
const seed = Number(process.env.NABLA_SEED ?? 20261122);
const strict = process.env.NABLA_STRICT_IDIOMS === "1";
const mayBeRejected = (p: IdiomProgram) =>
  !strict && p.idioms.some((idiom) => REJECTED_IDIOMS.includes(idiom));

function seedsFor(group: number): number[] {
  const r = rng(seed + 1000 * group);
  return Array.from({ length: runs }, () => 1 + Math.floor(r() * 2 ** 30));
}

async function failuresOf(programs: IdiomProgram[]): Promise<string[]> {
  const failures: string[] = [];
  for (const p of programs) {
    const outcome = await checkProgram(p);
    if (outcome.kind === "ok" || (outcome.kind === "rejected" && mayBeRejected(p))) continue;
    failures.push(failureText(p, outcome));
  }
  return failures;
}

for (const [k, idiom] of IDIOM_NAMES.entries()) {
  test(`idiom ${idiom}: ${runs} random programs (seed ${seed})`, async () => {
    const failures = await failuresOf(seedsFor(k + 1).map((s) => randomIdiomProgram(s, [idiom])));
    assert.equal(
      failures.length,
      0,
      `${failures.length} programs fail:\n\n${failures.join("\n\n")}`,
    );
  });
}

test(`idioms mixed: ${runs * 2} random programs of two to four idioms (seed ${seed})`, async () => {
  const working = [...IDIOM_NAMES];
  const programs = seedsFor(0)
    .concat(seedsFor(-1))
    .map((s) => {
      const r = rng(s);
      const chosen = [...working].sort(() => r() - 0.5).slice(0, 2 + Math.floor(r() * 3));
      return randomIdiomProgram(s, chosen);
    });
  const failures = await failuresOf(programs);
  assert.equal(failures.length, 0, `${failures.length} programs fail:\n\n${failures.join("\n\n")}`);
});
