import type { Type } from "../../ir/types.js";
import { tangentType } from "../../ir/tangent-types.js";
import { zerosLike } from "./aggregates.js";
import * as js from "./expression.js";
import type { Builtins } from "./module-names.js";
import { wrapperScaffold } from "./wrapper-scaffold.js";

// `jacobian(f)` with respect to an array of rows (`number[][]`, `Float64Array[]`): each row of
// the Jacobian (for a number-valued f, the Jacobian itself) is shaped like the parameter, as
// JAX's `jacfwd`/`jacrev` give it for a matrix argument. Forward mode: one forward sweep and a
// differential along each basis matrix (a 1 at row r, column c), the column of the m outputs;
// reverse mode: a pullback per output. Without a mode, the fewer of the two, as for a vector.

export interface MatrixJacobian {
  /** Parameter names of the differentiated function, and what a lambda captures. */
  params: string[];
  captures: string[];
  /** The differentiated parameter and its type (an array of number vectors). */
  wrt: number;
  type: Type;
  /** What f returns: a number, or a vector of numbers. */
  result: Type;
  /** The valueWithDifferential wrapper (forward mode), if the call may use it. */
  valueWithDifferential?: string;
  /** The valueWithPullback wrapper (reverse mode, f returning a vector), if it may use it. */
  valueWithPullback?: string;
  mode?: "forward" | "reverse";
  /** A name for the call site, under which the run time remembers m (see jacobianSite). */
  site: string;
  /** Arguments and captures f writes (indices into params, then captures). */
  writes: number[];
  runtime: string;
  builtin: Builtins;
}

export function matrixJacobianWrapper(w: MatrixJacobian): string {
  // A function that writes its arguments writes them once: a second sweep (reverse mode after
  // the forward sweep that told m) runs on copies of them as they were.
  const { fresh, params, all, snapshots, takeSnapshots, copies } = wrapperScaffold(w);
  const args = params.join(", ");
  const x = params[w.wrt]!;
  const written = snapshots.size > 0;
  const locals = [
    "d",
    "e",
    "g",
    "r",
    "c",
    "i",
    "m",
    "n",
    "rows",
    "col",
    "vp",
    "site",
    "z",
  ] as const;
  const named = Object.fromEntries(locals.map((l) => [l, fresh(l)])) as Record<
    (typeof locals)[number],
    string
  >;
  const { d, e, g, r, c, i, m, n, rows, col, vp, site, z } = named;
  // Zeros shaped like x, taken before f runs (f may write x, even lengthen it): the loops and
  // every basis matrix and row of the Jacobian are shaped like them.
  const template = `const ${z} = ${zerosLike(tangentType(w.type), js.name(x), w.runtime, w.builtin).text}; `;
  const zeros = `${z}.map((row) => row.slice())`;
  const number = w.result === "number";
  // A fresh basis matrix per direction if f writes (its JVP writes x's tangent).
  const basis = written
    ? [`const ${e} = ${zeros}; ${e}[${r}][${c}] = 1; `, ""]
    : [`${e}[${r}][${c}] = 1; `, ` ${e}[${r}][${c}] = 0;`];
  const shared = written ? "" : `const ${e} = ${zeros}; `;
  const directions = (body: string) =>
    `${shared}for (let ${r} = 0; ${r} < ${z}.length; ${r}++) for (let ${c} = 0; ${c} < ${z}[${r}].length; ${c}++) { ${basis[0]}${body}${basis[1]} }`;
  const sweep = `(${w.valueWithDifferential!})(${args})`;
  if (number) {
    // Forward mode only: a number-valued f's reverse mode is its gradient (higher-order.ts).
    return (
      `((${args}) => { ${template}const ${g} = ${zeros}; const ${d} = ${sweep}; ` +
      `${directions(`${g}[${r}][${c}] = ${d}.differential(${e});`)} return ${g}; })`
    );
  }
  // Forward mode from the sweep `d`: m rows shaped like x, entry [r][c] of each from a column.
  const forward =
    `${m} = ${d}.value.length; ${rows} = new ${w.builtin("Array")}(${m}); for (let ${i} = 0; ${i} < ${m}; ${i}++) ${rows}[${i}] = ${zeros}; ` +
    directions(
      `const ${col} = ${d}.differential(${e}); for (let ${i} = 0; ${i} < ${m}; ${i}++) ${rows}[${i}][${r}][${c}] = ${col}[${i}];`,
    );
  // Reverse mode, on copies of what f writes when the forward sweep ran first. A wrapper reads
  // what a lambda captures by name: copies shadow the captures for its sweep.
  const pullbackOn = (list: string[]) =>
    w.captures.length > 0 && list !== all
      ? `((${w.captures.join(", ")}) => (${w.valueWithPullback!})(${list.slice(0, params.length).join(", ")}))(${list.slice(params.length).join(", ")})`
      : `(${w.valueWithPullback!})(${list.slice(0, params.length).join(", ")})`;
  const reverse = (list: string[]) =>
    `const ${vp} = ${pullbackOn(list)}; ${m} = ${vp}.value.length; ${rows} = new ${w.builtin("Array")}(${m}); ` +
    `for (let ${i} = 0; ${i} < ${m}; ${i}++) { const ${g} = ${zerosLike(tangentType(w.result), js.name(`${vp}.value`), w.runtime, w.builtin).text}; ${g}[${i}] = 1; ${rows}[${i}] = ${vp}.pullback(${g}); }`;
  // Reverse mode after a forward sweep ran f: on copies of what it writes.
  const reverseAfter = written
    ? `if (${d} === undefined) { ${reverse(all)} } else { ${reverse(copies)} }`
    : `{ ${reverse(all)} }`;
  if (w.mode === "forward")
    return `((${args}) => { ${template}let ${m}, ${rows}; const ${d} = ${sweep}; ${forward} return ${rows}; })`;
  if (w.mode === "reverse")
    return `((${args}) => { let ${m}, ${rows}; ${reverse(all)} return ${rows}; })`;
  // n numbers in x; m outputs, from the previous call at this site or from the forward sweep
  // (which forward mode then keeps).
  return (
    `((${args}) => { ${takeSnapshots}${template}const ${site} = ${w.runtime}.jacobianSite(${JSON.stringify(w.site)}); ` +
    `let ${n} = 0; for (let ${r} = 0; ${r} < ${z}.length; ${r}++) ${n} += ${z}[${r}].length; ` +
    `let ${m} = ${site}.m, ${rows}, ${d}; ` +
    `if (${m} < 0) { ${d} = ${sweep}; ${m} = ${d}.value.length; } ` +
    `if (${n} <= ${m}) { ${d} ??= ${sweep}; ${forward} } else ${reverseAfter} ` +
    `${site}.m = ${m}; return ${rows}; })`
  );
}
