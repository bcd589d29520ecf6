import type { Builder } from "../ir/builder.js";
import type { Value } from "../ir/types.js";

// Builds tangent (linear) code with symbolic zeros: `undefined` stands for a tangent known to
// be zero, so rules never emit `0 * x` or `dx + 0`. Ops built here are marked as tangent ops;
// the coefficients they multiply by are primal values built by the rule beforehand.

export type Tangent = Value | undefined;

export class LinearBuilder {
  /** `constantOf` tells literal coefficients, so `dx · 1` is just `dx` and `dx · 0` is zero. */
  constructor(
    readonly b: Builder,
    private readonly constantOf: (v: Value) => number | undefined = () => undefined,
  ) {}

  private tangentOp(fn: () => Value): Value {
    return this.b.asTangent(true, fn);
  }

  /** tangent · coefficient */
  scale(t: Tangent, coefficient: Value): Tangent {
    if (!t) return undefined;
    const k = this.constantOf(coefficient);
    if (k === 1) return t;
    if (k === 0) return undefined;
    if (k === -1) return this.neg(t);
    return this.tangentOp(() => this.b.binary("mul", t, coefficient));
  }

  add(a: Tangent, c: Tangent): Tangent {
    if (!a) return c;
    if (!c) return a;
    return this.tangentOp(() => this.b.binary("add", a, c));
  }

  sub(a: Tangent, c: Tangent): Tangent {
    if (!c) return a;
    if (!a) return this.neg(c);
    return this.tangentOp(() => this.b.binary("sub", a, c));
  }

  neg(t: Tangent): Tangent {
    return t && this.tangentOp(() => this.b.unary("neg", t));
  }

  /** Σ tᵢ · cᵢ over the non-zero tangents. */
  combine(terms: [Tangent, Value][]): Tangent {
    return terms.reduce<Tangent>((acc, [t, c]) => this.add(acc, this.scale(t, c)), undefined);
  }
}
