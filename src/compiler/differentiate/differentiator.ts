import { notes } from "../diagnostics/messages/index.js";
import { nestedDifferentiation, type CodeContext } from "../diagnostics/messages/index.js";
import { forEachOp } from "../ir/walk.js";
import { pureFunctions, sinkIntoBranches } from "../ir/sink.js";
import type { DerivativeTable } from "./derivative-table.js";
import { type CallVaried } from "../analysis/activity.js";
import { type EffectsOf } from "../analysis/effects.js";
import { isAggregate, isKeyed, isRecursiveType } from "../ir/type-system.js";
import { unsupportedType } from "../diagnostics/messages/index.js";
import { isStackOverflow, STACK_OVERFLOW_ADVICE } from "../diagnostics/stack-overflow.js";
import { CallSummaries } from "../analysis/call-summaries.js";
import { internalError } from "../diagnostics/messages/index.js";
import {
  CompileAbort,
  type Diagnostic,
  type DiagnosticBag,
  type DiagnosticNote,
} from "../diagnostics/diagnostic.js";
import type { FunctionKey, IRFunction, Op, OpAttrs, Type } from "../ir/types.js";
import { lowerFunction } from "../lower/function.js";
import type { LowerOptions } from "../lower/context.js";
import type { ProgramGraph } from "../parse/program.js";
import { linearize, type DerivativeDemand } from "./linearize.js";
import { returnNoValue } from "./unread-value.js";
import {
  derivativeKey,
  derivativeName,
  functionLabel,
  lanesKey,
  type DerivativeKind,
} from "../ir/names.js";
import { ReverseInfo } from "./residuals.js";
import { MODULE_DATA, STRUCTURE } from "./frozen-memory.js";
import { vjpPays } from "./sweeps.js";
import type { BackendChoices } from "./backend-choices.js";
import { jvpAsPrimal } from "./nest.js";
import { parseDerivativeKey, parseDerivedPrimalKey } from "../ir/names.js";
import { symbolKey } from "../ir/function-key.js";
import type { DifferentiationTarget } from "../resolve/targets.js";
import { namedTarget } from "../resolve/operator-call.js";
import { runPipeline, type PassObserver } from "./pipeline.js";
import { Inlining } from "./inlining.js";
import type { ActivityObserver } from "../analysis/activity.js";
import { SweepBuilder, type PendingSweeps } from "./sweep-builder.js";
import { bodiless, KINDS, type Demand, type Mode } from "./demand.js";
import { checkDerivable } from "./derivability.js";
import { checkpointSweeps } from "./checkpoint-demand.js";
import { OptionalDemands } from "./optional-demands.js";
import { ruleDerivatives } from "./rule-derivatives.js";
import { activeCallees, writtenCallees, type IndependentCallee } from "./independent-callees.js";
import { isDifferentiable } from "../ir/type-system.js";
import { WasmPrimals, type WasmPrimalForm } from "./wasm-primals.js";

/**
 * How many times a derivative may be differentiated again (derivative of derivative…, each
 * level of nested operators, a Hessian's reverse over forward): more than programs write, and
 * few enough to stop a function that differentiates itself (see refuseEveryOrder).
 */
const MAX_DERIVED_ORDER = 6;

// Differentiates on demand: lowers a function once, and generates each of its derivative
// configurations once (per set of differentiated parameters), however many callers need it.
// The callees a derivative needs are queued with the call chain that reached them, so a
// diagnostic deep in a callee says how differentiation got there.

export class Differentiator implements DerivativeTable {
  readonly primals = new Map<FunctionKey, IRFunction | undefined>();
  readonly derivatives = new Map<FunctionKey, IRFunction | undefined>();
  private readonly targets = new Map<FunctionKey, DifferentiationTarget>();
  private readonly queue: Demand[] = [];

