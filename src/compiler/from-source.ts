import MagicString from "magic-string";
import { parseSync } from "oxc-parser";
import { freeNames } from "./analyze/captures.js";
import { compileProgram } from "./compile.js";
import { formatDiagnostics } from "./diagnostics/report.js";
import type { FunctionLike } from "./parse/module.js";

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
  "Int32Array",
  "Uint32Array",
  "Uint8Array",
  "Boolean",
  "String",
  "isFinite",
  "isNaN",
  "console",
]);

/** nabla's operators, which a function may call by these names (nested differentiation). */
const OPERATORS = new Set([
  "derivative",
  "valueWithDerivative",
  "differential",
  "valueWithDifferential",
  "gradient",
  "valueWithGradient",
  "pullback",
  "valueWithPullback",
  "hessian",
  "hessianVectorProduct",
  "gradientAndHessianVectorProduct",
  "jacobian",
  "withoutDerivative",
  "withDerivative",
  "checkpoint",
]);

/** A function's source, parsed and checked to be self-contained. */
export interface FunctionSource {
  /** The text of an expression that evaluates to the function. */
  text: string;
  /** Offsets (in `text`) where each parameter's type annotation goes. */
  parameterEnds: number[];
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

/**
 * Parses `source` (what `Function.prototype.toString` gave) as a function expression and
 * checks that it only uses its parameters, its own locals and standard globals.
 */
export function parseFunctionSource(source: string): FunctionSource {
  // A method's text (`area(r) { … }`) is not an expression; as `function area(r) …` it is.
  for (const text of [`(${source})`, `(function ${source})`]) {
    const parsed = parseSync("function.js", `const $f = ${text};`, {
      sourceType: "module",
      preserveParens: false,
    });
    if (parsed.errors.length > 0) continue;
    const declaration = (parsed.program.body[0] as unknown as Node).declarations as Node[];
    const fn = declaration[0]!.init as Node;
    if (fn.type !== "ArrowFunctionExpression" && fn.type !== "FunctionExpression") continue;
    if (fn.async || fn.generator)
      throw new NotSelfContained("it is async or a generator, which nabla cannot differentiate");
    const offset = "const $f = ".length;
    const parameterEnds = (fn.params as Node[]).map((p) => {
      if (p.type !== "Identifier")
        throw new NotSelfContained(
          "its parameters are destructured or have defaults; give it plain parameters",
        );
      return p.end - offset;
    });
    // A named function expression may call itself by its name.
    const own = (fn.id as Node | null)?.name;
    const free = freeNames(fn as unknown as FunctionLike).filter(
      (name) => name !== own && !GLOBALS.has(name),
    );
    const unknown = free.filter((name) => !OPERATORS.has(name));
    if (unknown.length > 0)
      throw new NotSelfContained(`it uses '${unknown[0]}', defined outside it`, unknown[0]);
    return { text, parameterEnds, operators: free };
  }
  throw new NotSelfContained(
    "its source text is not a plain function (a native or bound function has none)",
  );
}

/** Operators the fallback compiles, with their run-time options. */
export interface FallbackRequest {
  operator: string;
  /** The operator's options object, as given (`{ wrt: … }`). */
  options?: unknown;
  /** TypeScript types of the parameters, from the values of the first call. */
  parameterTypes: string[];
  /** The function's name, if it has one. */
  name?: string;
}

/**
 * JavaScript for the body of a function taking the runtime namespace `$nabla` and returning
 * the operator's result for the function. Throws with the diagnostics when nabla cannot
 * differentiate it.
 */
export function compileFunctionSource(source: FunctionSource, request: FallbackRequest): string {
  const annotated = new MagicString(source.text);
  source.parameterEnds.forEach((end, i) =>
    annotated.appendLeft(end, `: ${request.parameterTypes[i] ?? "number"}`),
  );
  const options =
    request.options === undefined || request.options === null
      ? ""
      : `, { ${Object.entries(request.options)
          .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
          .join(", ")} }`;
  // The name diagnostics show for the function's text.
  const file = `/run-time/${request.operator}(${request.name ?? "function"}).ts`;
  // Named as the user named it, so that diagnostics and notes read as their code does.
  const name =
    request.name && /^[A-Za-z_$][\w$]*$/.test(request.name) && !OPERATORS.has(request.name)
      ? request.name
      : "f";
  const operators = [...new Set([request.operator, ...source.operators])];
  const text = [
    `import { ${operators.join(", ")} } from "nabla";`,
    `export const ${name} = ${annotated.toString()};`,
    `export const $derivative = ${request.operator}(${name}${options});`,
    "",
  ].join("\n");
  const compiled = compileProgram([file], { sources: new Map([[file, text]]) });
  const output = compiled.outputs.get(file);
  if (!output || compiled.diagnostics.some((d) => d.severity === "error"))
    throw new Error(
      `nabla could not differentiate ${request.name ? `'${request.name}'` : "this function"} at run time:\n${formatDiagnostics(compiled.diagnostics, compiled.sourceText)}`,
    );
  const runtimeImport = 'import * as $nabla from "nabla/runtime";';
  const body = output.code
    .split("\n")
    .filter((line) => line !== runtimeImport)
    .map((line) => line.replace(/^export (const|function) /, "$1 "))
    .join("\n");
  return `${body}\nreturn $derivative;`;
}
