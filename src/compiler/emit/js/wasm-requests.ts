import { basename } from "node:path";
import type { Backend } from "../../../api/wasm-entry.js";
import type { Effects } from "../../analysis/effects.js";
import { writeOnlyParams } from "../../analysis/write-only-params.js";
import type { DerivativeTable } from "../../differentiate/derivative-table.js";
import type { Diagnostic, DiagnosticNote } from "../../diagnostics/diagnostic.js";
import type { Message } from "../../diagnostics/messages/message.js";
import { positionAt } from "../../diagnostics/format.js";
import { wasmFallback } from "../../diagnostics/messages/index.js";
import { keyName } from "../../ir/function-key.js";
import { derivativeKey, type DerivativeKind } from "../../ir/names.js";
import { isAggregate } from "../../ir/type-system.js";
import type { FunctionKey, IRFunction, Op, SourceLoc, Type } from "../../ir/types.js";
import { forEachOp } from "../../ir/walk.js";
import type { ModuleConstant, SourceModule } from "../../parse/module.js";
import type { OperatorCall } from "../../resolve/operator-call.js";
import type { DifferentiationTarget } from "../../resolve/targets.js";
import type { EmitNames, EmittedLine } from "./emitted.js";
import { emitFunction } from "./function.js";
import type { Replacement } from "./module.js";
import type { OperatorWrapper } from "./operators.js";
import { wasmTwin, type WasmTwin } from "./wasm-twin.js";

// What one module asks of the WebAssembly backend: the derivatives of its operator calls that
// say `backend: "wasm"` or `"auto"`, and its functions tagged `@backend wasm` or `auto`. Each
// becomes a twin (wasm-twin.ts) the module calls instead, or stays JavaScript with a comment
// saying why, and for a call's own `"wasm"` a warning (NABLA202): not for the program's
// (CompileOptions.backend), which would warn at every call that does not qualify.

/** A function tagged `@backend wasm` or `@backend auto`, which runs as WebAssembly itself. */
export interface WasmPrimal {
  target: DifferentiationTarget;
  backend: Exclude<Backend, "js">;
  key: FunctionKey;
}

export interface WasmRequestsContext {
  mod: SourceModule;
  table: DerivativeTable;
  /** A module-level name of the module, its own or imported: its declaration. */
  constant: (name: string) => ModuleConstant | undefined;
  /** A module-level name of the module's own (see ModuleNames.claim). */
  claim: (key: string, preferred: string) => string;
  names: EmitNames;
  /** The module's generated code, which twins and comments are appended to. */
  emitted: EmittedLine[][];
  report?: (diagnostic: Diagnostic) => void;
}

/**
 * Why a function stays JavaScript when it may change its argument arrays or objects, or a
 * module-level one (which the backend copies in, not back), or undefined. Points-to's precise writes where there are some
 * (an argument row passed through a `?:` with a row the function made and writes is not
 * written), else the alias classes'. Storing an array into an argument writes it, so that is
 * among them; storing an argument's rows into an array the function made (`[...rows]`) is not.
 * `names`: the parameters' names, to say which.
 */
function writesArguments(
  effects: Effects | undefined,
  names: (string | undefined)[],
): string | undefined {
  const written = effects
    ? [
        ...new Set([
          ...(effects.ownWrites ?? effects.writes),
          ...(effects.innerWrites ?? effects.writes),
        ]),
      ].sort((x, y) => x - y)
    : undefined;
  // Module-level arrays and objects are copied in per call, not back: written, they would
  // keep their old contents (differentiated code may not write them: NABLA105).
  const module = effects?.moduleWrites[0];
  if (module) return `it writes the module-level '${module.name}' (copied in, not back)`;
  if (written?.length === 0) return undefined;
  const named = written?.map((i) => names[i]) ?? [undefined];
  const which = named.every((n) => n)
    ? `its argument${named.length > 1 ? "s" : ""} ${named.map((n) => `'${n}'`).join(", ")}`
    : "its argument arrays";
  return `it may write ${which} (the backend copies arguments in, not back)`;
}

/**
 * The argument arrays and objects a function tagged `@backend wasm` writes (copied in and
 * back, or written in place: runtime/wasm.ts), or why it stays JavaScript: it stores arrays
 * into them, lengthens or shortens them, or writes module-level ones.
 */