  constructor(
    private readonly program: ProgramGraph,
    private readonly diagnostics: DiagnosticBag,
    /** The engine-dependent choices of the backend that runs the output. */
    private readonly choices: BackendChoices,
    /** Sees each function after each pass (`nabla emit --ir --print-after`). */
    private readonly observe?: PassObserver,
    /** Sees the activity of each function differentiated (`nabla emit --activity`). */
    private readonly observeActivity?: ActivityObserver,
  ) {
    this.inlining = new Inlining({
      lowered: (key) => this.lowered(key),
      hasRule: (key) => this.program.rules.has(key),
      effects: this.effects,
      paramTypesOf: (key) => this.signatureOf(key)?.params,
      ...(observe ? { observe } : {}),
      ...(observeActivity ? { observeActivity } : {}),
    });
    this.optionals = new OptionalDemands({
      diagnostics: this.diagnostics,
      primals: this.primals,
      derivatives: this.derivatives,
      targets: this.targets,
    });
    this.sweeps = new SweepBuilder({
      derivatives: this.derivatives,
      lowered: (key) => this.lowered(key),
      hasRule: (key) => this.program.rules.has(key),
      effects: this.effects,
      fail: (error, chain, key) => this.fail(error, chain, key),
      ...(observe ? { observe } : {}),
    });
    this.wasmPrimals = new WasmPrimals({
      lowerForWasm: (key) => this.lowerForWasm(key),
      lowered: (key) => this.lowered(key),
      requestSweeps: ({ key, wrt }, chain) =>
        this.queue.push({
          key,
          wrt,
          mode: "gradient",
          chain,
          root: true,
          frozen: [],
          optional: "it is computed in reverse mode inside a function run as WebAssembly",
        }),
      derivatives: this.derivatives,
      rootFrozen: (key) => this.rootFrozen(key),
      inputsOf: (key) => this.inputsOf(key),
      effects: (key) => this.effects(key),
      ...(this.observe ? { observe: this.observe } : {}),
    });
  }

  /** The functions tagged `@backend wasm`, as that backend runs them (see wasm-primals.ts). */
  private readonly wasmPrimals: WasmPrimals;

  /** Prepares the function tagged `@backend wasm` with `key` (before `run`). */
  prepareWasmPrimal(key: FunctionKey, chain: DiagnosticNote[]): void {
    this.wasmPrimals.prepare(key, chain);
  }

  wasmPrimal(key: FunctionKey): WasmPrimalForm {
    return this.wasmPrimals.get(key);
  }

  /** `key` lowered for a function run as WebAssembly, not kept among the primals. */
  private lowerForWasm(key: FunctionKey): IRFunction | undefined {
    const target = this.targets.get(key);
    if (!target) return undefined;
    try {
      const lowered = lowerFunction(this.program, target.module, key, target.name, target.node, {
        ...this.loweringOptions(key, target),
        codeContext: "wasm",
      });
      for (const call of lowered.calls) {
        if (!this.targets.has(call.key))
          this.targets.set(call.key, call.target ?? namedTarget(call.symbol));
      }
      runPipeline("lowered", lowered.fn, this.observe);
      this.deriveCallees(lowered.fn, []);
      return lowered.fn;
    } catch {
      return undefined;
    }
  }

  /** Small callees inlined before linearizing (see inlining.ts). */
  private readonly inlining: Inlining;
  /** Reverse mode's sweeps, built once every demand is known (see sweep-builder.ts). */
  private readonly sweeps: SweepBuilder;

  /**
   * What the backward sweep with `key` takes after its seed: JVP parameter positions (see
   * SweepBuilder.inputsOf).
   */
  inputsOf(key: FunctionKey): readonly number[] {
    return this.sweeps.inputsOf(key);
  }

  static keyOf(target: { module: { file: string }; name: string }): FunctionKey {
    return symbolKey(target);
  }

  /**
   * Requests the derivatives of `target` for `wrt` (ascending) in `mode`; returns the primal's
   * key, from which `derivativeKey` names the generated functions.
   */
  request(
    target: DifferentiationTarget,
    wrt: number[],
    mode: Mode,
    chain: DiagnosticNote[],
    optional?: string,
  ): FunctionKey {
    const key = Differentiator.keyOf(target);
    this.targets.set(key, target);
    this.queue.push({
      key,
      wrt,
      mode,
      chain,
      root: true,
      frozen: [],
      ...(optional ? { optional } : {}),
    });
    return key;
  }

