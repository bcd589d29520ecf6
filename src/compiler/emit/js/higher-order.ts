import { tangentType } from "../../ir/tangent-types.js";
import type { Type } from "../../ir/types.js";
import { isArray } from "../../ir/type-system.js";
import { zerosLike } from "./aggregates.js";
import * as js from "./expression.js";
import { laneAllocation } from "./lanes.js";
import type { Builtins } from "./module-names.js";
import type { HigherOrderOperator } from "../../../api/operators.js";
import { wrapperScaffold } from "./wrapper-scaffold.js";

// `hessian`, `hessianVectorProduct` and `jacobian`, built from first-order wrappers (the text
// operatorWrapper makes, applied to the arguments):
// - a Hessian-vector product is the gradient, with respect to x, of x ↦ ⟨∇f(x), v⟩ computed in
//   forward mode — reverse over forward, which costs a small multiple of a gradient;
// - a Hessian is one such product per basis vector: one row each;
// - a Jacobian of m outputs and n inputs takes n JVPs or m pullbacks, whichever is fewer
//   (decided at run time, from the lengths), and is the gradient for a number-valued function;
//   the n JVPs are one JVP along all n directions at once (up to LANES per pass), which
//   computes the function once instead of n times.

/** At most this many directions per pass of a JVP along several directions (memory: each
 * tangent array is that many times its value's size). */
export const LANES = 32;

export interface HigherOrderWrapper {
  operator: HigherOrderOperator;
  /** Parameter names of the differentiated function, and what a lambda captures. */
  params: string[];
  captures: string[];
  /** The differentiated parameter, and its type (a number, or a flat array of numbers). */
  wrt: number;
  type: Type;
  /**
   * hessian, hessianVectorProduct: a gradient wrapper taking (params…, captures…, v);
   * gradientAndHessianVectorProduct: one with respect to x and v, returning [H·v, ∇f].
   */
  hvp?: string;
  /** jacobian of a number-valued function: the gradient wrapper. */
  gradient?: string;
  /**
   * jacobian: the valueWithDifferential wrapper (forward mode) and the valueWithPullback
   * wrapper (reverse mode), of the modes this call may use.
   */
  valueWithDifferential?: string;
  valueWithPullback?: string;
  /**
   * jacobian with respect to a number, in forward mode: the differential wrapper (its column
   * is the differential along 1, and needs no value).
   */
  differential?: string;
  /** jacobian: the mode the user chose (`{ mode }`); absent, it is decided by n and m. */
  mode?: "forward" | "reverse";
  result?: Type;
  /**
   * jacobian with respect to an array: the JVP along several directions, (params…,
   * captures…, tangent of x, k) → tangent, value in `out.v1` (see lanes.ts).
   */
  lanes?: string;
  /** A name for the call site, under which the run time remembers m (see jacobianSite). */
  site?: string;
  /** Parameters f writes: each pass but one gets copies, so the call writes them once. */
  writes: number[];
  runtime: string;
  /** How the module reads the platform's globals (see module-names.ts). */
  builtin: Builtins;
}

