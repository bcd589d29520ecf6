import type { FunctionKey, ObjectType, Type } from "./types.js";

// Names of derivative functions. A derivative is identified by its primal, its kind and its
// configuration (which parameters it differentiates), as Swift's derivative configurations are.

/**
 * The generated functions of one derivative configuration:
 * - `jvp`: forward mode, (args…, tangents…) → tangent, value in `out.v1`;
 * - `fwd`: reverse mode's forward sweep, (args…) → value, saving what `bwd` needs on the tape;
 * - `bwd`: reverse mode's backward sweep, (adjoint of the result) → adjoints of the parameters;
 * - `grad`: both sweeps in one function for `gradient`, (args…, adjoint) → adjoints, then value;
 * - `vjp`: both sweeps for `pullback` without the tape, (args…) → the backward sweep as a
 *   closure over the forward sweep's values, then the value and the result's shadow;
 * - `jvps`: forward mode along k directions at once (`jacobian`), (args…, tangents…, k) →
 *   tangent, value in `out.v1`, every tangent number carried as k lanes (see emit/js/lanes.ts).
 */
export type DerivativeKind = "jvp" | "fwd" | "bwd" | "grad" | "jvps" | "vjp";

export function derivativeKey(
  kind: DerivativeKind,
  primal: FunctionKey,
  wrt: number[],
  frozen: number[] = [],
): FunctionKey {
  const reads =
    kind !== "jvp" && kind !== "jvps" && frozen.length > 0 ? `[${frozen.join(",")}]` : "";
  return `${primal}@${kind}(${wrt.join(",")})${reads}`;
}

/** The forward or backward sweep of a checkpointed call of `primal` (see emit/js/checkpoint.ts). */
export function checkpointKey(
  kind: "fwd" | "bwd",
  primal: FunctionKey,
  wrt: number[],
): FunctionKey {
  return `${derivativeKey(kind, primal, wrt)}!checkpoint`;
}

/** The sweep a call of a derivative in reverse mode uses: checkpointed or not. */
export function sweepKey(
  kind: "fwd" | "bwd",
  attrs: { primal?: FunctionKey; wrt?: number[]; frozen?: number[]; checkpoint?: boolean },
): FunctionKey {
  return attrs.checkpoint
    ? checkpointKey(kind, attrs.primal!, attrs.wrt!)
    : derivativeKey(kind, attrs.primal!, attrs.wrt!, attrs.frozen);
}

export function jvpKey(primal: FunctionKey, wrt: number[]): FunctionKey {
  return derivativeKey("jvp", primal, wrt);
}

/** The JVP along k directions at once of `primal` (see emit/js/lanes.ts). */
export function lanesKey(primal: FunctionKey, wrt: number[]): FunctionKey {
  return derivativeKey("jvps", primal, wrt);
}

/** `f$jvp` when every parameter is differentiated, `f$jvp_0_2` for a subset. */
export function derivativeName(
  kind: DerivativeKind,
  primalName: string,
  wrt: number[],
  arity: number,
  frozen: number[] = [],
): string {
  const all = wrt.length === arity && wrt.every((w, i) => w === i);
  const base = asIdentifier(primalName);
  const name = all ? `${base}$${kind}` : `${base}$${kind}_${wrt.join("_")}`;
  // Variants that may read arrays again in the backward sweep (see ReverseInfo) say which.
  // `g`: module-level arrays are frozen too (MODULE_DATA).
  const reads = frozen.map((i) => (i < 0 ? "g" : i >= 1 << 16 ? `s${i - (1 << 16)}` : String(i)));
  return kind !== "jvp" && kind !== "jvps" && frozen.length > 0
    ? `${name}$r${reads.join("_")}`
    : name;
}

/**
 * A function's name as part of a JavaScript identifier: a method `Linear.forward` gets
 * module-level derivatives named `Linear_forward$…`, a private one `Cell.#gate`, `Cell_$gate$…`;
 * a function in module data (`schedule[1]`, `table["leaky-relu"]`) has its other characters
 * spelled by code (`schedule$5b1$5d`), so two paths give two names.
 */
