import { parseSync } from "oxc-parser";
import { freeNames } from "./resolve/captures.js";
import { compileProgram } from "./compile.js";
import { formatDiagnostics } from "./diagnostics/report.js";
import { walk, type FunctionLike } from "./parse/module.js";
import { placeDiagnostics, type CallSite } from "./from-source-origin.js";
import { HELPERS, OPERATORS } from "../api/operators.js";
import { INTEGER_ARRAY_STORAGES } from "./ir/type-system.js";

// The no-build fallback: an operator called on a function the compiler never saw (a program
// run by plain `tsx`, a REPL, a JavaScript file) compiles that one function from its source
// text at run time. Only a self-contained function can be: from its text alone, nothing
// tells what a free variable holds. Parameter types come from the first call's arguments.

/** Names a self-contained function may use besides its own: standard numeric globals. */
const GLOBALS = new Set([
  "Math",
  "Number",
  "Infinity",
  "NaN",
  "undefined",
  "Array",
  "Float64Array",
  "Float32Array",
  ...INTEGER_ARRAY_STORAGES,
  "Boolean",
  "String",
  "isFinite",
  "isNaN",
  "console",
]);

/** nabla's functions, which a function may call by these names (nested differentiation). */
const NABLA_FUNCTIONS: ReadonlySet<string> = new Set([...Object.keys(OPERATORS), ...HELPERS]);

/** Words that cannot name the module's constant for the function. */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this " +
    "throw true try typeof var void while with yield let static implements interface package " +
    "private protected public await arguments eval"
  ).split(" "),
);

/**
 * An edit of a function's text on its way into the compiled module: `text[start, end)` is
 * replaced by `insert`, or by the type annotation of parameter `parameter`.
 */
interface Edit {
  start: number;
  end: number;
  insert: string | { parameter: number };
}

/** A function's source, parsed and checked to be self-contained. */
export interface FunctionSource {
  /** Its text, as `Function.prototype.toString` gave it. */
  text: string;
  /** What makes `text` a TypeScript function expression, by start (ties in order). */
  edits: Edit[];
  /** How many parameters it has. */
  arity: number;
  /** The operators it calls. */
  operators: string[];
}

type Node = { type: string; start: number; end: number; [key: string]: unknown };

/** Why a function cannot be compiled from its source text alone. */
export class NotSelfContained extends Error {
  constructor(
    message: string,
    /** The first free variable, when that is the reason. */
    readonly freeVariable?: string,
  ) {
    super(message);
  }
}

/** The text wrapped three ways: as an expression, an object's method, a class's method. */
const FORMS = [
  ["const $f = (", ");"],
  ["const $f = ({ ", " });"],
  ["const $f = (class { ", " });"],
] as const;

/**
 * The function `text` holds, whatever form `Function.prototype.toString` gave it in: an arrow,
 * a function expression or declaration, or a method (`area(r) { … }`, `#m(x) { … }`, whose
 * text is not an expression). `base` is where `text` starts in what was parsed.
 */