export function higherOrderWrapper(w: HigherOrderWrapper): string {
  const { fresh, params, snapshots, takeSnapshots, copies } = wrapperScaffold(w);
  const args = params.join(", ");
  const x = params[w.wrt]!;
  /** Throws, saying what the operator takes, when its vector `v` was left out. */
  const vectorGiven = (v: string) =>
    `${w.runtime}.vectorGiven(${v}, ${JSON.stringify(w.operator)}, ${params.length})`;
  /** A basis vector of `type` shaped like `like`, with a 1 at `at`. */
  const basis = (type: Type, like: string, into: string, at: string) =>
    `const ${into} = ${zerosLike(tangentType(type), js.name(like), w.runtime, w.builtin).text}; ${into}[${at}] = 1; `;
  switch (w.operator) {
    case "hessianVectorProduct": {
      const v = fresh("v");
      // A function that writes x has a JVP that writes x's tangent: v stays the user's.
      const direction = w.writes.length > 0 ? `${w.runtime}.copyTangent(${v})` : v;
      return `((${args}, ${v}) => (${vectorGiven(v)}, (${w.hvp!})(${[...params, ...w.captures, direction].join(", ")})))`;
    }
    case "gradientAndHessianVectorProduct": {
      const v = fresh("v");
      const both = fresh("both");
      const direction = w.writes.length > 0 ? `${w.runtime}.copyTangent(${v})` : v;
      return (
        `((${args}, ${v}) => { ${vectorGiven(v)}; const ${both} = (${w.hvp!})(${[...params, ...w.captures, direction].join(", ")}); ` +
        `return { gradient: ${both}[1], hessianVectorProduct: ${both}[0] }; })`
      );
    }
    case "hessian": {
      const hvp = fresh("hvp");
      const apply = (v: string) => `${hvp}(${[...params, ...w.captures, v].join(", ")})`;
      if (w.type === "number")
        return `((${args}) => { const ${hvp} = ${w.hvp!}; return ${apply("1")}; })`;
      const [n, rows, i, v] = ["n", "rows", "i", "v"].map(fresh) as [
        string,
        string,
        string,
        string,
      ];
      // With written arguments, every row but the last runs on copies (x is read first).
      const row =
        snapshots.size === 0
          ? apply(v)
          : `${i} + 1 < ${n} ? ${hvp}(${[...copies, v].join(", ")}) : ${apply(v)}`;
      if (snapshots.size > 0) {
        // f writes x, so its JVP writes the tangent: a fresh basis vector per row.
        return (
          `((${args}) => { ${takeSnapshots}const ${hvp} = ${w.hvp!}; const ${n} = ${x}.length, ${rows} = new ${w.builtin("Array")}(${n}); ` +
          `for (let ${i} = 0; ${i} < ${n}; ${i}++) { ${basis(w.type, x, v, i)}${rows}[${i}] = ${row}; } return ${rows}; })`
        );
      }
      // One basis vector, its 1 moved along (an allocation costs more than a small HVP).
      const zeros = zerosLike(tangentType(w.type), js.name(x), w.runtime, w.builtin).text;
      return (
        `((${args}) => { const ${hvp} = ${w.hvp!}; const ${n} = ${x}.length, ${rows} = new ${w.builtin("Array")}(${n}), ${v} = ${zeros}; ` +
        `for (let ${i} = 0; ${i} < ${n}; ${i}++) { ${v}[${i}] = 1; ${rows}[${i}] = ${row}; ${v}[${i}] = 0; } return ${rows}; })`
      );
    }
    case "jacobian": {
      if (w.gradient) return w.gradient;
      if (w.result === "number") return forwardGradient(w, params, fresh);
      if (w.mode === "reverse") return reverseJacobian(w, params, fresh, basis);
      if (w.lanes) return lanesJacobian(w, params, fresh, snapshots, takeSnapshots, copies, basis);
      // With respect to a number: one differential along 1 is the column of m numbers.
      if (w.differential) return `((${args}) => (${w.differential})(${args})(1))`;
      return `((${args}) => (${w.valueWithDifferential!})(${args}).differential(1))`;
    }
  }
}

/**
 * The Jacobian of a number-valued f in forward mode (`mode: "forward"`): one differential at
 * the point, applied to each of the n basis vectors (to 1 for a number x).
 */
function forwardGradient(
  w: HigherOrderWrapper,
  params: string[],
  fresh: (base: string) => string,
): string {
  const args = params.join(", ");
  const at = `(${w.valueWithDifferential!})(${args})`;
  if (w.type === "number") return `((${args}) => ${at}.differential(1))`;
  const x = params[w.wrt]!;
  const [n, d, g, j, e] = ["n", "d", "g", "j", "e"].map(fresh) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const zeros = zerosLike(tangentType(w.type), js.name(x), w.runtime, w.builtin).text;
  // Shaped before f runs: f may write x. The differential runs on copies of what f writes.
  return (
    `((${args}) => { const ${n} = ${x}.length, ${g} = ${zeros}, ${e} = ${zeros}; const ${d} = ${at}; ` +
    `for (let ${j} = 0; ${j} < ${n}; ${j}++) { ${e}[${j}] = 1; ${g}[${j}] = ${d}.differential(${e}); ${e}[${j}] = 0; } return ${g}; })`
  );
}

