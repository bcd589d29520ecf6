import type { DerivativeTable } from "./derivative-table.js";
import { analyzeActivity, type CallVaried } from "../analysis/activity.js";
import { findModuleWrites, type EffectsOf } from "../analysis/effects.js";
import { isAggregate, isDifferentiable, sameType, typeText } from "../ir/type-system.js";
import { isStackOverflow, STACK_OVERFLOW_ADVICE } from "../diagnostics/stack-overflow.js";
import { CallSummaries } from "../analysis/call-summaries.js";
import { DiagnosticCode } from "../diagnostics/codes.js";
import {
  CompileAbort,
  type Diagnostic,
  type DiagnosticBag,
  type DiagnosticNote,
} from "../diagnostics/diagnostic.js";
import type { FunctionKey, IRFunction, Op, Type } from "../ir/types.js";
import { lowerFunction } from "../lower/function.js";
import type { ProgramGraph } from "../parse/program.js";
import { linearize } from "./linearize.js";
import {
  checkpointKey,
  derivativeKey,
  derivativeName,
  functionLabel,
  lanesKey,
  type DerivativeKind,
} from "../ir/names.js";
import type { DerivativeRule } from "../parse/program.js";
import { MODULE_DATA, ReverseInfo, STRUCTURE } from "./residuals.js";
import { fusedGradientPays, vjpPays } from "./sweeps.js";
import { jvpAsPrimal } from "./nest.js";
import { parseDerivativeKey, parseDerivedPrimalKey } from "../ir/names.js";
import { symbolKey } from "../ir/function-key.js";
import type { DifferentiationTarget } from "../resolve/targets.js";
import { namedTarget } from "../resolve/operator-call.js";
import { runPipeline, type PassObserver } from "./pipeline.js";
import { Inlining } from "./inlining.js";
import type { ActivityObserver } from "../analysis/activity.js";
import { SweepBuilder, type PendingSweeps } from "./sweep-builder.js";

// Differentiates on demand: lowers a function once, and generates each of its derivative
// configurations once (per set of differentiated parameters), however many callers need it.
// The callees a derivative needs are queued with the call chain that reached them, so a
// diagnostic deep in a callee says how differentiation got there.

/**
 * Forward mode needs a JVP; reverse mode a forward sweep and a backward sweep; `gradient`
 * also the fused gradient function, `pullback` the closure form (both when they pay); `lanes`
 * (`jacobian`) a JVP along k directions at once.
 */
export type Mode = "forward" | "reverse" | "gradient" | "pullback" | "lanes";

const KINDS: Record<Mode, DerivativeKind[]> = {
  forward: ["jvp"],
  lanes: ["jvps"],
  reverse: ["fwd", "bwd"],
  gradient: ["fwd", "bwd", "grad"],
  pullback: ["fwd", "bwd", "vjp"],
};

interface Demand {
  key: FunctionKey;
  wrt: number[];
  /** Reverse mode: array parameters unchanged until the backward sweep (see ReverseInfo). */
  frozen: number[];
  mode: Mode;
  /** Notes from the innermost call outwards. */
  chain: DiagnosticNote[];
  root: boolean;
  /** A checkpointed call's sweeps (see emit/js/checkpoint.ts), not the function's own. */
  checkpoint?: boolean;
  /**
   * Needed only if the program takes a particular path at run time (a candidate of a function
   * chosen at run time, a derivative attached for a plain run): if it cannot be built, its
   * errors become warnings with this note, and its derivatives throw when called.
   */
  optional?: string;
}

export class Differentiator implements DerivativeTable {
  readonly primals = new Map<FunctionKey, IRFunction | undefined>();
  readonly derivatives = new Map<FunctionKey, IRFunction | undefined>();
  private readonly targets = new Map<FunctionKey, DifferentiationTarget>();
  private readonly queue: Demand[] = [];

  constructor(
    private readonly program: ProgramGraph,
    private readonly diagnostics: DiagnosticBag,
    /** Sees each function after each pass (`nabla emit --ir --print-after`). */
    private readonly observe?: PassObserver,
    /** Sees the activity of each function differentiated (`nabla emit --activity`). */
    private readonly observeActivity?: ActivityObserver,
  ) {
    this.inlining = new Inlining({
      lowered: (key) => this.lowered(key),
      hasRule: (key) => this.program.rules.has(key),
      effects: this.effects,
      ...(observe ? { observe } : {}),
      ...(observeActivity ? { observeActivity } : {}),
    });
    this.sweeps = new SweepBuilder({
      derivatives: this.derivatives,
      lowered: (key) => this.lowered(key),
      hasRule: (key) => this.program.rules.has(key),
      effects: this.effects,
      fail: (error, chain, key) => this.fail(error, chain, key),
      ...(observe ? { observe } : {}),
    });
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
  }

