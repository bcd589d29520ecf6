import type { Type } from "../../ir/types.js";
import { tangentType } from "../../ir/tangent-types.js";
import { isNumberMatrix } from "../../ir/type-system.js";
import { zerosLike } from "./aggregates.js";
import * as js from "./expression.js";
import type { Builtins } from "./module-names.js";
import { wrapperScaffold } from "./wrapper-scaffold.js";

// `jacobian(f, { wrt: [i, j, …] })`: the Jacobian with respect to several parameters. Each row
// (for a number-valued f, the one result) is a tuple of blocks, one per parameter in `wrt`'s
// order, each shaped like that parameter's tangent, as JAX's `jacfwd(f, argnums=(i, j))` gives.
// Forward mode puts side by side the single-parameter Jacobians (each its own forward passes);
// reverse mode runs one forward sweep and a pullback per output, with respect to all of them.

export interface SeveralJacobian {
  /** Parameter names of the differentiated function, and what a lambda captures. */
  params: string[];
  captures: string[];
  /** The differentiated parameters, in `wrt`'s order, and their types. */
  wrt: number[];
  types: Type[];
  /** Whether f returns a number (the Jacobian is then one tuple, the gradient's). */
  number: boolean;
  /** What f returns. */
  result: Type;
  /** Forward mode: a single-parameter `jacobian` wrapper per parameter, in `wrt`'s order. */
  blocks?: string[];
  /** Reverse mode: the gradient wrapper (number-valued f) or the valueWithPullback wrapper. */
  gradient?: string;
  valueWithPullback?: string;
  /** Without a mode, chosen at run time from n and m, as for one parameter. */
  mode?: "forward" | "reverse";
  /** A name for the call site, under which the run time remembers m. */
  site: string;
  /** Arguments and captures f writes (indices into params, then captures). */
  writes: number[];
  runtime: string;
  builtin: Builtins;
}

export function severalJacobianWrapper(w: SeveralJacobian): string {
  const { fresh, params, takeSnapshots, copies: allCopies } = wrapperScaffold(w);
  const args = params.join(", ");
  if (w.number && w.gradient) return `((${args}) => (${w.gradient})(${args}))`;
  // A function that writes its arguments or captures writes them once: every pass but the
  // last runs on copies of them as they were. A block's wrapper reads the captures by name, so
  // their copies are given under those names.
  const copies = allCopies.slice(0, params.length);
  const capturesWritten = w.writes.some((i) => i >= params.length);
  const [blocks, rows, m, n, i, site, vp, e, first] = [
    "blocks",
    "rows",
    "m",
    "n",
    "i",
    "site",
    "vp",
    "e",
    "first",
  ].map(fresh) as [string, string, string, string, string, string, string, string, string];
  /** Block k of forward mode, on copies unless `last`. */
  const block = (k: number, last: boolean) =>
    !last && capturesWritten
      ? `((${w.captures.join(", ")}) => (${w.blocks![k]!})(${copies.join(", ")}))(${allCopies.slice(params.length).join(", ")})`
      : `(${w.blocks![k]!})(${(last ? params : copies).join(", ")})`;
  const forward = (from: number) =>
    w.blocks!.slice(from).map((_, k) => `${block(from + k, from + k === w.blocks!.length - 1)}`);
  if (w.number) return `((${args}) => { ${takeSnapshots}return [${forward(0).join(", ")}]; })`;
  /** Rows of tuples from the blocks' rows. */
  // (A block with respect to a number is a column: a typed array, whose map makes numbers.)
  const sideBySide = `${rows} = ${w.builtin("Array")}.from(${blocks}[0], (_, ${i}) => ${blocks}.map((b) => b[${i}]));`;
  const seed = zerosLike(tangentType(w.result), js.name(`${vp}.value`), w.runtime, w.builtin);
  const reverse =
    `const ${vp} = (${w.valueWithPullback!})(${args}); ${m} = ${vp}.value.length; ${rows} = new ${w.builtin("Array")}(${m}); ` +
    `for (let ${i} = 0; ${i} < ${m}; ${i}++) { const ${e} = ${seed.text}; ${e}[${i}] = 1; ${rows}[${i}] = ${vp}.pullback(${e}); }`;
  if (w.mode === "forward")
    return `((${args}) => { ${takeSnapshots}let ${rows}; const ${blocks} = [${forward(0).join(", ")}]; ${sideBySide} return ${rows}; })`;
  if (w.mode === "reverse")
    return `((${args}) => { let ${m}, ${rows}; ${reverse} return ${rows}; })`;
  // n inputs in all (a number counts one); m outputs, known from an earlier call at this site
  // or from the first block, which forward mode then keeps.
  const sizes = w.types.map((t, k) => {
    const x = params[w.wrt[k]!]!;
    if (t === "number") return "1";
    // Rows (number[][]): the numbers in all of them.
    return isNumberMatrix(t) ? `${x}.reduce((s, row) => s + row.length, 0)` : `${x}.length`;
  });
  const rest = forward(1);
  return (
    `((${args}) => { ${takeSnapshots}const ${site} = ${w.runtime}.jacobianSite(${JSON.stringify(w.site)}); ` +
    `const ${n} = ${sizes.join(" + ")}; let ${m} = ${site}.m, ${rows}, ${first}; ` +
    `if (${m} < 0) { ${first} = ${block(0, false)}; ${m} = ${first}.length; } ` +
    `if (${n} <= ${m}) { const ${blocks} = [${first} ?? ${block(0, false)}, ${rest.join(", ")}]; ${sideBySide} } else { ${reverse} } ` +
    `${site}.m = ${m}; return ${rows}; })`
  );
}