function readFunction(text: string): { fn: Node; base: number; method: boolean } {
  for (const [form, [before, after]] of FORMS.entries()) {
    const parsed = parseSync("function.js", before + text + after, {
      sourceType: "module",
      preserveParens: false,
    });
    if (parsed.errors.length > 0) continue;
    const statements = parsed.program.body as unknown as Node[];
    const declarations = statements[0]?.declarations as Node[] | undefined;
    if (statements.length !== 1 || declarations?.length !== 1) continue;
    const init = declarations[0]!.init as Node;
    const members =
      form === 0
        ? [init]
        : form === 1
          ? (init.properties as Node[])
          : ((init.body as Node).body as Node[]);
    const node = members[0];
    // The text must be exactly the one function or member: nothing before or after it.
    if (
      members.length !== 1 ||
      node?.start !== before.length ||
      node.end !== before.length + text.length
    )
      continue;
    if (node.type === "ClassExpression")
      throw new NotSelfContained("it is a class; give nabla a function");
    if (node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression")
      return { fn: node, base: before.length, method: false };
    if (node.type !== "Property" && node.type !== "MethodDefinition") continue;
    if (node.kind === "get" || node.kind === "set")
      throw new NotSelfContained(
        `it is a ${node.kind}ter; give nabla a function that takes the values to differentiate`,
      );
    if (node.type === "Property" && !node.method) continue;
    return { fn: node.value as Node, base: before.length, method: true };
  }
  throw new NotSelfContained(
    "its source text is not a function, arrow function or method that nabla can read",
  );
}

/**
 * esbuild's `keepNames`, which tsx turns on, wraps functions in calls to a helper of its
 * module that only sets their `name`: `__name(f, "f");` and `__name((t) => …, "g")`. Edits
 * that remove them, or undefined when `__name` is used any other way.
 */
function nameHelperEdits(fn: Node, base: number): Edit[] | undefined {
  const edits: Edit[] = [];
  let other = false;
  walk(fn as never, (n, ancestors) => {
    const node = n as unknown as Node;
    if (node.type !== "Identifier" || node.name !== "__name") return;
    const [block, statement, call] = ancestors.slice(-3) as unknown as (Node | undefined)[];
    const args = call?.arguments as Node[] | undefined;
    if (call?.type === "MemberExpression" && call.property === node && !call.computed) return;
    if (call?.type === "Property" && call.key === node && !call.computed) return;
    const [value, name] = args ?? [];
    if (
      call?.type !== "CallExpression" ||
      call.callee !== node ||
      args?.length !== 2 ||
      value!.type === "SpreadElement" ||
      name!.type !== "Literal" ||
      typeof name!.value !== "string"
    ) {
      other = true;
      return;
    }
    const inBlock = Array.isArray(block?.body) && block.body.includes(statement);
    if (statement?.type === "ExpressionStatement" && statement.expression === call && inBlock) {
      edits.push({ start: statement.start - base, end: statement.end - base, insert: "" });
    } else {
      edits.push({ start: call.start - base, end: value!.start - base, insert: "" });
      edits.push({ start: value!.end - base, end: call.end - base, insert: "" });
    }
  });
  return other ? undefined : edits;
}

/**
 * Parses `text` (what `Function.prototype.toString` gave) as a function and checks that it
 * only uses its parameters, its own locals and standard globals.
 */
export function parseFunctionSource(text: string): FunctionSource {
  if (/\{\s*\[native code\]\s*\}$/.test(text))
    throw new NotSelfContained(
      "its source text is not a plain function: a built-in or bound function has none",
    );
  const { fn, base, method } = readFunction(text);
  if (fn.async) throw new NotSelfContained("it is async, which nabla cannot differentiate");
  if (fn.generator)
    throw new NotSelfContained("it is a generator, which nabla cannot differentiate");
  const params = fn.params as Node[];
  const edits: Edit[] = [{ start: 0, end: 0, insert: "(" }];
  // A method's text (`area(r) { … }`) is not an expression; `function (r) { … }` is.
  if (method) edits.push({ start: 0, end: fn.start - base, insert: "function " });
  // `x => …` takes a type only in parentheses: `(x: number) => …`.
  const bare = fn.type === "ArrowFunctionExpression" && params[0]?.start === fn.start;
  params.forEach((p, parameter) => {
    if (p.type !== "Identifier")
      throw new NotSelfContained(
        "its parameters are destructured, rest parameters or have defaults; give it plain parameters",
      );
    if (bare) edits.push({ start: p.start - base, end: p.start - base, insert: "(" });
    edits.push({ start: p.end - base, end: p.end - base, insert: { parameter } });
    if (bare) edits.push({ start: p.end - base, end: p.end - base, insert: ")" });
  });
  // A named function expression may call itself by its name.
  const own = (fn.id as Node | null)?.name;
  let free = freeNames(fn as unknown as FunctionLike).filter(
    (name) => name !== own && !GLOBALS.has(name),
  );
  const nameHelper = free.includes("__name") ? nameHelperEdits(fn, base) : undefined;
  if (nameHelper) {
    edits.push(...nameHelper);
    free = free.filter((name) => name !== "__name");
  }
  const unknown = free.filter((name) => !NABLA_FUNCTIONS.has(name));
  if (unknown.length > 0)
    throw new NotSelfContained(`it uses '${unknown[0]}', defined outside it`, unknown[0]);
  edits.push({ start: text.length, end: text.length, insert: ")" });
  // Stable: edits at one offset stay in the order written above.
  edits.sort((a, b) => a.start - b.start);
  return { text, edits, arity: params.length, operators: free };
}

/** The function's text with its edits made, and the way back to offsets in its own text. */
function render(
  source: FunctionSource,
  types: string[],
): { text: string; toOriginal(offset: number): number } {
  const pieces: { at: number; from: number; copied: boolean }[] = [];
  let text = "";
  let done = 0;
  const copy = (to: number) => {
    if (to <= done) return;
    pieces.push({ at: text.length, from: done, copied: true });
    text += source.text.slice(done, to);
    done = to;
  };
  for (const edit of source.edits) {
    copy(edit.start);
    const insert =
      typeof edit.insert === "string"
        ? edit.insert
        : `: ${types[edit.insert.parameter] ?? "number"}`;
    pieces.push({ at: text.length, from: edit.start, copied: false });
    text += insert;
    done = Math.max(done, edit.end);
  }
  copy(source.text.length);
  const toOriginal = (offset: number) => {
    let piece = pieces[0]!;
    for (const p of pieces) if (p.at <= offset) piece = p;
    return piece.copied ? piece.from + offset - piece.at : piece.from;
  };
  return { text, toOriginal };
}

/** Operators the fallback compiles, with their run-time options. */
export interface FallbackRequest {
  operator: string;
  /** The `wrt` option, checked by the runtime: an index, a list of them, or the default. */
  wrt?: number | number[];
  /** `hasAux: true`, checked by the runtime. */
  hasAux?: boolean;
  /** `jacobian`'s mode, checked by the runtime. */
  mode?: "forward" | "reverse";
  /** TypeScript types of the parameters, from the values of the first call. */
  parameterTypes: string[];
  /** The function's name, if it has one. */
  name?: string;
  /** Where the operator was called, for diagnostics; asked only when there are some. */
  callSite?: () => CallSite | undefined;
}

/** The module's one file. Nothing of the user's goes into its name. */
const FILE = "/nabla-run-time/function.ts";

/** The options as source text: integers and fixed words only, whatever the caller let through. */
function optionsText(request: FallbackRequest): string {
  const { wrt, hasAux, mode } = request;
  const parts: string[] = [];
  if (wrt !== undefined) {
    const indices = Array.isArray(wrt) ? wrt : [wrt];
    if (!indices.every((i) => Number.isSafeInteger(i) && i >= 0))
      throw new TypeError("nabla: 'wrt' must list parameter indices");
    parts.push(`wrt: ${Array.isArray(wrt) ? `[${indices.join(", ")}]` : String(wrt)}`);
  }
  if (hasAux === true) parts.push("hasAux: true");
  if (mode !== undefined) {
    if (mode !== "forward" && mode !== "reverse")
      throw new TypeError('nabla: \'mode\' must be "forward" or "reverse"');
    parts.push(`mode: "${mode}"`);
  }
  return parts.length === 0 ? "" : `, { ${parts.join(", ")} }`;
}

/** The function's name as the module's constant, when it is a plain one; else `f`. */
function constantName(name: string | undefined): string {
  return name &&
    /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) &&
    !RESERVED.has(name) &&
    !GLOBALS.has(name) &&
    !NABLA_FUNCTIONS.has(name)
    ? name
    : "f";
}

