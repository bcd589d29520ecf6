import type { Capture, LocalFunction } from "./captures.js";
import type { FunctionLike, SourceModule } from "../parse/module.js";
import { symbolKey } from "../ir/function-key.js";
import type { FunctionKey, FunctionTypeInfo, ObjectType, SourceLoc } from "../ir/types.js";
import type { FunctionSymbol } from "../parse/program.js";
import type { TypeArguments } from "../types/declared-types.js";

// What resolution finds: the functions to differentiate, the function values they are given,
// and the keys of the specializations made for those (lower/function-values.ts lowers calls
// through them).

/** The function being differentiated: a named function, or a lambda written at the call. */
export interface DifferentiationTarget {
  module: SourceModule;
  name: string;
  node: FunctionLike;
  /** Parameters without annotations are numbers (lambdas given to `derivative`). */
  contextualNumberParams: boolean;
  /** Variables of enclosing functions a lambda reads: extra parameters of its derivative. */
  captures: Capture[];
  /**
   * Local functions of the enclosing function it calls or passes on (see
   * local-function-reads.ts): lowering gives it their code, reading its captures.
   */
  localFunctions?: LocalFunction[];
  /** For a method: the type of `this`, its first parameter. */
  thisType?: ObjectType;
  /** For a constructor (`new C(…)`): the instance it builds and returns. */
  constructs?: ObjectType;
  /**
   * A specialization or lifted local function (see lower/function-values.ts): its
   * function-typed parameters and the local functions it calls, bound to known functions.
   */
  bindings?: Binding[];
  /** A function passed where this function type is expected: its parameter and result types. */
  contextual?: FunctionTypeInfo;
  /** Captures are parameters derivatives flow through (a lifted function), not constants. */
  liftedCaptures?: boolean;
  /** A lifted local function that calls itself by this name (see liftRecursiveLocal). */
  recursive?: string;
  /**
   * A method or getter of an object literal passed on with its object, which it captures first
   * as `this` (lower/passed-accessors.ts); a read of a getter's field calls it.
   */
  literalAccessor?: "method" | "getter";
  /**
   * `hasAux: true`: the function returns `[loss, aux]` or `{ value: loss, aux }`, and only the
   * loss is differentiated (see lower/aux.ts).
   */
  aux?: boolean;
  /** A specialization of a generic function: what its type parameters stand for. */
  typeArguments?: TypeArguments;
}

/** A function value, as far as the compiler knows it. */
export type StaticFunction =
  | { kind: "named"; symbol: FunctionSymbol }
  | { kind: "lambda"; key: FunctionKey; target: DifferentiationTarget }
  | {
      kind: "dynamic";
      type: FunctionTypeInfo;
      /** What holds it, for messages ("parameter 'act'"), and where that is declared. */
      what: string;
      origin: SourceLoc;
      /**
       * Read from an optional field (`onStep?: …`), which code tests before calling: with no
       * function of the program to match, a call throws where it runs instead of failing to
       * compile (the field may only ever be absent, or hold a closure the callee is
       * specialized for).
       */
      optional?: boolean;
    }
  /**
   * One of two functions, told apart at run time by a test (`layer.act ?? ((z) => z)`): the
   * carried values are the test's, then each option's.
   */
  | { kind: "choice"; options: readonly [StaticFunction, StaticFunction] }
  /**
   * No function: an optional function parameter left out, or given `undefined` or `null`
   * (`onStep?: (i: number) => void`). `f?.(x)` is then skipped, `if (f)` not taken.
   */
  | { kind: "absent"; value: "undefined" | "null" };

/** A function-typed parameter (or captured local function) bound to a function value. */
export interface Binding {
  name: string;
  fn: StaticFunction;
}

/** The part of a specialization key that names a function value. */
export function staticKey(fn: StaticFunction): string {
  if (fn.kind === "dynamic") return "*";
  if (fn.kind === "absent") return fn.value;
  if (fn.kind === "choice") return `(${fn.options.map(staticKey).join("|")})`;
  return fn.kind === "named" ? symbolKey(fn.symbol) : fn.key;
}

/** The key of `base` specialized for `bindings`. */
export function specializationKey(base: FunctionKey, bindings: Binding[]): FunctionKey {
  return `${base}{${bindings.map((b) => `${b.name}=${staticKey(b.fn)}`).join(";")}}`;
}
