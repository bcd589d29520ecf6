import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { Diagnostic, DiagnosticBag } from "../diagnostics/diagnostic.js";
import { derivativeKey, derivativeName, functionLabel } from "../ir/names.js";
import type { FunctionKey, IRFunction } from "../ir/types.js";
import type { DifferentiationTarget } from "../resolve/targets.js";
import { bodiless, KINDS, type Demand } from "./demand.js";

// Demands needed only if the program takes a particular path at run time (Demand.optional):
// what they cannot build is a warning, and the derivatives they leave are stubs that throw
// when called. A later required demand for the same derivatives turns the warnings back into
// errors.

export interface OptionalContext {
  readonly diagnostics: DiagnosticBag;
  readonly primals: ReadonlyMap<FunctionKey, IRFunction | undefined>;
  readonly derivatives: Map<FunctionKey, IRFunction | undefined>;
  readonly targets: ReadonlyMap<FunctionKey, DifferentiationTarget>;
}

export class OptionalDemands {
  /** The errors of optional demands that failed, by the derivative keys they left as stubs. */
  private readonly stubbed = new Map<FunctionKey, Diagnostic[]>();

  constructor(private readonly ctx: OptionalContext) {}

  /** Before a required demand: the errors of an optional one for the same derivatives are errors. */
  require(demand: Demand): void {
    for (const kind of KINDS[demand.mode]) {
      const key = derivativeKey(kind, demand.key, demand.wrt, demand.frozen);
      // Pushed, not added: the bag already saw these (as the optional demand's).
      this.stubbed.get(key)?.forEach((e) => {
        this.ctx.diagnostics.items.push({ ...e, notes: [...e.notes, ...demand.chain] });
      });
      this.stubbed.delete(key);
    }
  }

  /**
   * Processes an optional demand with `process`: its errors become warnings, and what it
   * could not build becomes stubs.
   */
  run(demand: Demand & { optional: string }, process: (demand: Demand) => void): void {
    const { diagnostics, derivatives, targets } = this.ctx;
    const start = diagnostics.items.length;
    process(demand);
    const added = diagnostics.items.splice(start);
    const errors = added.filter((d) => d.severity === "error");
    added.filter((d) => d.severity !== "error").forEach((d) => diagnostics.items.push(d));
    const built = KINDS[demand.mode]
      .filter((kind) => kind !== "grad" && kind !== "vjp") // made only when they pay
      .every((kind) => derivatives.get(derivativeKey(kind, demand.key, demand.wrt, demand.frozen)));
    if (built) return;
    if (errors.length === 0) {
      // Reported already (the bag drops repeats), by another demand for the same function.
      const target = targets.get(demand.key);
      errors.push({
        severity: "error",
        ...unsupportedSyntax.cannotDifferentiateSeeDiagnosticAbove(
          functionLabel(target?.name ?? "this function"),
        ),

        loc: target
          ? { file: target.module.file, start: target.node.start, end: target.node.start + 1 }
          : (demand.chain[0]?.loc ?? { file: "", start: 0, end: 0 }),
        notes: demand.chain,
      });
    }
    for (const e of errors) {
      diagnostics.items.push({
        ...e,
        severity: "warning",
        notes: [...e.notes, { message: demand.optional }],
      });
    }
    this.stub(demand, errors);
  }

  /** Stubs for the derivatives an optional demand left unbuilt, which throw its first error. */
  private stub(demand: Demand & { optional: string }, errors: Diagnostic[]): void {
    const { primals, derivatives, targets } = this.ctx;
    const name = targets.get(demand.key)?.name ?? "this function";
    const reason = errors[0]!.message;
    for (const kind of KINDS[demand.mode]) {
      const key = derivativeKey(kind, demand.key, demand.wrt, demand.frozen);
      if (derivatives.get(key)) continue;
      this.stubbed.set(key, errors);
      derivatives.set(
        key,
        bodiless(
          key,
          `${derivativeName(kind, name, demand.wrt, demand.wrt.length + 1, demand.frozen)}$unavailable`,
          errors[0]!.loc,
          {
            stub: `nabla could not differentiate ${functionLabel(name)} (${reason}; see the warnings of 'nabla check'), and this run needs its derivative: ${demand.optional}`,
          },
        ),
      );
    }
    // Specializations that failed to lower exist only in generated code, which may still
    // call them (from a specialization that did lower): they too become functions that throw.
    for (const [key, fn] of primals) {
      const target = targets.get(key);
      if (fn || derivatives.get(key) || !(target?.bindings || target?.liftedCaptures)) continue;
      derivatives.set(
        key,
        bodiless(key, target.name, errors[0]!.loc, {
          stub: `nabla could not compile ${functionLabel(target.name)} (${reason}; see the warnings of 'nabla check'), and this run calls it: ${demand.optional}`,
        }),
      );
    }
  }
}
