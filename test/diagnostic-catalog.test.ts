import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSync, type Node } from "oxc-parser";
import { DiagnosticCode } from "../src/compiler/diagnostics/codes.js";
import * as catalog from "../src/compiler/diagnostics/messages/index.js";
import { REPO_ROOT } from "./support/harness.js";

// Diagnostics live in one catalog: each code's messages in one module of
// src/compiler/diagnostics/messages/, documented in docs/diagnostics.md. These tests keep the
// catalog, the documentation and the reporting sites in step.

const DOCS = readFileSync(join(REPO_ROOT, "docs/diagnostics.md"), "utf8");
const codeNames = Object.keys(DiagnosticCode) as (keyof typeof DiagnosticCode)[];

test("every code has a catalog module whose messages carry that code", () => {
  for (const name of codeNames) {
    const messages = (catalog as Record<string, Record<string, (...args: never[]) => unknown>>)[
      name
    ];
    assert.ok(messages, `no catalog module for ${name}`);
    const builders = Object.entries(messages);
    assert.ok(builders.length > 0, `${name} has no messages`);
    for (const [builder, make] of builders) {
      const made = (make as (...args: string[]) => { code: string; message: string })(
        ...Array(make.length).fill("x"),
      );
      assert.equal(made.code, DiagnosticCode[name], `${name}.${builder} carries its own code`);
      assert.ok(made.message.length > 0, `${name}.${builder} has a text`);
    }
  }
  assert.deepEqual(
    Object.keys(catalog)
      .filter((key) => key !== "notes")
      .sort(),
    [...codeNames].sort(),
    "no module for an unknown code (notes.ts holds the notes' texts)",
  );
});

test("docs/diagnostics.md lists every code, and no code nabla does not have", () => {
  const codes = new Set<string>(Object.values(DiagnosticCode));
  const documented = new Set(DOCS.match(/NABLA\d{3}/g));
  for (const code of codes)
    assert.ok(documented.has(code), `${code} is not in docs/diagnostics.md`);
  for (const code of documented)
    assert.ok(codes.has(code), `docs/diagnostics.md names ${code}, which nabla does not have`);
});

/** The .ts files of src/compiler outside the catalog. */
function compilerFiles(folder = join(REPO_ROOT, "src/compiler")): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return path.endsWith("diagnostics") ? [] : compilerFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

test("reporting sites take their texts from the catalog", () => {
  const found: string[] = [];
  for (const file of compilerFiles()) {
    const text = readFileSync(file, "utf8");
    if (/\bDiagnosticCode\b/.test(text)) found.push(`${file}: uses DiagnosticCode directly`);
    const { program } = parseSync(file, text, { sourceType: "module" });
    const visit = (node: unknown): void => {
      if (!node || typeof node !== "object") return;
      if (Array.isArray(node)) return node.forEach(visit);
      const n = node as Node & Record<string, unknown>;
      // A diagnostic or a note whose text is written in place (`{ …, message: "text" }`) rather
      // than taken from the catalog.
      if (n.type === "ObjectExpression") {
        const properties = (
          n as unknown as { properties: { key?: { name?: string }; value?: Node }[] }
        ).properties;
        const message = properties.find((p) => p.key?.name === "message")?.value;
        const written =
          message?.type === "TemplateLiteral" ||
          message?.type === "ConditionalExpression" ||
          (message?.type === "Literal" &&
            typeof (message as { value?: unknown }).value === "string");
        // Notes too (`{ message: "…", loc }`): their texts are in messages/notes.ts.
        if (written)
          found.push(
            `${file}:${text.slice(0, n.start).split("\n").length}: a message written in place`,
          );
      }
      for (const key of Object.keys(n)) if (key !== "parent") visit(n[key]);
    };
    visit(program);
  }
  assert.deepEqual(found, []);
});
