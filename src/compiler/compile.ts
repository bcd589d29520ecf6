import { parameterFunctionTypeOf } from "./types/resolver.js";
import { notes } from "./diagnostics/messages/index.js";
import {
  badOperatorUse,
  internalError,
  moduleNotFound,
  parseError,
} from "./diagnostics/messages/index.js";
import { forEachOp } from "./ir/walk.js";
import { typeModuleConstants } from "./types/constant-types.js";
import type { Forwarding } from "./resolve/attachments.js";
import { findRequests, type ValueOperatorUse } from "./resolve/requests.js";
import { functionLabel } from "./ir/names.js";
import { typePhrase } from "./ir/type-system.js";
import { isStackOverflow, STACK_OVERFLOW_ADVICE } from "./diagnostics/stack-overflow.js";
import { DiagnosticBag, type Diagnostic, type DiagnosticNote } from "./diagnostics/diagnostic.js";
import { Differentiator } from "./differentiate/differentiator.js";
import { JS_CHOICES } from "./emit/js/choices.js";
import { TransformError, type ModuleOutput } from "./emit/js/module.js";
import { ModuleNames } from "./emit/js/module-names.js";
import { collectRules } from "./resolve/rules.js";
import { isAggregate, isNumberMatrix, isObject } from "./ir/type-system.js";
import type { FunctionKey, IRFunction } from "./ir/types.js";
import { genericKey, keyName } from "./ir/function-key.js";
import type { SourceModule } from "./parse/module.js";
import { ProgramGraph, isLocalSpecifier, type PathKind } from "./parse/program.js";
import { isHigherOrder, modeOf, type HigherOrderOperator } from "../api/operators.js";
import { isNumberVector, type OperatorCall } from "./resolve/operator-call.js";
import type { PassObserver } from "./differentiate/pipeline.js";
import {
  emitModule,
  homeOf,
  hvpKey,
  hvpWrt,
  type OperatorUse,
  type WasmPrimal,
} from "./emit/js/program-module.js";
import type { ActivityObserver } from "./analysis/activity.js";
import { keyFile } from "./ir/function-key.js";

// The compiler driver: parse the program from its entry files, find what to differentiate,
// differentiate on demand, and emit every module with its derivatives.

/** Options of {@link compileProgram}. */
export interface CompileOptions {
  /**
   * Source text to use instead of the file on disk, by absolute file path (an editor's unsaved
   * buffer, a bundler's loaded text).
   */
  sources?: Map<string, string>;
  /**
   * Sees every function the compiler builds after each pass of its pipeline (see
   * differentiate/pipeline.ts): how `nabla emit --ir --print-after=<pass>` prints them.
   */
  observe?: PassObserver;
  /**
   * Sees the activity analysis of each function differentiated (`nabla emit --activity`).
   * @internal
   */
  observeActivity?: ActivityObserver;
  /**
   * The backend of every operator call that does not name one (a call's own `backend` option
   * wins): `"wasm"`, `"auto"` or `"js"` (the default). Unlike a call's own `"wasm"`, a
   * program-wide `"wasm"` does not warn (NABLA202) where a call stays JavaScript: in a whole
   * program most would; the module's comment still says why.
   */
  backend?: "js" | "wasm" | "auto";
}

/** What {@link compileProgram} returns. */
export interface CompileResult {
  /** Errors and warnings, in the order found; print them with {@link formatDiagnostics}. */
  diagnostics: Diagnostic[];
  /** Output per source file, for every file of the program. Empty when there are errors. */
  outputs: Map<string, ModuleOutput>;
  /** Lowered primal functions and generated derivatives, by key, for inspection and tests. */
  functions: Map<FunctionKey, IRFunction>;
  /** The text the compiler read for `file` (what diagnostics point into), if it read it. */
  sourceText(file: string): string | undefined;
  /** Every file the compiler read (sources, type declarations and manifests of packages), with its text. */
  inputs(): Map<string, string>;
  /** Every path module resolution looked at, with what it found there (see ProgramGraph.probes). */
  probes(): Map<string, PathKind>;
}