/**
 * JavaScript for the body of a function taking the runtime namespace `$nabla` and returning
 * the operator's result for the function. Throws with the diagnostics when nabla cannot
 * differentiate it.
 */
export function compileFunctionSource(source: FunctionSource, request: FallbackRequest): string {
  const { operator } = request;
  if (!NABLA_FUNCTIONS.has(operator))
    throw new TypeError(`nabla: no operator ${JSON.stringify(operator)}`);
  // Named as the user named it, so that diagnostics and notes read as their code does.
  const name = constantName(request.name);
  const fn = render(source, request.parameterTypes);
  const operators = [...new Set([operator, ...source.operators])];
  const before = `import { ${operators.join(", ")} } from "nabla";\nexport const ${name} = `;
  const text = [
    `${before}${fn.text};`,
    `export const $derivative = ${operator}(${name}${optionsText(request)});`,
    "",
  ].join("\n");
  // The function's text, between the parentheses it was given.
  const start = before.length + 1;
  const end = before.length + fn.text.length - 1;
  checkShape(text, start, end);
  const compiled = compileProgram([FILE], { sources: new Map([[FILE, text]]) });
  const output = compiled.outputs.get(FILE);
  if (!output || compiled.diagnostics.some((d) => d.severity === "error")) {
    const label = `<${name === "f" ? "function" : name}>`;
    const placed = placeDiagnostics(
      compiled.diagnostics,
      { file: FILE, start, end, toOriginal: (o) => fn.toOriginal(o + 1), text: source.text },
      label,
      request.callSite?.(),
      compiled.sourceText,
    );
    const what = name === "f" ? "this function" : `'${name}'`;
    const where = placed.calledAt ? ` (given to ${operator} at ${placed.calledAt})` : "";
    throw new Error(
      `nabla could not differentiate ${what}${where} at run time:\n${formatDiagnostics(placed.diagnostics, placed.sources)}`,
    );
  }
  const runtimeImport = 'import * as $nabla from "nabla/runtime";';
  const body = output.code
    .split("\n")
    .filter((line) => line !== runtimeImport)
    .map((line) => line.replace(/^export (const|function) /, "$1 "))
    .join("\n");
  return `${body}\nreturn $derivative;`;
}

/**
 * Checks that the module reads as three statements in TypeScript, the second's value being
 * exactly the function's text: the text was read as JavaScript, and must not reach past it.
 */
function checkShape(text: string, start: number, end: number): void {
  const parsed = parseSync(FILE, text, { sourceType: "module", preserveParens: false });
  if (parsed.errors.length > 0) return; // The compile reports them, against the text.
  const statements = parsed.program.body as unknown as Node[];
  const declaration = statements[1]?.declaration as Node | undefined;
  const init = (declaration?.declarations as Node[] | undefined)?.[0]?.init as Node | undefined;
  if (statements.length !== 3 || init?.start !== start || init.end !== end)
    throw new NotSelfContained("its text reads differently as TypeScript than as JavaScript");
}