  /** Makes `target` known without requesting derivatives yet (to ask for its signature). */
  register(target: DifferentiationTarget): FunctionKey {
    const key = Differentiator.keyOf(target);
    this.targets.set(key, target);
    return key;
  }

  /** Requests derivatives of a function by key (a derived primal, see nest.ts). */
  requestKey(key: FunctionKey, wrt: number[], mode: Mode, chain: DiagnosticNote[]): FunctionKey {
    this.queue.push({ key, wrt, mode, chain, root: true, frozen: [] });
    return key;
  }

  /** The parameter and result types of a requested function (lowering it now if needed). */
  signatureOf(key: FunctionKey): { params: Type[]; result: Type | undefined } | undefined {
    const rule = this.program.rules.get(key);
    if (rule) return { params: rule.params.map((p) => p.type), result: rule.result };
    const fn = this.lowered(key);
    return fn && { params: fn.params.map((p) => p.type), result: fn.resultTypes[0] };
  }

  /** Processes every queued demand and the demands they raise. */
  run(): void {
    for (let demand = this.queue.shift(); demand; demand = this.queue.shift()) this.process(demand);
    this.sweeps.build();
    // Once every derivative exists: what only one branch uses is computed there (ir/sink.ts).
    const pure = pureFunctions(new Map([...this.primals, ...this.derivatives]));
    for (const fn of this.derivatives.values()) if (fn) sinkIntoBranches(fn, pure);
  }

  /** Demands needed only on some run-time path: their failures are warnings and stubs. */
  private readonly optionals: OptionalDemands;

  private process(demand: Demand): void {
    if (!demand.optional) {
      this.optionals.require(demand);
      return this.processDemand(demand);
    }
    this.optionals.run({ ...demand, optional: demand.optional }, (d) => this.processDemand(d));
  }

  private processDemand(demand: Demand): void {
    if (demand.checkpoint) return this.checkpointSweeps(demand);
    if (parseDerivedPrimalKey(demand.key) && !this.primals.has(demand.key)) {
      // Built here, so what goes wrong is reported with this demand's call chain.
      try {
        this.derivedPrimal(demand.key, demand.chain);
      } catch (error) {
        this.fail(error, demand.chain, demand.key);
        return;
      }
    }
    if (demand.root && demand.mode === "gradient") demand.frozen = this.rootFrozen(demand.key);
    const missing = KINDS[demand.mode]
      .map((kind) => derivativeKey(kind, demand.key, demand.wrt, demand.frozen))
      .filter((key) => !this.derivatives.has(key));
    if (missing.length === 0) return;
    for (const key of missing) this.derivatives.set(key, undefined);
    const rule = this.program.rules.get(demand.key);
    if (rule) {
      ruleDerivatives(rule, demand, missing, this.derivatives, this.diagnostics);
      return;
    }
    for (const key of missing) this.building.add(key);
    try {
      const primal = this.primal(demand);
      const derived = primal && this.derive(primal, demand);
      derived?.forEach((fn) => missing.includes(fn.key) && this.derivatives.set(fn.key, fn));
    } catch (error) {
      this.fail(error, demand.chain, demand.key);
    } finally {
      for (const key of missing) this.building.delete(key);
    }
  }

  /** A checkpointed call's two sweeps (see checkpoint-demand.ts). */
  private checkpointSweeps(demand: Demand): void {
    checkpointSweeps(demand, {
      diagnostics: this.diagnostics,
      derivatives: this.derivatives,
      targets: this.targets,
      effects: this.effects,
      signatureOf: (key) => this.signatureOf(key),
      rootFrozen: (key) => this.rootFrozen(key),
      process: (d) => this.process(d),
    });
  }