function argumentWrites(
  effects: Effects | undefined,
  names: (string | undefined)[],
): number[] | string {
  if (!effects) return "nabla could not tell which of its arguments it writes";
  const module = effects.moduleWrites[0];
  if (module) return `it writes the module-level '${module.name}' (copied in, not back)`;
  const named = (set: Set<number>) => {
    const which = [...set].sort((x, y) => x - y).map((i) => names[i]);
    return which.every((n) => n)
      ? `its argument${which.length > 1 ? "s" : ""} ${which.map((n) => `'${n}'`).join(", ")}`
      : "its argument arrays";
  };
  if (effects.replaces.size > 0)
    return `it may store arrays or objects into ${named(effects.replaces)} (the backend copies only numbers back)`;
  if (effects.grows.size > 0) return `it may lengthen or shorten ${named(effects.grows)}`;
  return [
    ...new Set([
      ...(effects.ownWrites ?? effects.writes),
      ...(effects.innerWrites ?? effects.writes),
    ]),
  ].sort((x, y) => x - y);
}

/**
 * Whether what a function tagged `@backend wasm` returns may be, or hold, an array or object
 * that existed before the call (an argument, a row of one, a module-level array): the runtime
 * then hands back those objects themselves, as JavaScript does (`pick(a, b) === a`), not
 * copies of them.
 */
function mayReturnExisting(effects: Effects | undefined, result: Type | undefined): boolean {
  if (result === undefined || !isAggregate(result)) return false;
  if (!effects) return true;
  return (effects.sharedWithResult ?? effects.aliases).size > 0 || effects.returnsOld !== false;
}

/**
 * `text` as `//` comment lines: a reason may span lines (wabt's message, with its code frame),
 * and a line break left in a `//` comment would end it.
 */
export function commentLines(text: string): string[] {
  return text.split(/\r\n|[\n\r\u2028\u2029]/).map((line) => `// ${line}`.trimEnd());
}

export class WasmRequests {
  /** Twins made so far: one per wrapper (a call's wrapper is made per function it attaches to). */
  private twins = 0;
  /** The functions a wasm module may hold: derivatives, and primals (lowered on demand). */
  private readonly source = {
    get: (key: FunctionKey) =>
      this.context.table.derivatives.get(key) ??
      (this.context.table.signatureOf(key), this.context.table.primals.get(key)),
  };

  constructor(private readonly context: WasmRequestsContext) {}

  /**
   * `derivatives` (what an operator's wrapper calls) with the one it calls replaced by a
   * WebAssembly twin, or unchanged when the function does not qualify. `quiet`: the backend
   * is the program's, not the call's own, so no warning when it stays JavaScript.
   */
  derivatives(
    backend: Exclude<Backend, "js">,
    call: OperatorCall,
    primal: FunctionKey,
    wrt: number[],
    frozen: number[],
    aux: boolean,
    argumentCount: number,
    derivatives: Partial<OperatorWrapper>,
    quiet = false,
  ): Partial<OperatorWrapper> {
    const { table, claim, names } = this.context;
    const site = `${call.operator}(${call.target.name}) at ${this.place(call.call.start)}`;
    const keyOf = (kind: DerivativeKind) => derivativeKey(kind, primal, wrt, frozen);
    const types = table.signatureOf(primal)?.params ?? [];
    const shadows = wrt.filter((i) => types[i] !== undefined && isAggregate(types[i]!)).length;
    const writes = writesArguments(
      table.effects(primal),
      (table.primals.get(primal)?.params ?? []).map((p) => p.hint || undefined),
    );
    const name = claim(`wasm:${this.twins++}`, `${keyName(primal).replace(/\W/g, "_")}$wasm`);
    let twin: WasmTwin;
    /** The warning's text, where the reason is not about types. */
    let text: ((what: string, reason: string) => Message) | undefined;
    if (aux) {
      twin = { ok: false, reason: "'hasAux' is not covered yet" };
      text = (what) => wasmFallback.auxNotCovered(what);
    } else if (writes) {
      twin = { ok: false, reason: writes };
      text = wasmFallback.writesArguments;
    } else if (derivatives.vjp)
      twin = { ok: false, reason: "its reverse mode runs as a closure, not covered yet" };
    else if (derivatives.jvp || derivatives.grad)
      twin = wasmTwin({
        backend,
        source: this.source,
        entry: { kind: "function", key: keyOf(derivatives.jvp ? "jvp" : "grad") },
        // Reverse mode's shadows, after the arguments: the gradients of array arguments.
        written: derivatives.jvp ? [] : [...Array(shadows).keys()].map((k) => argumentCount + k),
        name,
        fallback: (derivatives.jvp ?? derivatives.grad)!,
        runtime: names.runtime,
        global: (g) => names.global(g),
        moduleFile: this.context.mod.file,
        site,
      });
    else {
      // The backward sweep's inputs index the arguments, then the differentiated parameters
      // in ascending order (operators.ts); the sweeps' entry takes the arguments, then the
      // shadows of the array and object ones only (`f(a: number, x: number[])`: dx is third).
      const shadowed = wrt.filter((i) => types[i] !== undefined && isAggregate(types[i]!));
      const bwdInputs = (derivatives.bwdInputs ?? []).map((k) =>
        k < argumentCount ? k : argumentCount + shadowed.indexOf(wrt[k - argumentCount]!),
      );
      const fallback = `${name}$sweeps`;
      twin = wasmTwin({
        backend,
        source: this.source,
        entry: { kind: "sweeps", fwd: keyOf("fwd"), bwd: keyOf("bwd"), bwdInputs },
        written: [...Array(shadows).keys()].map((k) => argumentCount + k),
        name,
        fallback,
        fallbackLines: this.sweepsAsOne(
          fallback,
          keyOf("fwd"),
          keyOf("bwd"),
          derivatives,
          bwdInputs,
        ),
        runtime: names.runtime,
        global: (g) => names.global(g),
        moduleFile: this.context.mod.file,
        site,
      });
    }
    if (twin.ok) {
      this.context.emitted.push(twin.lines);
      return derivatives.jvp ? { jvp: name } : { grad: name };
    }
    this.declined({ backend, call, quiet }, site, twin.reason, text);
    return derivatives;
  }