/**
 * Compiles a program: reads the entry files and every file they import, finds the operator
 * calls, differentiates what they need, and emits each module as JavaScript (types stripped,
 * operator calls replaced, derivative code appended) with a source map. Nothing is written
 * to disk.
 *
 * @param entries - absolute paths of the program's entry files.
 * @returns the outputs by file, or no outputs and the errors in `diagnostics`.
 *
 * @example
 * ```ts
 * import { compileProgram, formatDiagnostics } from "nabla/compiler";
 *
 * const result = compileProgram(["/abs/path/main.ts"]);
 * if (result.diagnostics.length > 0)
 *   console.error(formatDiagnostics(result.diagnostics, result.sourceText));
 * for (const [file, output] of result.outputs) console.log(file, output.code.length);
 * ```
 */
export function compileProgram(entries: string[], options: CompileOptions = {}): CompileResult {
  const program = new ProgramGraph(typeModuleConstants, options.sources);
  const bag = new DiagnosticBag();
  const result: CompileResult = {
    diagnostics: bag.items,
    outputs: new Map(),
    functions: new Map(),
    sourceText: (file) => program.sourceText(file),
    inputs: () => program.inputs(),
    probes: () => program.probes(),
  };
  // The module being worked on, for a diagnostic if the compiler runs out of stack there.
  const current = { file: entries[0] ?? "" };
  try {
    compileInto(program, bag, result, entries, current, options);
  } catch (error) {
    if (!isStackOverflow(error) || process.env.NABLA_DEBUG) throw error;
    bag.add({
      severity: "error",
      ...internalError.cannotEmitThisModule(STACK_OVERFLOW_ADVICE),
      loc: { file: current.file, start: 0, end: 0 },
      notes: [],
    });
    result.outputs.clear();
  }
  // Reported in source order, each file's problems from the top, whatever order found them.
  bag.sortBySource(program.loadedModules().map((m) => m.file));
  return result;
}

function compileInto(
  program: ProgramGraph,
  bag: DiagnosticBag,
  result: CompileResult,
  entries: string[],
  current: { file: string },
  observers: Pick<CompileOptions, "observe" | "observeActivity" | "backend">,
): void {
  const modules = collectModules(program, entries, bag, current);
  const differentiator = new Differentiator(
    program,
    bag,
    JS_CHOICES,
    observers.observe,
    observers.observeActivity,
  );
  // Unparsable or missing files would only cause follow-on errors.
  if (bag.hasErrors) return;
  program.rules = collectRules(program, modules, bag);

  const calls: OperatorUse[] = [];
  const valueOperators = new Map<string, ValueOperatorUse[]>();
  const forwards = new Map<string, Forwarding[]>();
  const wasmPrimals = new Map<string, WasmPrimal[]>();
  for (const mod of modules) {
    current.file = mod.file;
    const requests = findRequests(program, mod);
    requests.diagnostics.forEach((d) => bag.add(d));
    valueOperators.set(mod.file, requests.valueOperators);
    forwards.set(mod.file, requests.forwards);
    wasmPrimals.set(
      mod.file,
      requests.backends.map((b) => ({ ...b, key: differentiator.register(b.target) })),
    );
    for (const call of requests.calls) {
      const wrt = [...call.wrt].sort((a, b) => a - b);
      const note = {
        ...(call.call.arguments[0] === call.target.node ||
        /^lambda_\d+_\d+(\$aux)?$/.test(call.target.name)
          ? notes.whenDifferentiatingFunctionGiven(call.operator)
          : notes.whenDifferentiatingFor(functionLabel(call.target.name), call.operator)),
        loc: call.loc,
      };
      if (isHigherOrder(call.operator)) {
        const primal = requestHigherOrder(differentiator, call, wrt, note, bag);
        if (primal) calls.push({ call, wrt, primal });
        continue;
      }
      const fused = call.operator === "gradient" || call.operator === "valueWithGradient";
      const pulled = call.operator === "pullback" || call.operator === "valueWithPullback";
      const mode = fused ? "gradient" : pulled ? "pullback" : modeOf(call.operator);
      const optional = call.attach ? notes.attachedForPlainRuns().message : undefined;
      const primal = differentiator.request(call.target, wrt, mode, [note], optional);
      calls.push({ call, wrt, primal });
    }
    for (const target of requests.declared) {
      const note = {
        ...notes.declaredDifferentiableHere(target.name),
        loc: { file: mod.file, start: target.node.start, end: target.node.start + 1 },
      };
      // Function-typed parameters have no derivative: they are not among those differentiated.
      const all = target.node.params.flatMap((p, i) =>
        parameterFunctionTypeOf(program, mod, p) ? [] : [i],
      );
      differentiator.request(target, all, "forward", [note]);
      differentiator.request(target, all, "reverse", [note]);
    }
  }
  // Functions to run as WebAssembly: what their inner gradients need is built with the rest.
  for (const list of wasmPrimals.values())
    for (const p of list) differentiator.prepareWasmPrimal(p.key, []);
  current.file = entries[0] ?? "";
  differentiator.run();
  // Functions to run as WebAssembly are lowered like the functions differentiated.
  for (const list of wasmPrimals.values()) for (const p of list) differentiator.signatureOf(p.key);

  for (const map of [differentiator.primals, differentiator.derivatives]) {
    for (const [key, fn] of map) if (fn) result.functions.set(key, fn);
  }
  if (bag.hasErrors) return;

  const shared = sharedPrimals(differentiator.derivatives);
  const names = nameGenerated(program, modules, differentiator.derivatives);
  for (const mod of modules) {
    const own = calls.filter((c) => c.call.loc.file === mod.file);
    const derivatives = [...differentiator.derivatives.values()].filter(
      (fn): fn is IRFunction => fn !== undefined && homeOf(fn) === mod.file,
    );
    current.file = mod.file;
    try {
      result.outputs.set(
        mod.file,
        emitModule(program, mod, own, derivatives, differentiator, names, {
          shared: shared.get(mod.file),
          valueOperators: valueOperators.get(mod.file),
          forwards: forwards.get(mod.file),
          report: (diagnostic) => bag.add(diagnostic),
          wasmPrimals: wasmPrimals.get(mod.file),
          ...(observers.backend ? { backend: observers.backend } : {}),
        }),
      );
    } catch (error) {
      // A compiler bug in emission is still a diagnostic, never a crash (NABLA_DEBUG rethrows).
      if (!(error instanceof TransformError) && process.env.NABLA_DEBUG) throw error;
      const message = error instanceof Error ? error.message : String(error);
      bag.add({
        severity: "error",
        ...(error instanceof TransformError
          ? parseError.fromParser(message)
          : isStackOverflow(error)
            ? internalError.cannotCompileThisModule(STACK_OVERFLOW_ADVICE)
            : internalError.whileEmitting(message)),
        loc: { file: mod.file, start: 0, end: 0 },
        notes: [],
      });
    }
  }
}