  /**
   * A JVP as a primal function to differentiate again (see nest.ts): the JVP is generated
   * first if no demand has produced it yet.
   */
  private derivedPrimal(key: FunctionKey, chain: DiagnosticNote[]): IRFunction | undefined {
    const failure = this.derivedFailures.get(key);
    if (failure) throw failure;
    try {
      return this.buildDerivedPrimal(key, chain);
    } catch (error) {
      // Reported by every demand that needs it, with that demand's call chain.
      this.derivedFailures.set(key, error);
      throw error;
    }
  }

  private readonly derivedFailures = new Map<FunctionKey, unknown>();

  /**
   * A function that differentiates itself, calling itself inside the function it gives an
   * operator (`rec(n, t)` returning `derivative((s) => … rec(n - 1, s))(t)`): its derivative
   * needs its derivative of the next order, and that one the next, without end. Refused when a
   * derived primal needs the JVP being built (it would be called but never generated, which
   * made a module that fails to load), or nests deeper than programs write derivatives (the
   * chain of demands never ended).
   */
  private refuseEveryOrder(key: FunctionKey, jvpKey: FunctionKey): void {
    let order = 0;
    let base = key;
    for (let parsed = parseDerivedPrimalKey(base); parsed; parsed = parseDerivedPrimalKey(base)) {
      order++;
      base = parseDerivativeKey(parsed.jvp)?.primal ?? parsed.jvp;
    }
    if (!this.building.has(jvpKey) && order <= MAX_DERIVED_ORDER) return;
    const target = this.targets.get(base);
    const label = target ? functionLabel(target.name) : "this function";
    throw new CompileAbort({
      severity: "error",
      ...nestedDifferentiation.differentiatesItselfWithoutEnd(label),
      loc: target
        ? { file: target.module.file, start: target.node.start, end: target.node.start + 1 }
        : { file: "", start: 0, end: 0 },
      notes: [],
    });
  }

  /** The derivatives being generated (processDemand), which a derived primal cannot wait for. */
  private readonly building = new Set<FunctionKey>();

  private buildDerivedPrimal(key: FunctionKey, chain: DiagnosticNote[]): IRFunction | undefined {
    if (this.primals.has(key)) return this.primals.get(key);
    const { jvp: jvpKey, form } = parseDerivedPrimalKey(key)!;
    const { primal, wrt } = parseDerivativeKey(jvpKey)!;
    this.refuseEveryOrder(key, jvpKey);
    this.primals.set(key, undefined);
    if (!this.derivatives.has(jvpKey)) {
      // Possibly reached from inside a solve of `variedEffects`: this demand's activity
      // analysis must not see that solve's approximations.
      this.summaries.isolated(() =>
        this.process({ key: primal, wrt, frozen: [], mode: "forward", chain, root: false }),
      );
    }
    const base = this.targets.get(primal);
    if (base) this.targets.set(key, base);
    const jvp = this.derivatives.get(jvpKey);
    if (!jvp) return undefined;
    if (jvp.adapter) {
      const rule = this.program.rules.get(jvp.adapter.rule)!;
      throw new CompileAbort({
        severity: "error",
        ...nestedDifferentiation.cannotDifferentiateDerivativeOfAgain(rule.targetName),
        loc: jvp.loc,
        notes: [],
      });
    }
    const fn = jvpAsPrimal(
      jvp,
      form,
      (callee) => {
        const effects = this.effects(callee);
        return (
          effects !== undefined && effects.writes.size === 0 && effects.moduleWrites.length === 0
        );
      },
      (callee) => this.callAsMethod(callee),
    );
    runPipeline("derivedPrimal", fn, this.observe);
    this.primals.set(key, fn);
    this.derivatives.set(key, fn);
    this.deriveCallees(fn, chain);
    return fn;
  }