  /**
   * A pullback in WebAssembly (runtime/wasm-pullback.ts): the name of the function giving the
   * object of its two halves, `take(args…, shadows…)` (the forward sweep: the value, and the
   * memory it left) and `run(taken, args…, shadows…, seed)` (the backward sweep on that
   * memory: the adjoints as the backward sweep returns them). Undefined when the function
   * does not qualify: the pullback stays JavaScript, and says why. `returnsValue`: the caller
   * gets the value (valueWithPullback), which must then not be an argument of the function's.
   */
  pullback(
    choice: { backend: Exclude<Backend, "js">; call: OperatorCall; quiet: boolean },
    primal: FunctionKey,
    keys: { fwd: FunctionKey; bwd: FunctionKey },
    names: { fwd: string; bwd: string; bwdInputs: readonly number[] },
    wrt: number[],
    argumentCount: number,
    returnsValue: boolean,
  ): string | undefined {
    const { backend, call } = choice;
    const { table, claim } = this.context;
    const site = `${call.operator}(${call.target.name}) at ${this.place(call.call.start)}`;
    const types = table.signatureOf(primal)?.params ?? [];
    const shadowed = wrt.filter((i) => types[i] !== undefined && isAggregate(types[i]!));
    const writes = writesArguments(
      table.effects(primal),
      (table.primals.get(primal)?.params ?? []).map((p) => p.hint || undefined),
    );
    const result = table.signatureOf(primal)?.result ?? "number";
    const name = claim(`wasm:${this.twins++}`, `${keyName(primal).replace(/\W/g, "_")}$wasm`);
    const bwdInputs = names.bwdInputs.map((k) =>
      k < argumentCount ? k : argumentCount + shadowed.indexOf(wrt[k - argumentCount]!),
    );
    const count = argumentCount + shadowed.length;
    let twin: WasmTwin = writes
      ? { ok: false, reason: writes }
      : returnsValue && mayReturnExisting(table.effects(primal), result)
        ? {
            ok: false,
            reason:
              "it may return an array or object it was given, which a pullback in wasm would give as a copy",
          }
        : wasmTwin({
            backend,
            source: this.source,
            entry: { kind: "pullback", fwd: keys.fwd, bwd: keys.bwd, bwdInputs },
            written: shadowed.map((_, k) => argumentCount + k),
            name,
            fallback: `${name}$forward`,
            fallbackLines: this.pullbackHalves(name, names, count, bwdInputs, isAggregate(result)),
            pullback: { recompute: `${name}$recompute` },
            runtime: this.context.names.runtime,
            global: (g: string) => this.context.names.global(g),
            moduleFile: this.context.mod.file,
            site: `${site} (its pullback)`,
          });
    // A constant it reads is the same at every seed; a `let` or an array may have changed.
    const changing = twin.ok
      ? twin.globals.find((g) => g.copied || this.context.constant(g.name)?.kind !== "const")
      : undefined;
    if (changing)
      twin = {
        ok: false,
        reason: `it reads the module-level '${changing.name}', which may change before the pullback runs`,
      };
    if (!twin.ok) {
      this.declined(choice, site, twin.reason, writes ? wasmFallback.writesArguments : undefined);
      return undefined;
    }
    this.context.emitted.push(twin.lines);
    return name;
  }