/**
 * The derivatives `hessian`, `hessianVectorProduct` and `jacobian` are built from (see
 * emit/js/higher-order.ts): a JVP, then the gradient of its primal form (reverse over forward) for
 * second derivatives; forward and reverse mode for a Jacobian.
 */
function requestHigherOrder(
  differentiator: Differentiator,
  call: OperatorCall,
  wrt: number[],
  note: DiagnosticNote,
  bag: DiagnosticBag,
): FunctionKey | undefined {
  const primal = differentiator.register(call.target);
  const result = differentiator.signatureOf(primal)?.result;
  if (result === undefined) {
    // Lowering failed: a demand reports why.
    differentiator.request(call.target, wrt, "forward", [note]);
    return undefined;
  }
  if (call.operator === "jacobian") {
    const number = result === "number";
    const vector = isNumberVector(result);
    if (!number && !vector) {
      bag.add({
        severity: "error",
        ...badOperatorUse.jacobianNeedsFunctionReturningNumber(typePhrase(result)),
        loc: call.loc,
        notes: [],
      });
      return undefined;
    }
    // A number-valued function's Jacobian is its gradient (or, with `mode: "forward"`, n
    // JVPs); others need both modes unless `mode` picks one, and with respect to an array,
    // forward mode along all directions at once.
    // With respect to an object, reverse mode only (resolve/operator-call.ts).
    const ofObject = wrt.some((i) =>
      isObject(differentiator.signatureOf(primal)?.params[i] ?? "number"),
    );
    const mode = ofObject ? "reverse" : call.mode;
    // With respect to several parameters, forward mode is each one's forward mode (the
    // Jacobian's blocks side by side), reverse mode one pullback with respect to all.
    if (number) {
      if (mode !== "forward") differentiator.request(call.target, wrt, "gradient", [note]);
      else for (const i of wrt) differentiator.request(call.target, [i], "forward", [note]);
      return primal;
    }
    if (mode !== "reverse")
      for (const i of wrt) {
        differentiator.request(call.target, [i], "forward", [note]);
        const x = differentiator.signatureOf(primal)?.params[i];
        // With respect to rows (number[][]): a differential per direction, not lanes.
        if (x !== undefined && isAggregate(x) && !isNumberMatrix(x))
          differentiator.request(call.target, [i], "lanes", [note]);
      }
    if (mode !== "forward") differentiator.request(call.target, wrt, "reverse", [note]);
    return primal;
  }
  if (result !== "number") {
    bag.add({
      severity: "error",
      ...badOperatorUse.needsNumberValuedFunctionThis(call.operator, typePhrase(result)),
      loc: call.loc,
      notes: [],
    });
    return undefined;
  }
  differentiator.request(call.target, wrt, "forward", [note]);
  differentiator.requestKey(
    hvpKey(primal, wrt),
    hvpWrt(differentiator, primal, call.operator as HigherOrderOperator, wrt),
    "gradient",
    [note],
  );
  return primal;
}