/**
 * The Jacobian in reverse mode (`mode: "reverse"`): one forward sweep, then one pullback per
 * output, of the basis adjoint of that output: row i is the gradient of output i. With respect
 * to a number, the rows are numbers, gathered in an array of the kind the result's tangent is
 * (what forward mode gives).
 */
function reverseJacobian(
  w: HigherOrderWrapper,
  params: string[],
  fresh: (base: string) => string,
  basis: (type: Type, like: string, into: string, at: string) => string,
): string {
  const args = params.join(", ");
  const [vp, m, rows, i, e] = ["vp", "m", "rows", "i", "e"].map(fresh) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const value = `${vp}.value`;
  const rowsOf =
    w.type === "number"
      ? zerosLike(tangentType(w.result!), js.name(value), w.runtime, w.builtin).text
      : `new ${w.builtin("Array")}(${m})`;
  return (
    `((${args}) => { const ${vp} = (${w.valueWithPullback!})(${args}); const ${m} = ${value}.length, ${rows} = ${rowsOf}; ` +
    `for (let ${i} = 0; ${i} < ${m}; ${i}++) { ${basis(w.result!, value, e, i)}${rows}[${i}] = ${vp}.pullback(${e}); } return ${rows}; })`
  );
}

/**
 * A Jacobian with respect to an array x (n numbers) of a function returning m numbers: forward
 * mode along all n directions at once when n ≤ m — one JVP along k ≤ LANES directions per
 * pass, whose tangent of the result holds m rows of k lanes — else m pullbacks. Deciding needs
 * m: the first call at a call site evaluates f to learn it (a JVP along no direction), later
 * calls take the m of the previous call there (which only decides the mode: both give the
 * Jacobian).
 */