  /**
   * `jacobian`'s forward passes along many directions at once (`f$jvps`, key `lanes`) as a
   * WebAssembly twin: its name, or `fallback` (the JavaScript function) when it does not
   * qualify. (Its reverse passes, when the function has more inputs than results, are
   * pullbacks: see `pullback`.)
   */
  lanes(
    choice: { backend: Exclude<Backend, "js">; call: OperatorCall; quiet: boolean },
    primal: FunctionKey,
    lanes: FunctionKey,
    fallback: string,
  ): string {
    const { backend, call } = choice;
    const { names, claim, table } = this.context;
    const site = `${call.operator}(${call.target.name}) at ${this.place(call.call.start)}`;
    const writes = writesArguments(
      table.effects(primal),
      (table.primals.get(primal)?.params ?? []).map((p) => p.hint || undefined),
    );
    const name = claim(`wasm:${this.twins++}`, `${keyName(primal).replace(/\W/g, "_")}$wasm`);
    const twin: WasmTwin = writes
      ? { ok: false, reason: writes }
      : wasmTwin({
          backend,
          source: this.source,
          entry: { kind: "function", key: lanes },
          written: [],
          name,
          fallback,
          runtime: names.runtime,
          global: (g) => names.global(g),
          moduleFile: this.context.mod.file,
          site: `${site} (its forward passes)`,
        });
    if (!twin.ok) {
      this.declined(choice, site, twin.reason);
      return fallback;
    }
    this.context.emitted.push(twin.lines);
    return name;
  }

  /** Says that `call` stays JavaScript because of `reason` (a warning unless `quiet`). */
  notCovered(
    backend: Exclude<Backend, "js">,
    call: OperatorCall,
    quiet: boolean,
    reason: string,
  ): void {
    const site = `${call.operator}(${call.target.name}) at ${this.place(call.call.start)}`;
    this.declined({ backend, call, quiet }, site, reason, wasmFallback.operatorNotCovered);
  }