export function asIdentifier(name: string): string {
  return name
    .replace(/\./g, "_")
    .replace(/#/g, "$")
    .replace(/[^\w$]/g, (c) => `$${c.charCodeAt(0).toString(16)}`);
}

export function jvpName(primalName: string, wrt: number[], arity: number): string {
  return derivativeName("jvp", primalName, wrt, arity);
}

/**
 * The capture that carries `this` into an arrow given to an operator inside a method
 * (`valueWithGradient((p) => this.loss(p))`): a name generated code can use for a parameter,
 * bound to `this` where the operator is called.
 */
export const THIS_CAPTURE = "this$";

/** The internal name of a lambda written at an operator call (line and column of the lambda). */
export function lambdaName(line: number, column: number): string {
  return `lambda_${line}_${column}`;
}

/** How messages refer to a function: `'f'`, `'Act.softplus'`, or "this function" for a lambda. */
export function functionLabel(name: string): string {
  // `loss$aux` is `loss` differentiated with `hasAux` (see lower/aux.ts).
  const base = name.replace(/\$aux$/, "");
  // `loss$jvp_1$t`: a JVP made a primal function to differentiate again (hessian, nested
  // operators; see derivedPrimalKey), named as what it is to the user.
  const derived = /^(.+)\$jvp(?:_\d+)*\$[tph]$/.exec(base);
  if (derived) return `the derivative of ${functionLabel(derived[1]!)}`;
  if (/^lambda_\d+_\d+(\$passed(\$\d+)?)?$/.test(base)) return "this function";
  const member = staticMethodName(base);
  return member ? `'${member.className}.${member.method}'` : `'${base}'`;
}

/** The internal name of the static method `method` of `className` (`Act.static.softplus`). */
export function staticMethodKeyName(className: string, method: string): string {
  return `${className}.static.${method}`;
}

/** The class and method a static method's internal name stands for. */
export function staticMethodName(name: string): { className: string; method: string } | undefined {
  const match = /^([^.]+)\.static\.(.+)$/.exec(name);
  return match ? { className: match[1]!, method: match[2]! } : undefined;
}

/**
 * A JVP made a primal function (see differentiate/nest.ts): its tangent alone, or `{ d, v }`;
 * `product` is the tangent alone for a Hessian-vector product's gradient, whose caller never
 * reads its value (the reverse-mode sweeps of that key skip computing it).
 */
export type PrimalForm = "tangent" | "pair" | "product";

/** The key of the primal form of the JVP `jvp`. */
export function derivedPrimalKey(jvp: FunctionKey, form: PrimalForm): FunctionKey {
  return `${jvp}~${form}`;
}

/** The JVP key and form of a derived primal's key; undefined for other keys. */
export function parseDerivedPrimalKey(
  key: FunctionKey,
): { jvp: FunctionKey; form: PrimalForm } | undefined {
  const match = /^(.*)~(tangent|pair|product)$/.exec(key);
  return match ? { jvp: match[1]!, form: match[2] as PrimalForm } : undefined;
}

/** The primal and differentiated parameters of a derivative key (the last `@kind(…)`). */
export function parseDerivativeKey(
  key: FunctionKey,
): { primal: FunctionKey; kind: string; wrt: number[] } | undefined {
  const match = /^(.*)@(jvp|fwd|bwd|grad|jvps|vjp)\(([\d,]*)\)(\[[-\d,]*\])?$/.exec(key);
  if (!match) return undefined;
  const wrt = match[3] ? match[3].split(",").map(Number) : [];
  return { primal: match[1]!, kind: match[2]!, wrt };
}

/** The `{ d, v }` object a pair-form JVP returns. */
export function pairType(tangent: Type, value: Type): ObjectType {
  return {
    kind: "object",
    name: "{ d; v }",
    fields: [
      { name: "d", type: tangent, noDerivative: false },
      { name: "v", type: value, noDerivative: false },
    ],
  };
}