  /** The errors of optional demands that failed, by the derivative keys they left as stubs. */
  private readonly stubbed = new Map<FunctionKey, Diagnostic[]>();

  private process(demand: Demand): void {
    if (!demand.optional) {
      // A required demand for what an optional one could not build: its errors are errors.
      for (const kind of KINDS[demand.mode]) {
        const key = derivativeKey(kind, demand.key, demand.wrt, demand.frozen);
        // Pushed, not added: the bag already saw these (as the optional demand's).
        this.stubbed.get(key)?.forEach((e) => {
          this.diagnostics.items.push({ ...e, notes: [...e.notes, ...demand.chain] });
        });
        this.stubbed.delete(key);
      }
      return this.processDemand(demand);
    }
    const start = this.diagnostics.items.length;
    this.processDemand(demand);
    const added = this.diagnostics.items.splice(start);
    const errors = added.filter((d) => d.severity === "error");
    added.filter((d) => d.severity !== "error").forEach((d) => this.diagnostics.items.push(d));
    const built = KINDS[demand.mode]
      .filter((kind) => kind !== "grad" && kind !== "vjp") // made only when they pay
      .every((kind) =>
        this.derivatives.get(derivativeKey(kind, demand.key, demand.wrt, demand.frozen)),
      );
    if (built) return;
    if (errors.length === 0) {
      // Reported already (the bag drops repeats), by another demand for the same function.
      const target = this.targets.get(demand.key);
      errors.push({
        severity: "error",
        code: DiagnosticCode.unsupportedSyntax,
        message: `cannot differentiate ${functionLabel(target?.name ?? "this function")} (see the diagnostic above)`,
        loc: target
          ? { file: target.module.file, start: target.node.start, end: target.node.start + 1 }
          : (demand.chain[0]?.loc ?? { file: "", start: 0, end: 0 }),
        notes: demand.chain,
      });
    }
    for (const e of errors) {
      this.diagnostics.items.push({
        ...e,
        severity: "warning",
        notes: [...e.notes, { message: demand.optional }],
      });
    }
    const name = this.targets.get(demand.key)?.name ?? "this function";
    for (const kind of KINDS[demand.mode]) {
      const key = derivativeKey(kind, demand.key, demand.wrt, demand.frozen);
      if (this.derivatives.get(key)) continue;
      this.stubbed.set(key, errors);
      this.derivatives.set(key, {
        key,
        name: `${derivativeName(kind, name, demand.wrt, demand.wrt.length + 1, demand.frozen)}$unavailable`,
        params: [],
        captures: 0,
        resultTypes: [],
        body: { params: [], ops: [] },
        loc: errors[0]!.loc,
        stub: `nabla could not differentiate ${functionLabel(name)} (${errors[0]!.message}; see the warnings of 'nabla check'), and this run needs its derivative: ${demand.optional}`,
      });
    }
    // Specializations that failed to lower exist only in generated code, which may still
    // call them (from a specialization that did lower): they too become functions that throw.
    for (const [key, fn] of this.primals) {
      const target = this.targets.get(key);
      if (fn || this.derivatives.get(key) || !(target?.bindings || target?.liftedCaptures))
        continue;
      this.derivatives.set(key, {
        key,
        name: target.name,
        params: [],
        captures: 0,
        resultTypes: [],
        body: { params: [], ops: [] },
        loc: errors[0]!.loc,
        stub: `nabla could not compile ${functionLabel(target.name)} (${errors[0]!.message}; see the warnings of 'nabla check'), and this run calls it: ${demand.optional}`,
      });
    }
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
      this.useRule(rule, demand, missing);
      return;
    }
    try {
      const primal = this.primal(demand);
      const derived = primal && this.derive(primal, demand);
      derived?.forEach((fn) => missing.includes(fn.key) && this.derivatives.set(fn.key, fn));
    } catch (error) {
      this.fail(error, demand.chain, demand.key);
    }
  }

  /**
   * The sweeps of a checkpointed call: the forward sweep saves the arguments and runs the
   * primal; the backward sweep reruns the function's own forward sweep on the saved arguments,
   * then its backward sweep. Those two run back to back, so they treat every argument the
   * function does not write as frozen.
   */
  private checkpointSweeps(demand: Demand): void {
    const fwdKey = checkpointKey("fwd", demand.key, demand.wrt);
    if (this.derivatives.has(fwdKey)) return;
    const bwdKey = checkpointKey("bwd", demand.key, demand.wrt);
    this.derivatives.set(fwdKey, undefined);
    this.derivatives.set(bwdKey, undefined);
    const signature = this.signatureOf(demand.key);
    if (!signature) {
      // Lowering failed: the demand for its own sweeps reports why.
      this.process({ ...demand, checkpoint: false });
      return;
    }
    const { params, result } = signature;
    if (result !== undefined && isAggregate(result)) {
      const target = this.targets.get(demand.key);
      this.diagnostics.add({
        severity: "error",
        code: DiagnosticCode.unsupportedType,
        message: `a checkpointed function must return a number or nothing; ${target ? functionLabel(target.name) : "this function"} returns a ${typeText(result)}`,
        loc: demand.chain[0]?.loc ?? { file: "", start: 0, end: 0 },
        notes: demand.chain.slice(1),
      });
      return;
    }
    const effects = this.effects(demand.key);
    if (!effects || effects.replaces.size > 0 || effects.grows.size > 0) {
      // The checkpoint's forward sweep runs the primal, which would change the structure of
      // the arguments without their shadows following.
      const target = this.targets.get(demand.key);
      const offset = target?.thisType ? 1 : 0;
      const nameOf = (i: number) => {
        const p = target?.node.params[i - offset];
        return i < offset ? "'this'" : p?.type === "Identifier" ? `'${p.name}'` : "an argument";
      };
      const what = !effects
        ? "may change the structure of its arguments"
        : effects.grows.size > 0
          ? `pushes onto its argument ${nameOf([...effects.grows][0]!)}`
          : `stores arrays or objects into its argument ${nameOf([...effects.replaces][0]!)}`;
      this.diagnostics.add({
        severity: "error",
        code: DiagnosticCode.unsupportedType,
        message: `${target ? functionLabel(target.name) : "this function"} cannot be checkpointed: it ${what}, and a checkpointed function may change only the numbers in its arguments; call it without checkpointing, or give it arrays of their final length to write into`,
        loc: demand.chain[0]?.loc ?? { file: "", start: 0, end: 0 },
        notes: demand.chain.slice(1),
      });
      return;
    }
    // The rerun's two sweeps run back to back, so what f does not write stays as it was in
    // between — unless the call passed it as, or inside, an array f writes (`f(u, u)`), which
    // nabla cannot rule out for arguments whose types could hold the same array.
    const written = [...effects.writes];
    const frozen = this.rootFrozen(demand.key).filter(
      (i) => i < 0 || i >= STRUCTURE || !written.some((w) => mayShare(params[i]!, params[w]!)),
    );
    const inner = { ...demand, frozen, checkpoint: false };
    this.process(inner);
    const name = this.targets.get(demand.key)?.name ?? "f";
    for (const kind of ["fwd", "bwd"] as const) {
      const key = kind === "fwd" ? fwdKey : bwdKey;
      this.derivatives.set(key, {
        key,
        name: `${derivativeName(kind, name, demand.wrt, params.length)}$checkpoint`,
        params: [],
        captures: 0,
        resultTypes: [],
        body: { params: [], ops: [] },
        loc: demand.chain[0]?.loc ?? { file: "", start: 0, end: 0 },
        checkpoint: {
          kind,
          primal: demand.key,
          wrt: demand.wrt,
          fwd: derivativeKey("fwd", demand.key, demand.wrt, frozen),
          bwd: derivativeKey("bwd", demand.key, demand.wrt, frozen),
          params,
          result,
        },
      });
    }
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

  private buildDerivedPrimal(key: FunctionKey, chain: DiagnosticNote[]): IRFunction | undefined {
    if (this.primals.has(key)) return this.primals.get(key);
    const { jvp: jvpKey, form } = parseDerivedPrimalKey(key)!;
    const { primal, wrt } = parseDerivativeKey(jvpKey)!;
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
        code: DiagnosticCode.nestedDifferentiation,
        message: `cannot differentiate the derivative of '${rule.targetName}' again: its derivative is a registered rule, and nabla does not differentiate rules`,
        loc: jvp.loc,
        notes: [
          {
            message: `differentiate '${rule.targetName}' once, or remove its rule so nabla differentiates its body`,
          },
        ],
      });
    }
    const fn = jvpAsPrimal(jvp, form, (callee) => {
      const effects = this.effects(callee);
      return (
        effects !== undefined && effects.writes.size === 0 && effects.moduleWrites.length === 0
      );
    });
    runPipeline("derivedPrimal", fn, this.observe);
    this.primals.set(key, fn);
    this.derivatives.set(key, fn);
    this.deriveCallees(fn, chain);
    return fn;
  }

  /** Builds the derived primals `fn` calls, which generated code calls even where inactive. */
  private deriveCallees(fn: IRFunction, chain: DiagnosticNote[]): void {
    const visit = (ops: IRFunction["body"]["ops"]): void =>
      ops.forEach((op) => {
        if (op.opcode === "call" && parseDerivedPrimalKey(op.attrs.callee!)) {
          const note = {
            message: `when differentiating this call to '${op.attrs.calleeName ?? "it"}'`,
            loc: op.loc,
          };
          this.derivedPrimal(op.attrs.callee!, [note, ...chain]);
        }
        op.regions.forEach((r) => visit(r.ops));
      });
    visit(fn.body.ops);
  }

  /**
   * Records why a function could not be differentiated. A compiler bug becomes a diagnostic
   * too (NABLA900) rather than a crash, so the user still sees where it happened.
   */
  private fail(error: unknown, chain: DiagnosticNote[], key?: FunctionKey): void {
    if (error instanceof CompileAbort) {
      this.diagnostics.add({ ...error.diagnostic, notes: [...error.diagnostic.notes, ...chain] });
      return;
    }
    if (process.env.NABLA_DEBUG) throw error;
    const target = key ? this.targets.get(key) : undefined;
    const message = error instanceof Error ? error.message : String(error);
    const label = target ? functionLabel(target.name) : "this function";
    this.diagnostics.add({
      severity: "error",
      code: DiagnosticCode.internalError,
      message: isStackOverflow(error)
        ? `cannot differentiate ${label}: ${STACK_OVERFLOW_ADVICE}`
        : `internal compiler error while differentiating ${label}: ${message}. This is a bug in nabla; please report it with this program (NABLA_DEBUG=1 shows the stack)`,
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

  /**
   * The derivatives of a function with a registered rule: adapters calling the rule, emitted
   * where it is registered. A mode the rule does not provide is an error at the call chain.
   */
  private useRule(rule: DerivativeRule, demand: Demand, missing: FunctionKey[]): void {
    const forward = demand.mode === "forward" || demand.mode === "lanes";
    if (forward ? !rule.hasForward : !rule.hasReverse) {
      const registration = rule.registration;
      this.diagnostics.add({
        severity: "error",
        code: DiagnosticCode.derivativeRule,
        message: `'${rule.targetName}' has a registered derivative without a '${forward ? "forward" : "reverse"}' rule, which ${forward ? "forward mode (derivative, differential)" : "reverse mode (gradient, pullback)"} needs`,
        loc: {
          file: registration.module.file,
          start: registration.call.start,
          end: registration.call.end,
        },
        notes: demand.chain,
      });
      return;
    }
    for (const key of missing) {
      const kind = (["jvp", "fwd", "bwd", "grad", "jvps", "vjp"] as const).find(
        (k) => derivativeKey(k, demand.key, demand.wrt, demand.frozen) === key,
      )!;
      if (kind === "grad" || kind === "vjp") continue;
      const arity = rule.params.length;
      this.derivatives.set(key, {
        key,
        // Named after the registering module's binding, which is unique there.
        name: derivativeName(kind, rule.targetName, demand.wrt, arity, demand.frozen),
        params: [],
        captures: 0,
        resultTypes: [],
        body: { params: [], ops: [] },
        loc: {
          file: rule.registration.module.file,
          start: rule.registration.call.start,
          end: rule.registration.call.end,
        },
        adapter: { kind, rule: rule.key, wrt: demand.wrt, home: rule.registration.module.file },
      });
    }
  }

  /**
   * An inner `gradient` of several parameters runs its function once per parameter (see
   * lower/nested.ts), which is only the same as one run if the function changes nothing.
   */
  private checkInnerGradients(primal: IRFunction, demand: Demand): boolean {
    const passes = new Map<string, Op[]>();
    const visit = (ops: Op[]): void =>
      ops.forEach((op) => {
        const name = op.attrs.calleeName;
        if (
          op.opcode === "call" &&
          (name === "gradient" || name === "valueWithGradient") &&
          parseDerivedPrimalKey(op.attrs.callee!)
        ) {
          const at = `${op.loc.file}:${op.loc.start}`;
          passes.set(at, [...(passes.get(at) ?? []), op]);
        }
        op.regions.forEach((r) => visit(r.ops));
      });
    visit(primal.body.ops);
    for (const calls of passes.values()) {
      if (calls.length < 2 && !calls[0]!.attrs.repeated) continue;
      const effects = this.effects(calls[0]!.attrs.callee!);
      if (effects && effects.writes.size === 0) continue;
      this.diagnostics.add({
        severity: "error",
        code: DiagnosticCode.nestedDifferentiation,
        message: calls[0]!.attrs.repeated
          ? `inside differentiable code, '${calls[0]!.attrs.calleeName}' with respect to an array runs its function once per element, and this function changes arrays it is given or captures; keep the function free of writes (copy the array first)`
          : `inside differentiable code, '${calls[0]!.attrs.calleeName}' with respect to ${calls.length} parameters runs its function once per parameter, and this function changes arrays it is given or captures; differentiate with respect to one parameter at a time, or keep the function free of writes`,
        loc: calls[0]!.loc,
        notes: demand.chain,
      });
      return false;
    }
    return true;
  }

  /** What callees do to their arguments and make varied (cross-function fixed points). */
  private readonly summaries = new CallSummaries({
    lowered: (key) => this.lowered(key),
    hasRule: (key) => this.program.rules.has(key),
    started: (key) => this.primals.has(key),
  });
  readonly effects: EffectsOf = this.summaries.effects;
  readonly variedEffects: CallVaried = this.summaries.variedEffects;

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

  private lower(key: FunctionKey, target: DifferentiationTarget): IRFunction {
    const lowered = lowerFunction(this.program, target.module, key, target.name, target.node, {
      contextualNumberParams: target.contextualNumberParams,
      captures: target.captures,
      ...(target.thisType ? { thisType: target.thisType } : {}),
      ...(target.bindings ? { bindings: target.bindings } : {}),
      ...(target.contextual ? { contextual: target.contextual } : {}),
      ...(target.liftedCaptures ? { liftedCaptures: true } : {}),
      ...(target.aux ? { aux: true } : {}),
    });
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
      return undefined;
    }
  }

  /** The derivative functions of one demand: its JVP, or its forward and backward sweeps. */
  private derive(primal: IRFunction, demand: Demand): IRFunction[] | undefined {
    const target = this.targets.get(demand.key)!;
    for (const i of demand.wrt) {
      const param = primal.params[i]!;
      if (!isDifferentiable(param.type)) {
        const node = target.node.params[i - (target.thisType ? 1 : 0)] ?? target.node;
        const what = isAggregate(param.type)
          ? `a ${typeText(param.type)}, which has no differentiable fields (numbers, arrays of numbers…)`
          : `a ${typeText(param.type)}`;
        this.fail(
          new CompileAbort({
            severity: "error",
            code: DiagnosticCode.unsupportedType,
            message: `cannot differentiate ${functionLabel(primal.name)} with respect to parameter '${param.hint}', ${what}`,
            loc: { file: target.module.file, start: node.start, end: node.end },
            notes: [],
          }),
          demand.chain,
        );
        return undefined;
      }
    }
    const result = primal.resultTypes[0];
    const resultOk =
      result === "number" ||
      (demand.mode !== "gradient" && result !== undefined && isDifferentiable(result));
    if (demand.root && !resultOk) {
      this.fail(
        new CompileAbort({
          severity: "error",
          code: DiagnosticCode.unsupportedType,
          message: `cannot differentiate ${functionLabel(primal.name)}: it returns ${result === undefined ? "nothing" : `a ${typeText(result)}`}, ${demand.mode === "gradient" ? "not a number (a gradient needs a number-valued function; use 'pullback' or 'jacobian' for others)" : "which has no derivative (numbers, arrays and objects of numbers do)"}`,
          loc: primal.loc,
          notes: [],
        }),
        demand.chain,
      );
      return undefined;
    }
    if (!this.checkInnerGradients(primal, demand)) return undefined;
    const writes = findModuleWrites(primal, this.effects);
    for (const { name, loc, calls, passed } of writes) {
      this.diagnostics.add({
        severity: "error",
        code: DiagnosticCode.moduleVariableWrite,
        message: `differentiable code cannot change the module-level '${name}'${passed ? " (this call writes to it)" : ""}; pass it in as a parameter instead`,
        loc,
        notes: [
          ...calls.map((c) => ({
            message: `when differentiating this call to '${c.callee}'`,
            loc: c.loc,
          })),
          ...demand.chain,
        ],
      });
    }
    if (writes.length > 0) return undefined;
    const activity = analyzeActivity(primal, demand.wrt, this.effects, this.variedEffects);
    this.observeActivity?.(primal, demand.wrt, activity, false);
    for (const op of activity.blocked) {
      this.diagnostics.add({
        severity: "error",
        code: DiagnosticCode.nonDifferentiableOperation,
        message: `'${op.attrs.callee}' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result`,
        loc: op.loc,
        notes: [
          {
            message:
              "use 'withoutDerivative(…)' if the derivative through this operation should be zero",
          },
          ...demand.chain,
        ],
      });
    }
    for (const op of activity.blockedStores) {
      this.diagnostics.add({
        severity: "error",
        code: DiagnosticCode.nonDifferentiableOperation,
        message: `field '${op.attrs.field}' is marked @noDerivative, but a value that depends on the differentiated arguments is stored into it`,
        loc: op.loc,
        notes: [
          {
            message:
              "store 'withoutDerivative(…)' if the derivative should be dropped, or remove '@noDerivative'",
          },
          ...demand.chain,
        ],
      });
    }
    for (const op of activity.detachedWrites) {
      this.diagnostics.add({
        severity: "error",
        code: DiagnosticCode.nonDifferentiableOperation,
        message:
          "this writes into an array or object that 'withoutDerivative' returned, which is the same memory as its argument; copy it first (e.g. '[...withoutDerivative(xs)]' or '.slice()')",
        loc: op.loc,
        notes: demand.chain,
      });
    }
    if (
      activity.blocked.length > 0 ||
      activity.blockedStores.length > 0 ||
      activity.detachedWrites.length > 0
    )
      return undefined;
    const ret = primal.body.ops[primal.body.ops.length - 1]!;
    const returned = ret.operands[0];
    const varied =
      returned === undefined ||
      (isAggregate(returned.type) ? activity.isActive(returned) : activity.varied.has(returned.id));
    if (demand.root && !varied) {
      this.diagnostics.add({
        severity: "warning",
        code: DiagnosticCode.constantResult,
        message: `the result of ${functionLabel(primal.name)} does not depend on the differentiated arguments, so its derivative is always zero`,
        loc: primal.loc,
        notes: demand.chain,
      });
    }
    const { fn, demands } =
      this.inlining.linearize(primal, demand.wrt) ?? linearize(primal, demand.wrt, activity);
    const forward = demand.mode === "forward" || demand.mode === "lanes";
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
    for (const d of demands) {
      this.queue.push({
        key: d.key,
        wrt: d.wrt,
        frozen: d.call.attrs.frozen ?? [],
        mode: forward ? demand.mode : "reverse",
        chain: [
          {
            message: `when differentiating this call to '${d.op.attrs.calleeName}'${d.op.attrs.via ? `, ${d.op.attrs.via}` : ""}`,
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
      ...(demand.mode === "gradient" && fusedGradientPays(fn, info) ? (["grad"] as const) : []),
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
      const placeholder: IRFunction = {
        key: derivativeKey(kind, primal.key, demand.wrt, demand.frozen),
        name: derivativeName(kind, primal.name, demand.wrt, signature.arity, demand.frozen),
        params: [],
        captures: 0,
        resultTypes: [],
        body: { params: [], ops: [] },
        loc: fn.loc,
      };
      pending.placeholders.set(kind, placeholder);
      return placeholder;
    });
  }
}

/** Whether values of types `a` and `b` could be, or hold, the same array or object. */
function mayShare(a: Type, b: Type): boolean {
  const parts = (t: Type, into: Type[] = []): Type[] => {
    if (!isAggregate(t)) return into;
    into.push(t);
    if (t.kind === "array") (t.elements ?? [t.element]).forEach((e) => parts(e, into));
    else t.fields.forEach((f) => parts(f.type, into));
    return into;
  };
  const inB = parts(b);
  return parts(a).some((x) => inB.some((y) => sameType(x, y)));
}