  /**
   * A function tagged `@backend wasm` (or `auto`): its body replaced by a call of its twin,
   * whose fallback is the function emitted as JavaScript from its IR; or, when it does not
   * qualify, left as written.
   */
  primal({ target, backend, key }: WasmPrimal): Replacement[] {
    const { table, claim, names } = this.context;
    const node = target.node;
    const site = `${target.name} (@backend ${backend}) at ${this.place(node.start)}`;
    // What the body hands its twin, per parameter: its name (a default already applied), or
    // for a destructured one the argument as passed (`{ dt, gravity = -9.81 }: Options`).
    // A rest parameter is not covered.
    const passed = node.params.map((p, i) =>
      p.type === "Identifier"
        ? p.name
        : p.type === "AssignmentPattern" && p.left.type === "Identifier"
          ? p.left.name
          : p.type === "ObjectPattern" ||
              p.type === "ArrayPattern" ||
              p.type === "AssignmentPattern"
            ? `arguments[${i}]`
            : undefined,
    );
    /** The parameters' names, where they have one (for messages). */
    const params = passed.map((text) => (text?.startsWith("arguments[") ? undefined : text));
    // As the backend runs it: inner gradients with respect to arrays in reverse mode.
    const form = table.wasmPrimal(key);
    const fn = form.fn;
    const writes = argumentWrites(form.effects ?? table.effects(key), params);
    const name = claim(`wasm:${key}`, `${target.name}$wasm`);
    const fallback = claim(`wasm-fallback:${key}`, `${target.name}$js`);
    const declaration = node.type === "FunctionDeclaration" ? node : undefined;
    // Why it could not be lowered (lowered again to see it), phrased for a function run as
    // WebAssembly: notes point at each construct, followed by the error's own notes.
    const errors = fn || form.reason ? [] : table.loweringErrors(key, "wasm");
    const unread = errors.flatMap((d) => [{ message: d.message, loc: d.loc }, ...d.notes]);
    let twin: WasmTwin;
    let perElement: { op: Op; inside: string } | undefined;
    if (form.reason) twin = { ok: false, reason: form.reason };
    else if (!fn) twin = { ok: false, reason: "nabla could not read it" };
    else if (!declaration?.body || passed.includes(undefined))
      twin = {
        ok: false,
        reason: "only function declarations without a rest parameter are covered",
      };
    else if (typeof writes === "string") twin = { ok: false, reason: writes };
    else if (
      (perElement = perElementOperator(fn, (k) => form.helpers?.get(k) ?? table.primals.get(k)))
    )
      twin = {
        ok: false,
        reason: `the inner '${perElement.op.attrs.calleeName ?? "gradient"}' with respect to an array in '${perElement.inside}', which it calls, would run in forward mode there, one pass of the function per element; as JavaScript it runs in reverse mode, in one`,
      };
    else
      twin = wasmTwin({
        backend,
        // The function in the form the backend runs, under its own key (a recursive call too).
        // Helpers taking inner gradients in theirs (in reverse mode, as the function's own).
        source: { get: (k) => (k === key ? fn : (form.helpers?.get(k) ?? this.source.get(k))) },
        entry: { kind: "function", key },
        written: writes,
        writeOnly: writeOnlyParams(fn, writes),
        returnsExisting: mayReturnExisting(form.effects ?? table.effects(key), fn.resultTypes[0]),
        name,
        fallback,
        fallbackLines: emitFunction({ ...fn, name: fallback }, names, false),
        runtime: names.runtime,
        global: (g) => names.global(g),
        moduleFile: this.context.mod.file,
        site,
      });
    if (twin.ok && declaration?.body) {
      this.context.emitted.push(twin.lines);
      const { start, end } = declaration.body;
      return [{ start, end, text: `{ return ${name}(${passed.join(", ")}); }` }];
    }
    // The function's head, `function name`.
    const head = { start: node.start, end: declaration?.id?.end ?? node.start + 1 };
    const reason = twin.ok ? "" : twin.reason;
    this.stayJavaScript(
      backend === "wasm",
      site,
      `'${target.name}'`,
      reason,
      { file: this.context.mod.file, ...head },
      errors.length
        ? (what) => wasmFallback.functionNotRead(what, errors.length)
        : perElement
          ? (what, reason) => wasmFallback.perElementOperator(what, reason, perElement!.inside)
          : wasmFallback.runsAsJavaScript,
      perElement
        ? [{ message: wasmFallback.perElementHere().message, loc: perElement.op.loc }]
        : unread,
    );
    return [];
  }

  /** Reverse mode's two sweeps as one JavaScript function, with the fused gradient's convention. */
  private sweepsAsOne(
    name: string,
    fwdKey: FunctionKey,
    bwdKey: FunctionKey,
    derivatives: Partial<OperatorWrapper>,
    /** The backward sweep's inputs, as positions among the entry's parameters. */
    bwdInputs: readonly number[],
  ): EmittedLine[] {
    const runtime = this.context.names.runtime;
    const fwdCount = this.source.get(fwdKey)?.params.length ?? 0;
    const bwdResults = this.source.get(bwdKey)?.resultTypes.filter((t) => t !== "void").length ?? 0;
    const a = [...Array(fwdCount).keys()].map((i) => `a${i}`);
    const inputs = bwdInputs.map((k) => `a${k}`);
    const back = `${derivatives.bwd}(seed, ${inputs.join(", ")})`;
    return [
      `function ${name}(${[...a, "seed"].join(", ")}) {`,
      `  const value = ${derivatives.fwd}(${a.join(", ")});`,
      // The backward sweep's adjoints first (the others in `out`), then the value.
      ...(bwdResults > 0
        ? [
            `  const first = ${back};`,
            `  ${runtime}.out.v${bwdResults} = value;`,
            "  return first;",
          ]
        : [`  ${back};`, "  return value;"]),
      "}",
    ].map((text) => ({ text, indent: 0, loc: undefined }));
  }

