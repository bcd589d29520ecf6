// `npm run corpus:report`: checks every corpus program (see corpus-check.ts) and rewrites the
// table of docs/corpus.md: what each program does, whether nabla compiles and differentiates
// it, and if not, the first construct that stops it. test/corpus.test.ts holds the table to the
// truth, so it is rewritten by this script, not by hand.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkCorpusProgram, corpusPrograms, CORPUS } from "./corpus-check.js";
import { REPO_ROOT } from "./harness.js";

const DOC = join(REPO_ROOT, "docs/corpus.md");
const BEGIN = "<!-- corpus table: npm run corpus:report -->";
const END = "<!-- end of corpus table -->";

/** The program's one-line description: its first comment. */
function description(name: string): string {
  const first = readFileSync(join(CORPUS, `${name}.ts`), "utf8").split("\n")[0] ?? "";
  return first.replace(/^\/\/\s*/, "").replace(/\|/g, "\\|");
}

/** The first error's message, without its place: the construct that stops the program. */
function construct(message: string): string {
  const line = message.split("\n").find((l) => / error NABLA\d+: /.test(l)) ?? message;
  return line.replace(/^.*? error (NABLA\d+): /, "$1: ").replace(/\|/g, "\\|");
}

const rows: string[] = [];
let passing = 0;
const programs = corpusPrograms();
for (const name of programs) {
  const outcome = await checkCorpusProgram(name);
  process.stderr.write(`${name}: ${outcome.kind}\n`);
  if (outcome.kind === "ok") {
    passing++;
    rows.push(`| \`${name}\` | compiles, checked | ${description(name)} |`);
  } else if (outcome.kind === "rejected") {
    rows.push(`| \`${name}\` | does not compile | ${construct(outcome.message)} |`);
  } else {
    throw new Error(`${name}: ${outcome.kind}: ${outcome.message}`);
  }
}
const table = [
  `${passing} of ${programs.length} programs compile unchanged and differentiate correctly.`,
  "",
  "| program | status | what it does, or the first construct that stops it |",
  "| --- | --- | --- |",
  ...rows,
].join("\n");
const doc = readFileSync(DOC, "utf8");
const start = doc.indexOf(BEGIN);
const end = doc.indexOf(END);
if (start < 0 || end < 0) throw new Error(`${DOC} lacks the table's markers`);
writeFileSync(DOC, doc.slice(0, start + BEGIN.length) + "\n\n" + table + "\n\n" + doc.slice(end));
