import { TYPED_ARRAYS } from "./typed-arrays.js";
import { captureCallSite } from "./call-site.js";
import { checkWrtRange, readOptions, shown } from "./fallback-options.js";
import { NotCompiledError } from "./not-compiled.js";
import * as runtime from "./generated-code.js";
import { missingCompilerAdvice, missingCompilerPackage } from "./compiler-packages.js";

// The no-build fallback, on the runtime's side: an operator that runs uncompiled loads the
// compiler (in Node only, synchronously, since operators are synchronous), checks that the
// function is self-contained, and compiles it at its first call, once per kind of argument.
// See compiler/from-source.ts.

type Compiler = typeof import("../compiler/from-source.js");
type FunctionSource = import("../compiler/from-source.js").FunctionSource;
type AnyFunction = (...args: unknown[]) => unknown;

let compiler: Compiler | null | undefined;
/** Why the compiler could not be loaded. */
let compilerAbsence = "the compiler only runs in Node";

/** The compiler, where this runtime can load it: in Node, next to the runtime. */
function loadCompiler(): Compiler | null {
  if (compiler !== undefined) return compiler;
  const nodeProcess = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process;
  const nodeModule = nodeProcess?.getBuiltinModule?.("node:module") as
    { createRequire(from: string): (id: string) => unknown } | undefined;
  try {
    compiler = nodeModule
      ? (nodeModule.createRequire(import.meta.url)("../compiler/from-source.js") as Compiler)
      : null;
  } catch (error) {
    compiler = null; // A runtime copied without its compiler (a bundle for Node, say).
    const missing = missingCompilerPackage(error);
    if (missing) compilerAbsence = missingCompilerAdvice(missing);
  }
  return compiler;
}

/** Compiled derivatives of functions, by function, then by operator, options and argument types. */
const compiled = new WeakMap<object, Map<string, AnyFunction>>();

/** Parsed source text of functions (an operator may run on one function again and again). */
const sources = new WeakMap<object, FunctionSource>();

/**
 * What an operator returns when the program was not compiled: `f`'s derivative compiled from
 * its source text at the first call, or a NotCompiledError saying why it cannot be.
 */
export function compileAtRunTime(operator: string, f: unknown, options?: unknown): AnyFunction {
  // Cheap until read: only diagnostics read it, to name the caller's file and line.
  const callSite = captureCallSite(compileAtRunTime);
  if (typeof f !== "function")
    throw new TypeError(`nabla: ${operator} needs a function, and was given ${typeof f}`);
  // Checked before anything is generated from them; only integers and constants go on.
  const checked = readOptions(operator, options);
  const { wrt } = checked;
  const build = loadCompiler();
  if (!build) throw new NotCompiledError(operator, f, compilerAbsence);
  let source = sources.get(f);
  if (!source) {
    try {
      source = build.parseFunctionSource(Function.prototype.toString.call(f));
    } catch (error) {
      if (!(error instanceof build.NotSelfContained)) throw error;
      throw new NotCompiledError(operator, f, error.message, error.freeVariable);
    }
    sources.set(f, source);
  }
  const parsed = source;
  checkWrtRange(operator, wrt, parsed.arity);
  let byKey = compiled.get(f);
  if (!byKey) compiled.set(f, (byKey = new Map()));
  const cache = byKey;
  return (...args: unknown[]) => {
    const parameterTypes = args
      .slice(0, parsed.arity)
      .map((a, i) => typeOfValue(a, `argument ${i + 1}`, []));
    const key = `${operator} ${JSON.stringify(wrt ?? null)} ${checked.hasAux ?? false} ${checked.mode ?? ""} ${parameterTypes.join(", ")}`;
    let derivative = cache.get(key);
    if (!derivative) {
      const body = build.compileFunctionSource(parsed, {
        operator,
        ...(wrt === undefined ? {} : { wrt }),
        ...(checked.hasAux ? { hasAux: true } : {}),
        ...(checked.mode ? { mode: checked.mode } : {}),
        parameterTypes,
        ...(f.name ? { name: f.name } : {}),
        callSite,
      });
      derivative = new Function("$nabla", body)(runtime) as AnyFunction;
      cache.set(key, derivative);
    }
    return derivative(...args);
  };
}

/** The typed arrays an argument may be, by their constructors. */
const TYPED_ARRAY_KINDS = Object.values(TYPED_ARRAYS);

/**
 * The TypeScript type of an argument, for the compiler: what it holds, recursively. Field
 * names go into the type through JSON.stringify unless they are plain identifiers.
 */
function typeOfValue(value: unknown, where: string, enclosing: object[]): string {
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  const typed = TYPED_ARRAY_KINDS.find((kind) => value instanceof kind);
  if (typed) return typed.name;
  if (typeof value === "object" && value !== null && enclosing.includes(value))
    throw new TypeError(
      `nabla: ${where} holds itself; a function compiled at run time takes trees of values`,
    );
  const inside = [...enclosing, value as object];
  if (Array.isArray(value)) {
    if (value.length === 0) return "number[]";
    // A for loop, not map: a hole is an undefined element, and an error.
    const types: string[] = [];
    for (let i = 0; i < value.length; i++)
      types.push(typeOfValue(value[i], `${where}[${i}]`, inside));
    return types.every((t) => t === types[0]) ? `(${types[0]})[]` : `[${types.join(", ")}]`;
  }
  if (
    value !== null &&
    typeof value === "object" &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    const fields = Object.entries(value).map(([key, v]) => {
      // `{ __proto__: … }` in generated code sets the prototype instead of making a field.
      if (key === "__proto__")
        throw new TypeError(
          `nabla: ${where} has a field named "__proto__", which a function compiled at run time cannot take`,
        );
      const plain = /^[A-Za-z_$][\w$]*$/.test(key);
      const type = typeOfValue(v, plain ? `${where}.${key}` : `${where}[${shown(key)}]`, inside);
      return `${plain ? key : JSON.stringify(key)}: ${type}`;
    });
    return `{ ${fields.join("; ")} }`;
  }
  throw new TypeError(
    `nabla: ${where} is ${value === null ? "null" : typeof value === "object" ? `a ${value.constructor?.name ?? "object"}` : `a ${typeof value}`}; a function compiled at run time takes numbers, booleans, strings, arrays, typed arrays and plain objects of them`,
  );
}
