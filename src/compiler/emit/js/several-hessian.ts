import type { Type } from "../../ir/types.js";
import { tangentType } from "../../ir/tangent-types.js";
import { zerosLike } from "./aggregates.js";
import * as js from "./expression.js";
import type { Builtins } from "./module-names.js";
import { wrapperScaffold } from "./wrapper-scaffold.js";

// `hessian(f, { wrt: [a, b, …] })`: the Hessian with respect to several parameters, as JAX's
// `hessian(f, argnums=(a, b))` gives it: a tuple of rows of blocks, H[A][B] = ∂²f/∂x_A∂x_B —
// a number for two numbers, shaped like the array's tangent for a number and an array, and for
// two arrays one row per element of x_A, each shaped like x_B's tangent.
//
// One Hessian-vector product along a basis vector of x_B (element i) gives, with respect to
// every x_A at once, ∂/∂x_A (∂f/∂x_B,i): row i of H[B][A] (for a number x_B, H[B][A] itself).
// So the Σ n_B products, each along one element of one parameter, fill every block.

export interface SeveralHessian {
  /** Parameter names of the differentiated function, and what a lambda captures. */
  params: string[];
  captures: string[];
  /** The differentiated parameters in `wrt`'s order, and their types (numbers or vectors). */
  wrt: number[];
  types: Type[];
  /**
   * The gradient, with respect to the parameters in `wrt`'s order, of f's JVP's product form:
   * (params…, captures…, tangents…) with the tangents in ascending parameter order.
   */
  hvp: string;
  /** Arguments and captures f writes (indices into params, then captures). */
  writes: number[];
  runtime: string;
  builtin: Builtins;
}

export function severalHessianWrapper(w: SeveralHessian): string {
  // A function that writes its arguments writes them once: every pass but the last runs on
  // copies of them as they were (and, since its JVP writes their tangents, on fresh tangents).
  const { fresh, params, all, snapshots, takeSnapshots, copies } = wrapperScaffold(w);
  const args = params.join(", ");
  const written = snapshots.size > 0;
  const [hvp, h, r, i, pass, passes] = ["hvp", "h", "r", "i", "pass", "passes"].map(fresh) as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const k = w.wrt.length;
  const isNumber = (b: number) => w.types[b] === "number";
  const arg = (b: number) => params[w.wrt[b]!]!;
  const zeros = (b: number) =>
    zerosLike(tangentType(w.types[b]!), js.name(arg(b)), w.runtime, w.builtin).text;
  // The tangents the product form takes, in ascending parameter order: one per parameter, a
  // number's a literal, an array's a buffer whose 1 moves along (fresh per pass if f writes).
  const ascending = [...w.wrt.keys()].sort((a, b) => w.wrt[a]! - w.wrt[b]!);
  const tangentNames = w.wrt.map((p, b) => (isNumber(b) ? "" : fresh(`v${p}`)));
  const buffers = written
    ? ""
    : w.wrt.map((_, b) => (isNumber(b) ? "" : `const ${tangentNames[b]} = ${zeros(b)}; `)).join("");
  /** The product along parameter `along` (its buffer holding the 1, or 1 for a number). */
  const product = (along: number, last: string) => {
    const tangents = ascending.map((b) =>
      isNumber(b) ? (b === along ? "1" : "0") : written && b !== along ? zeros(b) : tangentNames[b],
    );
    const on = (list: string[]) => `${hvp}(${[...list, ...tangents].join(", ")})`;
    return written ? `(${last} ? ${on(all)} : ${on(copies)})` : on(all);
  };
  // The passes counted, so that the last one (when f writes its arguments) runs on them.
  // Each array's length read before any pass (f may lengthen what it writes).
  const lengths = w.wrt.map((p, b) => (isNumber(b) ? "" : fresh(`n${p}`)));
  const readLengths = w.wrt
    .map((_, b) => (isNumber(b) ? "" : `const ${lengths[b]} = ${arg(b)}.length; `))
    .join("");
  const sizes = w.wrt.map((_, b) => (isNumber(b) ? "1" : lengths[b]!));
  const last = `++${pass} === ${passes}`;
  const rows = w.wrt.map((_, b) => {
    if (isNumber(b)) {
      const fill = w.wrt.map((_, a) => `${h}[${b}][${a}] = ${r}[${a}]; `).join("");
      return `{ const ${r} = ${product(b, last)}; ${fill}}`;
    }
    // Blocks of this row: with respect to a number, shaped like x_B's tangent; else n_B rows.
    const n = lengths[b]!;
    const make = w.wrt
      .map((_, a) =>
        isNumber(a)
          ? `${h}[${b}][${a}] = ${zeros(b)}; `
          : `${h}[${b}][${a}] = new ${w.builtin("Array")}(${n}); `,
      )
      .join("");
    const fill = w.wrt.map((_, a) => `${h}[${b}][${a}][${i}] = ${r}[${a}]; `).join("");
    const v = tangentNames[b];
    const move = written
      ? [`const ${v} = ${zeros(b)}; ${v}[${i}] = 1; `, ""]
      : [`${v}[${i}] = 1; `, `${v}[${i}] = 0; `];
    return (
      `${make}for (let ${i} = 0; ${i} < ${n}; ${i}++) { ${move[0]}const ${r} = ${product(b, last)}; ` +
      `${move[1]}${fill}}`
    );
  });
  const counting = written ? `let ${pass} = 0; const ${passes} = ${sizes.join(" + ")}; ` : "";
  const table = `const ${h} = [${Array.from({ length: k }, () => `new ${w.builtin("Array")}(${k})`).join(", ")}]; `;
  return (
    `((${args}) => { ${takeSnapshots}const ${hvp} = ${w.hvp}; ${readLengths}${counting}${buffers}${table}` +
    `${rows.join(" ")} return ${h}; })`
  );
}
