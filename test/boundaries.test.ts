import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { parseSync, type Node } from "oxc-parser";
import { REPO_ROOT } from "./support/harness.js";

// The layout's promise, checked on the import graph of src/: phases only import downward
// (docs/architecture.md, "Layers"), and no module imports one that imports it back. Type-only
// imports count too: they are dependencies of meaning, if not of loading.

/** The layers, lowest first: a module may import its own layer's modules and lower ones. */
const LAYERS = [
  "api", // the vocabulary of the public API both sides share: the table of operators
  "compiler/ir", // the IR: types, keys, builder, printer, verifier, generic passes
  "compiler/diagnostics", // codes, diagnostics, code frames
  "compiler/diagnostics/messages", // the catalog: every message, by code
  "compiler/parse", // source text to modules and the program graph
  "compiler/types", // annotations and inference to IR types
  "compiler/resolve", // what is differentiated: operator calls, captures, attachments, rules
  "compiler/rules", // the built-in derivative rules and the Math functions they cover
  "compiler/lower", // TypeScript to IR
  "compiler/analysis", // on IR: effects and activity, and their cross-function fixed points
  "compiler/differentiate", // AD: linearize, unzip, transpose, nesting, the demand driver
  "compiler/emit/wasm", // IR to WebAssembly text, assembled: the wasm backend
  "compiler/emit/js", // IR to JavaScript: the JavaScript backend (and the modules, wasm twins included)
  "compiler", // the pipeline: compile.ts and the entry points of the compiler
  "runtime", // what generated code calls; its fallback loads the compiler lazily
  "register", // the Node loader
  "plugin", // the bundler plugin
  "cli", // the command
];

const SRC = join(REPO_ROOT, "src");

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(folder, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(folder, entry.name)]
        : [],
  );
}

/** The layer of a module: the deepest layer folder that holds it. */
function layerOf(file: string): number {
  const path = relative(SRC, dirname(file)).split("\\").join("/");
  const layer = LAYERS.indexOf(path);
  assert.ok(layer >= 0, `${relative(REPO_ROOT, file)} is in no layer: add its folder to LAYERS`);
  return layer;
}

/** The modules of src/ that `file` imports: static, type-only, re-exports and `import()`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const { program, errors } = parseSync(file, text, { sourceType: "module" });
  assert.deepEqual(errors, [], `${file} parses`);
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as Node & { source?: { value?: unknown } | null };
    // TSImportType is `import("./x.js")` in a type: `typeof import(…)`, `import(…).T`.
    const specifier =
      n.type === "ImportDeclaration" ||
      n.type === "ExportNamedDeclaration" ||
      n.type === "ExportAllDeclaration" ||
      n.type === "ImportExpression" ||
      n.type === "TSImportType"
        ? n.source?.value
        : undefined;
    if (typeof specifier === "string" && specifier.startsWith("."))
      found.push(normalize(join(dirname(file), specifier)).replace(/\.js$/, ".ts"));
    for (const [key, value] of Object.entries(n))
      if (key !== "parent" && typeof value === "object") visit(value);
  };
  visit(program);
  return found;
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const shown = (file: string) => relative(SRC, file);

test("every import of src/ resolves to a module of src/", () => {
  const missing = [...graph].flatMap(([file, targets]) =>
    targets.filter((t) => !graph.has(t)).map((t) => `${shown(file)} -> ${shown(t)}`),
  );
  assert.deepEqual(missing, []);
});

/** Imports from a module to one of a later layer. */
function upwardImports(imports: Map<string, string[]>): string[] {
  return [...imports].flatMap(([file, targets]) =>
    targets
      .filter((t) => imports.has(t) && layerOf(t) > layerOf(file))
      .map((t) => `${shown(file)} -> ${shown(t)}`),
  );
}

/** The cycles of the graph: Tarjan's strongly connected components of more than one module. */
function cyclesOf(imports: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    for (const target of imports.get(file) ?? []) {
      if (!imports.has(target)) continue;
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (stack.includes(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(shown(member));
      } while (member !== file);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const file of imports.keys()) if (!index.has(file)) connect(file);
  return cycles;
}

test("phases import only downward: no module imports from a later layer", () => {
  assert.deepEqual(upwardImports(graph), []);
});

test("no module imports one that imports it back (no cycle between files)", () => {
  assert.deepEqual(cyclesOf(graph), []);
});

test("the checks find what they look for: type-only imports, a planted cycle, an upward import", () => {
  const at = (path: string) => join(SRC, path);
  assert.ok(
    graph.get(at("compiler/resolve/targets.ts"))!.includes(at("compiler/parse/module.ts")),
    "a type-only import is an edge",
  );
  const planted = new Map(graph);
  planted.set(at("compiler/ir/types.ts"), [
    ...graph.get(at("compiler/ir/types.ts"))!,
    at("compiler/emit/js/module.ts"),
  ]);
  assert.deepEqual(upwardImports(planted), ["compiler/ir/types.ts -> compiler/emit/js/module.ts"]);
  assert.ok(cyclesOf(planted).some((cycle) => cycle.includes("compiler/ir/types.ts")));
});