  /**
   * How the lowered functions call the primal `callee` when it is a method (a method, getter
   * or setter of its receiver, or `super.m()`, which names exactly this one): the JavaScript
   * of a call of it the JVP only knows by key.
   */
  private callAsMethod(callee: FunctionKey): OpAttrs | undefined {
    let found: OpAttrs | undefined;
    for (const fn of this.primals.values()) {
      if (!fn) continue;
      forEachOp(fn.body, (op) => {
        if (op.opcode !== "call" || op.attrs.callee !== callee || !op.attrs.method) return;
        if (found?.superOf) return;
        const { method, getter, setter, superOf } = op.attrs;
        found = { method, getter, setter, superOf };
      });
    }
    return found;
  }

  /** Builds the derived primals `fn` calls, which generated code calls even where inactive. */
  private deriveCallees(fn: IRFunction, chain: DiagnosticNote[]): void {
    forEachOp(fn.body, (op) => {
      if (op.opcode === "call" && parseDerivedPrimalKey(op.attrs.callee!)) {
        const note = {
          ...notes.whenDifferentiatingCall(this.calleeNameOf(op)),
          loc: op.loc,
        };
        this.derivedPrimal(op.attrs.callee!, [note, ...chain]);
      }
    });
  }

  /**
   * The name a call-chain note gives the callee of `op`: as the call wrote it, else (a call
   * generated for a derivative, such as a JVP called inside a derivative differentiated again)
   * the user's function its key derives from; none for a lambda, which has no name.
   */
  private calleeNameOf(op: Op): string | undefined {
    if (op.attrs.calleeName) return op.attrs.calleeName;
    let key = op.attrs.callee;
    for (let parsed = key && parseDerivativeKey(parseDerivedPrimalKey(key)?.jvp ?? key); parsed;) {
      key = parsed.primal;
      parsed = parseDerivativeKey(parseDerivedPrimalKey(key)?.jvp ?? key);
    }
    const name = key === undefined ? undefined : this.targets.get(key)?.name;
    return name === undefined || functionLabel(name) === "this function"
      ? undefined
      : name.replace(/\$aux$/, "");
  }

  /**
   * Records why a function could not be differentiated. A compiler bug becomes a diagnostic
   * too (NABLA900) rather than a crash, so the user still sees where it happened.
   */
  private fail(error: unknown, chain: DiagnosticNote[], key?: FunctionKey): void {
    if (error instanceof CompileAbort) {
      for (const d of [error.diagnostic, ...error.more])
        this.diagnostics.add({ ...d, notes: [...d.notes, ...chain] });
      return;
    }
    if (process.env.NABLA_DEBUG) throw error;
    const target = key ? this.targets.get(key) : undefined;
    const message = error instanceof Error ? error.message : String(error);
    const label = target ? functionLabel(target.name) : "this function";
    this.diagnostics.add({
      severity: "error",
      ...(isStackOverflow(error)
        ? internalError.outOfStackDifferentiating(label, STACK_OVERFLOW_ADVICE)
        : internalError.whileDifferentiating(label, message)),
      loc: target
        ? { file: target.module.file, start: target.node.start, end: target.node.start + 1 }
        : (chain[0]?.loc ?? { file: "", start: 0, end: 0 }),
      notes: chain,
    });
  }

  /**
   * The array and object parameters `gradient` can treat as frozen: it runs both sweeps back to
   * back, so those the function itself does not write stay unchanged in between. (`pullback`
   * hands the backward sweep to the user, who may change them first: nothing is frozen.)
   */
  rootFrozen(key: FunctionKey): number[] {
    if (this.program.rules.has(key)) return [];
    const fn = this.lowered(key);
    const effects = this.effects(key);
    if (!fn || !effects) return [];
    return [
      ...fn.params.flatMap((p, i) =>
        !isAggregate(p.type)
          ? []
          : !effects.writes.has(i)
            ? [i]
            : !effects.replaces.has(i)
              ? [STRUCTURE + i]
              : [],
      ),
      ...(effects.readsModule ? [MODULE_DATA] : []),
    ];
  }

  /** What callees do to their arguments and make varied (cross-function fixed points). */
  private readonly summaries = new CallSummaries({
    lowered: (key) => this.lowered(key),
    hasRule: (key) => this.program.rules.has(key),
    started: (key) => this.primals.has(key),
  });
  readonly effects: EffectsOf = this.summaries.effects;
  readonly variedEffects: CallVaried = this.summaries.variedEffects;