function lanesJacobian(
  w: HigherOrderWrapper,
  params: string[],
  fresh: (base: string) => string,
  snapshots: Map<number, string>,
  takeSnapshots: string,
  copies: string[],
  basis: (type: Type, like: string, into: string, at: string) => string,
): string {
  const x = params[w.wrt]!;
  const args = params.join(", ");
  const all = [...params, ...w.captures];
  // The locals of the generated loops, each fresh among the names the function already uses.
  const locals = [
    "n",
    "m",
    "rows",
    "i",
    "j",
    "q",
    "k",
    "e",
    "d",
    "r",
    "site",
    "first",
    "vp",
  ] as const;
  const named = Object.fromEntries(locals.map((l) => [l, fresh(l)])) as Record<
    (typeof locals)[number],
    string
  >;
  const { n, m, rows, i, j, q, k, e, d, r, site, first, vp } = named;
  const xTangent = tangentType(w.type);
  const row = zerosLike(xTangent, js.name(x), w.runtime, w.builtin).text;
  // A function that writes its arguments writes them once: the first pass runs on them, the
  // others on copies of them as they were.
  const written = snapshots.size > 0;
  const pass = (call: (list: string[]) => string) =>
    written ? `(${first} ? (${first} = false, ${call(all)}) : ${call(copies)})` : call(all);
  // A wrapper reads what a lambda captures by name: copies shadow the captures for its pass.
  const wrapped = (wrapper: string) => (list: string[]) =>
    w.captures.length > 0 && list !== all
      ? `((${w.captures.join(", ")}) => (${wrapper})(${list.slice(0, params.length).join(", ")}))(${list.slice(params.length).join(", ")})`
      : `(${wrapper})(${list.slice(0, params.length).join(", ")})`;
  const newRows = `${rows} = new ${w.builtin("Array")}(${m}); for (let ${i} = 0; ${i} < ${m}; ${i}++) ${rows}[${i}] = ${row};`;
  // Directions j … j + k − 1: the basis vectors as the lanes of x's tangent.
  const seed = laneAllocation(xTangent, js.member(js.name(x), "length"), k, w.builtin).text;
  // All directions in one pass, and the result's lanes an array of x's tangent's kind: the
  // rows are views of them (typed arrays) or slices.
  const result = w.result!;
  const rowsOfLanes =
    isArray(result) && isArray(xTangent) && result.storage === xTangent.storage
      ? result.storage === "Array"
        ? `${d}.slice(${i} * ${k}, ${i} * ${k} + ${k})`
        : `${d}.subarray(${i} * ${k}, ${i} * ${k} + ${k})`
      : undefined;
  const copyRows =
    `if (${rows} === undefined) { ${m} = ${w.runtime}.out.v1.length; ${newRows} } ` +
    `for (let ${i} = 0; ${i} < ${m}; ${i}++) { const ${r} = ${rows}[${i}]; for (let ${q} = 0; ${q} < ${k}; ${q}++) ${r}[${j} + ${q}] = ${d}[${i} * ${k} + ${q}]; }`;
  const lanesPass =
    `const ${e} = ${seed}; for (let ${q} = 0; ${q} < ${k}; ${q}++) ${e}[(${j} + ${q}) * ${k} + ${q}] = 1; ` +
    `const ${d} = ${pass((list) => `${w.lanes!}(${[...list, e, k].join(", ")})`)}; ` +
    (rowsOfLanes
      ? `if (${k} === ${n}) { ${m} = ${w.runtime}.out.v1.length; ${rows} = new ${w.builtin("Array")}(${m}); for (let ${i} = 0; ${i} < ${m}; ${i}++) ${rows}[${i}] = ${rowsOfLanes}; } else { ${copyRows} }`
      : copyRows);
  const forward =
    `for (let ${j} = 0; ${j} < ${n}; ${j} += ${LANES}) { const ${k} = ${w.builtin("Math")}.min(${LANES}, ${n} - ${j}); ${lanesPass} } ` +
    `if (${rows} === undefined) { ${newRows} }`;
  const reverse =
    `const ${vp} = ${pass(wrapped(w.valueWithPullback!))}; ${m} = ${vp}.value.length; ${rows} = new ${w.builtin("Array")}(${m}); ` +
    `for (let ${i} = 0; ${i} < ${m}; ${i}++) { ${basis(w.result!, `${vp}.value`, e, i)}${rows}[${i}] = ${vp}.pullback(${e}); }`;
  if (w.mode === "forward") {
    // Forward mode chosen: m comes from the first pass (or from f itself when x is empty).
    return (
      `((${args}) => { ${takeSnapshots}${written ? `let ${first} = true; ` : ""}` +
      `const ${n} = ${x}.length; let ${m} = -1, ${rows}; ` +
      `if (${n} === 0) ${m} = (${w.valueWithDifferential!})(${args}).value.length; ` +
      `${forward} return ${rows}; })`
    );
  }
  return (
    `((${args}) => { ${takeSnapshots}${written ? `let ${first} = true; ` : ""}` +
    `const ${site} = ${w.runtime}.jacobianSite(${JSON.stringify(w.site ?? "")}); ` +
    `const ${n} = ${x}.length; let ${m} = ${site}.m, ${rows}; ` +
    // The first call here, or no direction at all: evaluate f once to learn m.
    `if (${m} < 0 || ${n} === 0) { ${m} = (${w.valueWithDifferential!})(${args}).value.length; ${written ? `${first} = false; ` : ""}} ` +
    `if (${n} <= ${m}) { ${forward} } else { ${reverse} } ` +
    `${site}.m = ${m}; return ${rows}; })`
  );
}
