import type { HigherOrderOperator } from "../analyze/requests.js";
import { tangentType } from "../ir/tangent-types.js";
import type { Type } from "../ir/types.js";
import { zerosLike } from "./aggregates.js";
import * as js from "./expression.js";

// `hessian`, `hessianVectorProduct` and `jacobian`, built from first-order wrappers (the text
// operatorWrapper makes, applied to the arguments):
// - a Hessian-vector product is the gradient, with respect to x, of x ↦ ⟨∇f(x), v⟩ computed in
//   forward mode — reverse over forward, which costs a small multiple of a gradient;
// - a Hessian is one such product per basis vector: one row each;
// - a Jacobian of m outputs and n inputs takes n JVPs or m pullbacks, whichever is fewer
//   (decided at run time, from the lengths), and is the gradient for a number-valued function.

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
  /** jacobian of an array-valued function: valueWithDifferential and pullback wrappers. */
  valueWithDifferential?: string;
  pullback?: string;
  result?: Type;
  /** Parameters f writes: each pass but one gets copies, so the call writes them once. */
  writes: number[];
  runtime: string;
}

export function higherOrderWrapper(w: HigherOrderWrapper): string {
  const taken = new Set([...w.params, ...w.captures, w.runtime]);
  const fresh = (base: string) => {
    let name = base;
    while (taken.has(name)) name = `${name}_`;
    taken.add(name);
    return name;
  };
  const params = w.params.map((p, i) => p || fresh(`arg${i}`));
  const args = params.join(", ");
  const x = params[w.wrt]!;
  // Copies of the written arguments (and captured arrays) as they were, taken before any pass
  // runs; `writes` indexes the arguments followed by the captures.
  const all = [...params, ...w.captures];
  const snapshots = new Map(w.writes.map((i) => [i, fresh(`${all[i]}0`)]));
  const takeSnapshots = [...snapshots]
    .map(([i, s]) => `const ${s} = ${w.runtime}.copyValue(${all[i]}); `)
    .join("");
  /** The arguments and captures for a pass that must not write the user's arrays. */
  const copies = all.map((p, i) =>
    snapshots.has(i) ? `${w.runtime}.copyValue(${snapshots.get(i)})` : p,
  );
  /** A basis vector of `type` shaped like `like`, with a 1 at `at`. */
  const basis = (type: Type, like: string, into: string, at: string) =>
    `const ${into} = ${zerosLike(tangentType(type), js.name(like)).text}; ${into}[${at}] = 1; `;
  switch (w.operator) {
    case "hessianVectorProduct": {
      const v = fresh("v");
      // A function that writes x has a JVP that writes x's tangent: v stays the user's.
      const direction = w.writes.length > 0 ? `${w.runtime}.copyTangent(${v})` : v;
      return `((${args}, ${v}) => (${w.hvp!})(${[...params, ...w.captures, direction].join(", ")}))`;
    }
    case "gradientAndHessianVectorProduct": {
      const v = fresh("v");
      const both = fresh("both");
      const direction = w.writes.length > 0 ? `${w.runtime}.copyTangent(${v})` : v;
      return (
        `((${args}, ${v}) => { const ${both} = (${w.hvp!})(${[...params, ...w.captures, direction].join(", ")}); ` +
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
          `((${args}) => { ${takeSnapshots}const ${hvp} = ${w.hvp!}; const ${n} = ${x}.length, ${rows} = new Array(${n}); ` +
          `for (let ${i} = 0; ${i} < ${n}; ${i}++) { ${basis(w.type, x, v, i)}${rows}[${i}] = ${row}; } return ${rows}; })`
        );
      }
      // One basis vector, its 1 moved along (an allocation costs more than a small HVP).
      const zeros = zerosLike(tangentType(w.type), js.name(x)).text;
      return (
        `((${args}) => { const ${hvp} = ${w.hvp!}; const ${n} = ${x}.length, ${rows} = new Array(${n}), ${v} = ${zeros}; ` +
        `for (let ${i} = 0; ${i} < ${n}; ${i}++) { ${v}[${i}] = 1; ${rows}[${i}] = ${row}; ${v}[${i}] = 0; } return ${rows}; })`
      );
    }
    case "jacobian": {
      if (w.gradient) return w.gradient;
      const vwd = fresh("vwd");
      if (w.type === "number")
        return `((${args}) => (${w.valueWithDifferential!})(${args}).differential(1))`;
      const [n, m, rows, i, j, e, column, pb] = [
        "n",
        "m",
        "rows",
        "i",
        "j",
        "e",
        "column",
        "pb",
      ].map(fresh) as [string, string, string, string, string, string, string, string];
      const value = `${vwd}.value`;
      // n JVPs (one column each) when there are no more inputs than outputs, else m pullbacks.
      const forward =
        `for (let ${i} = 0; ${i} < ${m}; ${i}++) ${rows}[${i}] = ${zerosLike(tangentType(w.type), js.name(x)).text}; ` +
        `for (let ${j} = 0; ${j} < ${n}; ${j}++) { ${basis(w.type, x, e, j)}const ${column} = ${vwd}.differential(${e}); ` +
        `for (let ${i} = 0; ${i} < ${m}; ${i}++) ${rows}[${i}][${j}] = ${column}[${i}]; }`;
      // The pullback wrapper reads captures by name: copies shadow them for its pass.
      const capturesCopied = w.captures.some((_, k) => snapshots.has(params.length + k));
      const pullback = capturesCopied
        ? `((${w.captures.join(", ")}) => (${w.pullback!})(${copies.slice(0, params.length).join(", ")}))(${copies.slice(params.length).join(", ")})`
        : `(${w.pullback!})(${copies.slice(0, params.length).join(", ")})`;
      const reverse =
        `const ${pb} = ${pullback}; ` +
        `for (let ${i} = 0; ${i} < ${m}; ${i}++) { ${basis(w.result!, value, e, i)}${rows}[${i}] = ${pb}(${e}); }`;
      return (
        `((${args}) => { ${takeSnapshots}const ${vwd} = (${w.valueWithDifferential!})(${args}); ` +
        `const ${n} = ${x}.length, ${m} = ${value}.length, ${rows} = new Array(${m}); ` +
        `if (${n} <= ${m}) { ${forward} } else { ${reverse} } return ${rows}; })`
      );
    }
  }
}