/** The entry files and every user file they reach through relative imports and re-exports. */
function collectModules(
  program: ProgramGraph,
  entries: string[],
  bag: DiagnosticBag,
  current: { file: string },
): SourceModule[] {
  const seen = new Set<string>();
  const order: SourceModule[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    current.file = file;
    const mod = program.load(file);
    order.push(mod);
    for (const p of [...mod.problems, ...mod.unsupported]) {
      const loc = { file, start: p.start, end: p.end };
      bag.add({ severity: "error", code: p.code, message: p.message, loc, notes: [] });
    }
    for (const statement of mod.program.body) {
      const literal =
        statement.type === "ImportDeclaration" ||
        statement.type === "ExportAllDeclaration" ||
        statement.type === "ExportNamedDeclaration"
          ? statement.source
          : null;
      if (!literal || !isLocalSpecifier(file, String(literal.value))) continue;
      const target = program.resolveRelative(file, String(literal.value));
      if (!target) {
        bag.add({
          severity: "error",
          ...moduleNotFound.cannotFindModule(String(literal.value)),
          loc: { file, start: literal.start, end: literal.end },
          notes: [],
        });
      } else if (/\.(c|m)?tsx?$/.test(target)) {
        visit(target);
      }
    }
  };
  entries.forEach(visit);
  return order;
}

/**
 * The names of what the program's modules get besides the user's code (see
 * emit/js/module-names.ts): per module, the runtime import, the generated functions it defines
 * and the variables holding the rules it registers, renamed where the module writes their
 * name, before any module refers to them. Import aliases, hoisted `withDerivative` functions
 * and the exports of functions shared with generated code elsewhere are claimed as emission
 * meets them (once per key, so every module agrees on them).
 */
function nameGenerated(
  program: ProgramGraph,
  modules: SourceModule[],
  derivatives: Map<FunctionKey, IRFunction | undefined>,
): Map<string, ModuleNames> {
  const names = new Map(modules.map((m) => [m.file, new ModuleNames(m)]));
  const renamed = new Set<IRFunction>();
  for (const fn of derivatives.values()) {
    const home = fn && names.get(homeOf(fn));
    if (!fn || !home || renamed.has(fn)) continue;
    renamed.add(fn);
    fn.name = home.claim(`function:${fn.key}`, fn.name);
  }
  for (const [key, rule] of program.rules) {
    const home = names.get(rule.registration.module.file);
    if (home) rule.constName = home.claim(`rule:${key}`, rule.constName);
  }
  return names;
}

/**
 * The user functions that generated code in another module calls or uses as a value, by
 * their module: a specialization emitted in `rk4`'s module calls the `dynamics` of its
 * caller's module, which need not be exported, so that module exports it under a generated
 * name (see sharedName).
 */
function sharedPrimals(
  derivatives: Map<FunctionKey, IRFunction | undefined>,
): Map<string, Set<string>> {
  const shared = new Map<string, Set<string>>();
  for (const fn of derivatives.values()) {
    if (!fn) continue;
    const home = homeOf(fn);
    forEachOp(fn.body, (op) => {
      const key =
        op.opcode === "call" && !op.attrs.method && !op.attrs.primal
          ? op.attrs.callee
          : op.opcode === "global"
            ? op.attrs.function
            : undefined;
      if (key && !derivatives.has(key) && keyFile(key) !== home) {
        const file = keyFile(key);
        if (!shared.has(file)) shared.set(file, new Set());
        // `scenario.load`, `schedule[1]` (functions in module data): shared through their object.
        shared.get(file)!.add(keyName(genericKey(key)).split(/[.[]/)[0]!);
      }
    });
  }
  return shared;
}
