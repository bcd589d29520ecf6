import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { checkCorpusProgram, corpusPrograms } from "./support/corpus-check.js";
import { REPO_ROOT } from "./support/harness.js";

// The corpus (test/corpus/): programs written as TypeScript developers write them, never
// rewritten for nabla. Each one either compiles and differentiates correctly, checked two ways
// (support/corpus-check.ts), or fails to compile with a diagnostic and is listed in
// docs/corpus.md with the construct that stops it. Never a crash, never a wrong derivative;
// and the list stays true: a listed program that compiles fails this test until it leaves it.

/** The programs docs/corpus.md lists as not compiling yet: name → the construct. */
function listedFailures(): Map<string, string> {
  const text = readFileSync(join(REPO_ROOT, "docs/corpus.md"), "utf8");
  const listed = new Map<string, string>();
  for (const m of text.matchAll(/^\|\s*`([\w-]+)`\s*\|\s*does not compile\s*\|\s*(.*?)\s*\|$/gm)) {
    listed.set(m[1]!, m[2]!);
  }
  return listed;
}

const listed = listedFailures();

test("the corpus has at least 20 programs, and docs/corpus.md lists only programs it has", () => {
  const programs = corpusPrograms();
  assert.ok(programs.length >= 20, `${programs.length} programs`);
  for (const name of listed.keys())
    assert.ok(programs.includes(name), `${name} is not in the corpus`);
});

for (const name of corpusPrograms()) {
  test(`corpus: ${name}`, async () => {
    const outcome = await checkCorpusProgram(name);
    if (outcome.kind === "ok") {
      assert.ok(
        !listed.has(name),
        `${name} compiles and differentiates correctly now: take it off docs/corpus.md's list`,
      );
      return;
    }
    assert.equal(outcome.kind, "rejected", `${name}: ${outcome.kind}: ${outcome.message}`);
    assert.ok(
      listed.has(name),
      `${name} does not compile; fix nabla, or list it in docs/corpus.md with the construct:\n${outcome.message}`,
    );
  });
}