  /**
   * A wasm pullback's halves in JavaScript (its fallbacks): `name$forward(args…, shadows…)`,
   * the forward sweep leaving nothing on the tape, and `name$recompute(args…, shadows…,
   * seed)`, both sweeps at a seed → the backward sweep's results.
   */
  private pullbackHalves(
    name: string,
    sweeps: { fwd: string; bwd: string },
    count: number,
    /** The backward sweep's inputs, as positions among the parameters. */
    bwdInputs: readonly number[],
    aggregate: boolean,
  ): EmittedLine[] {
    const runtime = this.context.names.runtime;
    const a = [...Array(count).keys()].map((i) => `a${i}`);
    const inputs = bwdInputs.map((k) => `a${k}`);
    const mark = `const mark = ${runtime}.tape.top, objectMark = ${runtime}.tape.objects.length;`;
    return [
      `function ${name}$forward(${a.join(", ")}) {`,
      `  ${mark}`,
      `  try {`,
      `    return ${sweeps.fwd}(${a.join(", ")});`,
      `  } finally {`,
      `    ${runtime}.tapeReset(mark, objectMark);`,
      `  }`,
      "}",
      `function ${name}$recompute(${[...a, "seed"].join(", ")}) {`,
      `  ${mark}`,
      `  try {`,
      `    const value = ${sweeps.fwd}(${a.join(", ")});`,
      // An array result's shadow, which the forward sweep leaves in `out.v1`, takes the seed.
      ...(aggregate
        ? [
            `    ${runtime}.seedTangent(${runtime}.out.v1, seed, ${runtime}.resultShape(value));`,
            `    return ${sweeps.bwd}(${inputs.join(", ")});`,
          ]
        : [`    return ${sweeps.bwd}(${["seed", ...inputs].join(", ")});`]),
      `  } catch (error) {`,
      `    ${runtime}.tapeReset(mark, objectMark);`,
      `    throw error;`,
      `  }`,
      "}",
    ].map((text) => ({ text, indent: 0, loc: undefined }));
  }

  /** Says why an operator call's derivative stays JavaScript (warning when asked for as wasm). */
  private declined(
    choice: { backend: Exclude<Backend, "js">; call: OperatorCall; quiet: boolean },
    site: string,
    reason: string,
    text?: (what: string, reason: string) => Message,
  ): void {
    const { backend, call, quiet } = choice;
    this.stayJavaScript(
      backend === "wasm" && !quiet,
      site,
      `'${call.operator}'`,
      reason,
      call.loc,
      text,
    );
  }

  /** Says in the module, and when `warn` in a warning, why `what` stays JavaScript. */
  private stayJavaScript(
    warn: boolean,
    site: string,
    what: string,
    reason: string,
    loc: SourceLoc,
    text: (what: string, reason: string) => Message = wasmFallback.runsAsJavaScript,
    /** Where and why, in the warning's notes; the comment says them too. */
    notes: DiagnosticNote[] = [],
  ): void {
    // The notes' texts, each with its place, on lines of their own.
    const where = notes.map((n) =>
      n.loc ? `\n${n.message} (${this.place(n.loc.start, n.loc.file)})` : `\n${n.message}`,
    );
    this.context.emitted.push(
      commentLines(`${site}: JavaScript, not WebAssembly: ${reason}${where.join("")}`).map(
        (text) => ({
          text,
          indent: 0,
          loc: undefined,
        }),
      ),
    );
    if (warn)
      this.context.report?.({
        severity: "warning",
        ...text(what, reason),
        loc,
        notes,
      });
  }

  /** `main.ts:3:13`, for the comments (in another module's `file`, its name alone). */
  private place(offset: number, file = this.context.mod.file): string {
    const { mod } = this.context;
    if (file !== mod.file) return basename(file);
    const at = positionAt(mod.text, offset);
    return `${basename(file)}:${at.line}:${at.column}`;
  }
}

/**
 * An operator call in a function `fn` calls that runs once per element of an array
 * (lower/nested.ts: an inner `gradient` with respect to an array, in forward mode), and the
 * function it is in. (In `fn` itself, lowered for WebAssembly, it runs in reverse mode.)
 */
function perElementOperator(
  fn: IRFunction,
  lowered: (key: FunctionKey) => IRFunction | undefined,
): { op: Op; inside: string } | undefined {
  const seen = new Set<FunctionKey>();
  const visit = (f: IRFunction): { op: Op; inside: string } | undefined => {
    let found: { op: Op; inside: string } | undefined;
    forEachOp(f.body, (op) => {
      if (found || op.opcode !== "call") return;
      if (op.attrs.repeated) found = { op, inside: f.name };
      const callee = op.attrs.callee;
      if (found || !callee || seen.has(callee)) return;
      seen.add(callee);
      const inner = lowered(callee);
      if (inner) found = visit(inner);
    });
    return found;
  };
  return visit(fn);
}