  /** The name of `key` and, if lowering it fails, its first error (lowered again to see it). */
  private whyUnreadable(key: FunctionKey): { name: string; why?: Diagnostic } | undefined {
    const target = this.targets.get(key);
    if (!target) return undefined;
    // Lowered, being lowered, or failed as a demand (which reports its error): not again.
    if (this.primals.has(key)) return { name: target.name };
    try {
      this.lower(key, target);
      return { name: target.name };
    } catch (error) {
      return {
        name: target.name,
        ...(error instanceof CompileAbort ? { why: error.diagnostic } : {}),
      };
    }
  }

  /** The lowered primal for `key`, without reporting errors (its demand reports them). */
  private lowered(key: FunctionKey): IRFunction | undefined {
    if (this.primals.has(key)) return this.primals.get(key);
    if (parseDerivedPrimalKey(key)) {
      try {
        return this.derivedPrimal(key, []);
      } catch {
        return undefined;
      }
    }
    const target = this.targets.get(key);
    if (!target) return undefined;
    try {
      return this.lower(key, target);
    } catch {
      return undefined;
    }
  }

  /**
   * Why `key` cannot be lowered: the errors lowering it reports (the first one first), which
   * `lowered` does not report; empty when it lowers, or fails by a bug rather than an error.
   * `codeContext`: what its operators' messages say they are inside (`"wasm"` for a function
   * tagged `@backend wasm`, which nobody differentiates). Lowers it again, not to be kept.
   */
  loweringErrors(key: FunctionKey, codeContext: CodeContext): Diagnostic[] {
    const target = this.targets.get(key);
    if (!target || this.primals.get(key)) return [];
    try {
      lowerFunction(this.program, target.module, key, target.name, target.node, {
        ...this.loweringOptions(key, target),
        codeContext,
      });
      return [];
    } catch (error) {
      return error instanceof CompileAbort ? [error.diagnostic, ...error.more] : [];
    }
  }

  private loweringOptions(key: FunctionKey, target: DifferentiationTarget): LowerOptions {
    return {
      contextualNumberParams: target.contextualNumberParams,
      captures: target.captures,
      ...(target.localFunctions ? { localFunctions: target.localFunctions } : {}),
      ...(target.thisType ? { thisType: target.thisType } : {}),
      ...(target.constructs ? { constructs: target.constructs } : {}),
      ...(target.bindings ? { bindings: target.bindings } : {}),
      ...(target.contextual ? { contextual: target.contextual } : {}),
      ...(target.typeArguments ? { typeArguments: target.typeArguments } : {}),
      ...(target.liftedCaptures ? { liftedCaptures: true } : {}),
      ...(target.recursive
        ? { recursive: { name: target.recursive, fn: { kind: "lambda", key, target } } }
        : {}),
      ...(target.aux ? { aux: true } : {}),
    };
  }

  private lower(key: FunctionKey, target: DifferentiationTarget): IRFunction {
    const lowered = lowerFunction(
      this.program,
      target.module,
      key,
      target.name,
      target.node,
      this.loweringOptions(key, target),
    );
    for (const call of lowered.calls) {
      if (!this.targets.has(call.key))
        this.targets.set(call.key, call.target ?? namedTarget(call.symbol));
    }
    runPipeline("lowered", lowered.fn, this.observe);
    this.primals.set(key, lowered.fn);
    // A specialization or lifted function exists only in generated code, which calls its
    // primal where its arguments are inactive: it is emitted like a derivative.
    if (target.bindings || target.liftedCaptures) this.derivatives.set(key, lowered.fn);
    this.deriveCallees(lowered.fn, []);
    return lowered.fn;
  }

