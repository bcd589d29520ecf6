import { analyzeActivity } from "../analyze/activity.js";
import type { DifferentiationTarget } from "../analyze/requests.js";
import { DiagnosticCode } from "../diagnostics/codes.js";
import {
  CompileAbort,
  type DiagnosticBag,
  type DiagnosticNote,
} from "../diagnostics/diagnostic.js";
import { eliminateDeadCode } from "../ir/dce.js";
import type { FunctionKey, IRFunction } from "../ir/types.js";
import { verifyFunction } from "../ir/verify.js";
import { lowerFunction } from "../lower/function.js";
import type { ProgramGraph } from "../parse/program.js";
import { linearize } from "./linearize.js";
import { functionLabel, jvpKey } from "./names.js";

// Differentiates on demand: lowers a function once, and generates each of its derivative
// configurations once (per set of differentiated parameters), however many callers need it.
// The callees a derivative needs are queued with the call chain that reached them, so a
// diagnostic deep in a callee says how differentiation got there.

interface Demand {
  key: FunctionKey;
  wrt: number[];
  /** Notes from the innermost call outwards. */
  chain: DiagnosticNote[];
  root: boolean;
}

export class Differentiator {
  readonly primals = new Map<FunctionKey, IRFunction | undefined>();
  readonly derivatives = new Map<FunctionKey, IRFunction | undefined>();
  private readonly targets = new Map<FunctionKey, DifferentiationTarget>();
  private readonly queue: Demand[] = [];

  constructor(
    private readonly program: ProgramGraph,
    private readonly diagnostics: DiagnosticBag,
  ) {}

  static keyOf(target: { module: { file: string }; name: string }): FunctionKey {
    return `${target.module.file}#${target.name}`;
  }

  /** Requests the JVP of `target` for `wrt` (ascending); returns the derivative's key. */
  request(target: DifferentiationTarget, wrt: number[], chain: DiagnosticNote[]): FunctionKey {
    const key = Differentiator.keyOf(target);
    this.targets.set(key, target);
    this.queue.push({ key, wrt, chain, root: true });
    return jvpKey(key, wrt);
  }

  /** Processes every queued demand and the demands they raise. */
  run(): void {
    for (let demand = this.queue.shift(); demand; demand = this.queue.shift()) {
      const key = jvpKey(demand.key, demand.wrt);
      if (this.derivatives.has(key)) continue;
      this.derivatives.set(key, undefined);
      try {
        const primal = this.primal(demand);
        if (primal) this.derivatives.set(key, this.derive(primal, demand));
      } catch (error) {
        this.fail(error, demand.chain, demand.key);
      }
    }
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
    this.diagnostics.add({
      severity: "error",
      code: DiagnosticCode.internalError,
      message: `internal compiler error while differentiating ${target ? functionLabel(target.name) : "this function"}: ${message}. This is a bug in nabla; please report it with this program (NABLA_DEBUG=1 shows the stack)`,
      loc: target
        ? { file: target.module.file, start: target.node.start, end: target.node.start + 1 }
        : (chain[0]?.loc ?? { file: "", start: 0, end: 0 }),
      notes: chain,
    });
  }

  private primal(demand: Demand): IRFunction | undefined {
    if (this.primals.has(demand.key)) return this.primals.get(demand.key);
    this.primals.set(demand.key, undefined);
    const target = this.targets.get(demand.key)!;
    try {
      const lowered = lowerFunction(
        this.program,
        target.module,
        demand.key,
        target.name,
        target.node,
        { contextualNumberParams: target.contextualNumberParams, captures: target.captures },
      );
      for (const call of lowered.calls) {
        this.targets.set(call.key, { ...call.symbol, contextualNumberParams: false, captures: [] });
      }
      eliminateDeadCode(lowered.fn);
      verifyFunction(lowered.fn);
      this.primals.set(demand.key, lowered.fn);
      return lowered.fn;
    } catch (error) {
      this.fail(error, demand.chain, demand.key);
      return undefined;
    }
  }

  private derive(primal: IRFunction, demand: Demand): IRFunction | undefined {
    const target = this.targets.get(demand.key)!;
    for (const i of demand.wrt) {
      const param = primal.params[i]!;
      if (param.type !== "number") {
        const node = target.node.params[i]!;
        this.fail(
          new CompileAbort({
            severity: "error",
            code: DiagnosticCode.unsupportedType,
            message: `cannot differentiate ${functionLabel(primal.name)} with respect to parameter '${param.hint}', a ${param.type}`,
            loc: { file: target.module.file, start: node.start, end: node.end },
            notes: [],
          }),
          demand.chain,
        );
        return undefined;
      }
    }
    if (primal.resultTypes[0] !== "number") {
      this.fail(
        new CompileAbort({
          severity: "error",
          code: DiagnosticCode.unsupportedType,
          message: `cannot differentiate ${functionLabel(primal.name)}: it returns a ${primal.resultTypes[0]}, not a number`,
          loc: primal.loc,
          notes: [],
        }),
        demand.chain,
      );
      return undefined;
    }
    const activity = analyzeActivity(primal, demand.wrt);
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
    if (activity.blocked.length > 0) return undefined;
    const ret = primal.body.ops[primal.body.ops.length - 1]!;
    if (demand.root && !activity.varied.has(ret.operands[0]!.id)) {
      this.diagnostics.add({
        severity: "warning",
        code: DiagnosticCode.constantResult,
        message: `the result of ${functionLabel(primal.name)} does not depend on the differentiated arguments, so its derivative is always zero`,
        loc: primal.loc,
        notes: demand.chain,
      });
    }
    const { fn, demands } = linearize(primal, demand.wrt, activity);
    eliminateDeadCode(fn);
    verifyFunction(fn);
    for (const d of demands) {
      this.queue.push({
        key: d.key,
        wrt: d.wrt,
        chain: [
          {
            message: `when differentiating this call to '${d.op.attrs.calleeName}'`,
            loc: d.op.loc,
          },
          ...demand.chain,
        ],
        root: false,
      });
    }
    return fn;
  }
}
