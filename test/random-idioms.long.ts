// The long run of the idiom fuzzer (npm run test:idioms-long): NABLA_RANDOM_RUNS programs per
// idiom (default 200) and as many mixing several idioms (any, and those not known broken), each checked by idiom-check.ts; the
// failures are grouped by idiom and outcome, and the first few of each group minimized.
// NABLA_SEED picks the programs, NABLA_IDIOMS (comma-separated) which idioms, NABLA_MINIMIZE how
// many failures of each group to minimize (default 3). Exits 1 when anything fails.

import {
  checkProgram,
  failureText,
  minimize,
  signature,
  type Outcome,
} from "./support/idiom-check.js";
import { rng } from "./support/random-program.js";
import {
  IDIOM_NAMES,
  REJECTED_IDIOMS,
  randomIdiomProgram,
  type IdiomName,
  type IdiomProgram,
} from "./support/random-idioms.js";

const runs = Number(process.env.NABLA_RANDOM_RUNS ?? 200);
const seed = Number(process.env.NABLA_SEED ?? 20261122);
const toMinimize = Number(process.env.NABLA_MINIMIZE ?? 3);
const idioms = (process.env.NABLA_IDIOMS?.split(",") as IdiomName[] | undefined) ?? [
  ...IDIOM_NAMES,
];

/** Seeded program seeds for one group. */
function seedsFor(group: number): number[] {
  const r = rng(seed + 1000 * group);
  return Array.from({ length: runs }, () => 1 + Math.floor(r() * 2 ** 30));
}

/** Programs of one idiom each, then programs of two to four idioms. */
function* programs(): Generator<{ group: string; program: IdiomProgram }> {
  for (const [k, idiom] of idioms.entries())
    for (const s of seedsFor(k + 1))
      yield { group: idiom, program: randomIdiomProgram(s, [idiom]) };
  // Mixed: of all idioms, and of those nabla supports (where no program may be rejected).
  const working = idioms.filter((idiom) => !REJECTED_IDIOMS.includes(idiom));
  for (const [group, from, k] of [
    ["mixed", idioms, 0],
    ["mixed-working", working, -1],
  ] as const) {
    if (from.length < 2) continue;
    for (const s of seedsFor(k)) {
      const r = rng(s);
      const chosen = [...from].sort(() => r() - 0.5).slice(0, 2 + Math.floor(r() * 3));
      yield { group, program: randomIdiomProgram(s, chosen) };
    }
  }
}

const started = performance.now();
const groups = new Map<string, { program: IdiomProgram; outcome: Outcome }[]>();
const counts = new Map<string, Record<string, number>>();
let total = 0;
for (const { group, program } of programs()) {
  const outcome = await checkProgram(program);
  total++;
  const c = counts.get(group) ?? {};
  c[outcome.kind] = (c[outcome.kind] ?? 0) + 1;
  counts.set(group, c);
  if (outcome.kind === "ok") continue;
  const key = `${group} / ${signature(outcome)}`;
  groups.set(key, [...(groups.get(key) ?? []), { program, outcome }]);
}
const seconds = (performance.now() - started) / 1000;
console.log(`${total} programs in ${seconds.toFixed(1)} s (seed ${seed}, ${runs} per group)\n`);
for (const [group, c] of counts) console.log(`${group}: ${JSON.stringify(c)}`);
for (const [key, failures] of groups) {
  console.log(
    `\n==== ${key}: ${failures.length} programs (seeds ${failures.map((f) => f.program.seed).join(", ")})`,
  );
  for (const { program, outcome } of failures.slice(0, toMinimize)) {
    const small = await minimize(program, outcome);
    console.log(
      `\n-- minimized from seed ${program.seed}:\n${failureText(small, await checkProgram(small))}`,
    );
  }
}
process.exitCode = groups.size ? 1 : 0;