  private primal(demand: Demand): IRFunction | undefined {
    if (this.primals.has(demand.key)) return this.primals.get(demand.key);
    if (parseDerivedPrimalKey(demand.key)) return this.derivedPrimal(demand.key, demand.chain);
    this.primals.set(demand.key, undefined);
    const target = this.targets.get(demand.key)!;
    try {
      return this.lower(demand.key, target);
    } catch (error) {
      this.fail(error, demand.chain, demand.key);
      this.differentiateCallees(demand, () => writtenCallees(this.program, target, demand.wrt));
      return undefined;
    }
  }

  /** Callees already asked for by `differentiateCallees`. */
  private readonly independent = new Set<FunctionKey>();

  /**
   * After `demand` failed: asks for the derivatives its callees would have been asked for, so
   * their own errors, independent of this one, are reported in the same run.
   */
  private differentiateCallees(demand: Demand, find: () => IndependentCallee[]): void {
    // A demand needed on some run-time path only reports warnings; its callees wait for it.
    if (demand.optional || demand.checkpoint) return;
    const forward = demand.mode === "forward" || demand.mode === "lanes";
    for (const callee of find()) {
      if (
        this.independent.has(callee.key) ||
        (this.primals.get(callee.key) === undefined && this.primals.has(callee.key))
      )
        continue;
      this.independent.add(callee.key);
      if (callee.target && !this.targets.has(callee.key))
        this.targets.set(callee.key, callee.target);
      // Parameters that take no derivative (a string the call computes from a number) are not
      // differentiated; a callee that does not lower keeps them all, to report why.
      const params = this.signatureOf(callee.key)?.params;
      const wrt = params
        ? callee.wrt.filter((i) => params[i] && isDifferentiable(params[i]))
        : callee.wrt;
      if (wrt.length === 0) continue;
      this.queue.push({
        key: callee.key,
        wrt,
        frozen: [],
        mode: forward ? demand.mode : "reverse",
        chain: [
          { ...notes.whenDifferentiatingCall(callee.name), loc: callee.loc },
          ...demand.chain,
        ],
        root: false,
      });
    }
  }

