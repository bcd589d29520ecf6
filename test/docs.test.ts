import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { compileFiles, diagnosticsText, importCompiled, REPO_ROOT } from "./support/harness.js";
import { withChecks } from "./support/checked-examples.js";
import { formatDiagnostic } from "../src/compiler/diagnostics/format.js";

// The examples in docs/diagnostics.md are real: each program, compiled, prints exactly the
// diagnostics shown under it.

const doc = readFileSync(join(REPO_ROOT, "docs/diagnostics.md"), "utf8");
const example = /```ts\n\/\/ (\S+\.ts)\n([\s\S]*?)```\n\n```\n([\s\S]*?)```/g;

for (const [, file, source, expected] of doc.matchAll(example)) {
  test(`docs/diagnostics.md: ${file}`, () => {
    const result = compileFiles({ [file!]: source! }, file);
    const text = result.diagnostics
      .map((d) => formatDiagnostic(d, result.sourceText, { cwd: result.dir }))
      .join("\n");
    assert.equal(text, expected!.trimEnd());
  });
}

test("docs/diagnostics.md has an example for every diagnostic code", () => {
  const codes = new Set([...doc.matchAll(/^\| (NABLA\d+) \|/gm)].map((m) => m[1]));
  const shown = new Set(
    [...doc.matchAll(/^\S+\.ts:\d+:\d+: (?:error|warning) (NABLA\d+)/gm)].map((m) => m[1]),
  );
  assert.deepEqual(
    [...codes].filter((c) => !shown.has(c)),
    [],
  );
});

// Code blocks opened with ```ts runnable (README.md, docs/*.md) are whole programs: each one
// compiles without any diagnostic and runs. A line `expression; // → value` also checks what
// the expression gives (numbers to 1e-9, relative; arrays, typed arrays and objects element
// by element); `// ≈ value` checks it to the digits shown.

const MARKDOWN = [
  "README.md",
  ...readdirSync(join(REPO_ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const read = (file: string) => readFileSync(join(REPO_ROOT, file), "utf8");

const RUNNABLE = /^```ts runnable\n([\s\S]*?)^```$/gm;
for (const file of MARKDOWN) {
  const text = read(file);
  for (const match of text.matchAll(RUNNABLE)) {
    const line = text.slice(0, match.index).split("\n").length;
    const where = `${file}:${line}`;
    test(`${where}: the runnable block compiles and runs`, async () => {
      const program = { "main.ts": withChecks(match[1]!, file, line + 1) };
      const compiled = compileFiles(program);
      assert.equal(diagnosticsText(compiled), "");
      await importCompiled(join(compiled.dir, "main.ts"));
    });
  }
}

// Relative links between the documents point at files that exist, and at headings that exist.

/** GitHub's anchor for a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/** The text outside fenced code blocks (and, for `prose`, outside code spans). */
const unfenced = (text: string) => text.replace(/^```[\s\S]*?^```$/gm, "");
const prose = (text: string) => unfenced(text).replace(/`[^`\n]*`/g, "");

for (const file of MARKDOWN) {
  test(`${file}: relative links resolve`, () => {
    const broken: string[] = [];
    for (const [, target] of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split("#") as [string, string | undefined];
      const linked = path === "" ? file : join(dirname(file), path);
      if (!existsSync(join(REPO_ROOT, linked))) {
        broken.push(target!);
        continue;
      }
      if (anchor === undefined || !linked.endsWith(".md")) continue;
      const headings = [...unfenced(read(linked)).matchAll(/^#{1,6} (.+)$/gm)].map((h) =>
        slug(h[1]!),
      );
      if (!headings.includes(anchor)) broken.push(target!);
    }
    assert.deepEqual(broken, []);
  });
}