  /** The derivative functions of one demand: its JVP, or its forward and backward sweeps. */
  private derive(primal: IRFunction, demand: Demand): IRFunction[] | undefined {
    const activity = checkDerivable(primal, demand, this.targets.get(demand.key)!, {
      diagnostics: this.diagnostics,
      effects: this.effects,
      variedEffects: this.variedEffects,
      observeActivity: this.observeActivity,
      whyUnreadable: (key) => this.whyUnreadable(key),
    });
    if (!activity) {
      this.differentiateCallees(demand, () =>
        activeCallees(
          primal,
          demand.wrt,
          (key) => this.targets.has(key) || this.program.rules.has(key),
          this.effects,
          this.variedEffects,
        ),
      );
      return undefined;
    }
    const { fn, demands } =
      this.inlining.linearize(primal, demand.wrt) ??
      linearize(primal, demand.wrt, activity, (key) => this.signatureOf(key)?.params);
    const forward = demand.mode === "forward" || demand.mode === "lanes";
    if (!forward && parseDerivedPrimalKey(demand.key)?.form === "product") returnNoValue(fn);
    // Rules recompute what the primal computed (`sin θ` for the derivative of `cos θ`): in
    // reverse mode CSE makes it one value, saved once (see pipeline.ts for the rest).
    runPipeline(
      demand.mode === "forward" || demand.mode === "lanes" ? demand.mode : "reverse",
      fn,
      this.observe,
    );
    // Reverse mode: which arrays each callee may read again (marks the calls, see ReverseInfo).
    const info = forward
      ? undefined
      : new ReverseInfo(fn, {
          frozen: demand.frozen,
          arity: primal.params.length,
          effectsOf: this.effects,
          wrt: demand.wrt,
        });
    for (const d of callsLeft(fn, demands)) {
      this.queue.push({
        key: d.key,
        wrt: d.wrt,
        frozen: d.call.attrs.frozen ?? [],
        mode: forward ? demand.mode : "reverse",
        chain: [
          {
            ...notes.whenDifferentiatingCall(this.calleeNameOf(d.op), d.op.attrs.via),
            loc: d.op.loc,
          },
          ...demand.chain,
        ],
        root: false,
        ...(d.call.attrs.checkpoint && !forward ? { checkpoint: true } : {}),
        ...(demand.optional
          ? { optional: demand.optional }
          : d.op.attrs.via
            ? {
                optional: `it is ${d.op.attrs.via}; the derivative throws if the value holds it`,
              }
            : {}),
      });
    }
    if (demand.mode === "lanes") {
      refuseKeyedLanes(fn);
      // The same JVP, emitted with k lanes per tangent number; its calls use the callees'.
      const arity = primal.params.length - primal.captures;
      return [
        {
          ...fn,
          key: lanesKey(primal.key, demand.wrt),
          name: derivativeName("jvps", primal.name, demand.wrt, arity),
          lanes: true,
        },
      ];
    }
    if (!info) return [fn];
    // Reverse mode: unzip the JVP into a forward sweep and transpose its tangent part — once
    // every demand is known (`buildSweeps`), since what a backward sweep takes from its
    // callers depends on what its callees' take from it.
    const signature = {
      key: primal.key,
      name: primal.name,
      arity: primal.params.length - primal.captures,
      frozen: demand.frozen,
    };
    const kinds: DerivativeKind[] = [
      "fwd",
      "bwd",
      ...(demand.mode === "gradient" && this.choices.fusedGradientPays(fn, info)
        ? (["grad"] as const)
        : []),
      ...(demand.mode === "pullback" && vjpPays(fn, info) ? (["vjp"] as const) : []),
    ];
    const pending: PendingSweeps = {
      jvp: fn,
      options: { frozen: demand.frozen, arity: primal.params.length, wrt: demand.wrt },
      signature,
      wrt: demand.wrt,
      kinds,
      chain: demand.chain,
      key: demand.key,
      placeholders: new Map(),
    };
    this.sweeps.add(pending);
    // Placeholders until then: the demand counts as built.
    return kinds.map((kind) => {
      const placeholder = bodiless(
        derivativeKey(kind, primal.key, demand.wrt, demand.frozen),
        derivativeName(kind, primal.name, demand.wrt, signature.arity, demand.frozen),
        fn.loc,
      );
      pending.placeholders.set(kind, placeholder);
      return placeholder;
    });
  }
}

/**
 * Tangents along k directions at once (jacobian, hessian) are laid out as k lanes per number,
 * which records and maps do not have yet: refused at the first one the function builds.
 */
function refuseKeyedLanes(fn: IRFunction): void {
  const holdsKeyed = (t: Type): boolean =>
    isKeyed(t) ||
    isRecursiveType(t) ||
    (isAggregate(t) &&
      (t.kind === "array"
        ? holdsKeyed(t.element) || (t.elements ?? []).some(holdsKeyed)
        : t.kind === "object" && t.fields.some((f) => holdsKeyed(f.type))));
  forEachOp(fn.body, (op) => {
    if (op.tangent && op.results.some((r) => holdsKeyed(r.type)))
      throw new CompileAbort({
        severity: "error",
        ...unsupportedType.keyedAlongManyDirections(),
        loc: op.loc,
        notes: [],
      });
  });
}

/**
 * The derivative calls the pipeline left in `fn`, each with the demand it was made for: the
 * pipeline may call a function instead of its derivative (primal-calls.ts), or make a
 * derivative call again after a loop (last-write.ts), which a copy of its demand then covers.
 */
function callsLeft(fn: IRFunction, demands: DerivativeDemand[]): DerivativeDemand[] {
  const byCall = new Map(demands.map((d) => [d.call, d]));
  const left: DerivativeDemand[] = [];
  forEachOp(fn.body, (op) => {
    if (op.opcode !== "call" || !op.tangent || op.attrs.primal === undefined) return;
    const made =
      byCall.get(op) ??
      demands.find(
        (d) => d.key === op.attrs.primal && d.wrt.join(",") === (op.attrs.wrt ?? []).join(","),
      );
    if (made) left.push({ ...made, call: op });
  });
  return left;
}
