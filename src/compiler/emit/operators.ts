import type { Operator } from "../analyze/requests.js";

// The code that replaces an operator call such as `derivative(f)`: a small wrapper around the
// derivative functions nabla generated, specialized to the operator and its `wrt` list, so no
// generic dispatch or argument spreading happens at run time.

export interface OperatorWrapper {
  operator: Operator;
  /** Parameter names of the differentiated function. */
  params: string[];
  /** Variables of the enclosing function a lambda reads, passed after its parameters. */
  captures: string[];
  /** Differentiated parameter indices in the user's `wrt` order. */
  wrt: number[];
  /**
   * Local names of the generated functions: `jvp` in forward mode; `fwd` and `bwd` in reverse
   * mode. They take tangents or return adjoints in ascending parameter order.
   */
  jvp?: string;
  fwd?: string;
  bwd?: string;
  /** The fused gradient: (args…, adjoint) → adjoints, then the value, through `out`. */
  grad?: string;
  runtime: string;
}

export function operatorWrapper(w: OperatorWrapper): string {
  const reserved = [w.jvp, w.fwd, w.bwd, w.grad, w.runtime].filter(Boolean);
  const params: string[] = [];
  w.params.forEach((p, i) => {
    let name = p && !reserved.includes(p) ? p : `arg${i}`;
    while (
      params.includes(name) ||
      reserved.includes(name) ||
      (name !== p && w.params.includes(name))
    )
      name = `${name}_`;
    params.push(name);
  });
  const args = params.join(", ");
  const call = (fn: string | undefined, rest: string[]) =>
    `${fn}(${[...params, ...w.captures, ...rest].join(", ")})`;
  const sorted = [...w.wrt].sort((a, b) => a - b);
  const out = (k: number) => `${w.runtime}.out.v${k}`;
  const taken = [...params, ...w.captures];
  const fresh = (base: string) => freshName(base, taken);

  switch (w.operator) {
    case "derivative":
      return `((${args}) => ${call(w.jvp, ["1"])})`;
    case "valueWithDerivative": {
      const tangent = fresh("tangent");
      return `((${args}) => { const ${tangent} = ${call(w.jvp, ["1"])}; return { value: ${out(1)}, derivative: ${tangent} }; })`;
    }
    case "differential": {
      const tangents = w.wrt.map((i) => fresh(`d${params[i]}`));
      const inOrder = sorted.map((i) => tangents[w.wrt.indexOf(i)]!);
      return `((${args}) => (${tangents.join(", ")}) => ${call(w.jvp, inOrder)})`;
    }
    case "valueWithDifferential": {
      const tangents = w.wrt.map((i) => fresh(`d${params[i]}`));
      const inOrder = sorted.map((i) => tangents[w.wrt.indexOf(i)]!);
      const value = freshName("value", [...taken, ...tangents]);
      return (
        `((${args}) => { ${call(
          w.jvp,
          sorted.map(() => "0"),
        )}; const ${value} = ${out(1)}; ` +
        `return { value: ${value}, differential: (${tangents.join(", ")}) => ${call(w.jvp, inOrder)} }; })`
      );
    }
  }

  // Reverse mode: the backward sweep returns the adjoint of the first differentiated parameter
  // and leaves the others in `out.v1`, `out.v2`…; the user gets them in `wrt` order.
  const seed = fresh("seed");
  const first = fresh("gradient");
  /** The adjoints a call returns (first) and leaves in `out`, gathered in `wrt` order. */
  const gather = (callText: string) => {
    if (w.wrt.length === 1) return { setup: "", result: callText };
    const pick = (i: number) => {
      const j = sorted.indexOf(i);
      return j === 0 ? first : out(j);
    };
    return { setup: `const ${first} = ${callText}; `, result: `[${w.wrt.map(pick).join(", ")}]` };
  };
  const backward = (seedText: string) => gather(`${w.bwd}(${seedText})`);
  const value = fresh("value");
  const mark = fresh("mark");
  const error = fresh("error");
  /** Runs `body`; if it throws, drops what it left on the tape (a RangeError in deep recursion). */
  const guarded = (body: string) =>
    `const ${mark} = ${w.runtime}.tape.top; try { ${body} } catch (${error}) { ${w.runtime}.tape.top = ${mark}; throw ${error}; }`;
  switch (w.operator) {
    case "gradient":
    case "valueWithGradient":
      if (!w.grad) {
        // Both sweeps, one after the other (functions with loops: see fusedGradientPays).
        const back = backward("1");
        const result =
          w.operator === "gradient" ? back.result : `{ value: ${value}, gradient: ${back.result} }`;
        return `((${args}) => { ${guarded(`const ${value} = ${call(w.fwd, [])}; ${back.setup}return ${result};`)} })`;
      }
      if (w.operator === "gradient") {
        const grad = gather(call(w.grad, ["1"]));
        return `((${args}) => { ${guarded(`${grad.setup}return ${grad.result};`)} })`;
      } else {
        // The fused gradient leaves the value after the adjoints, in out.v{number of adjoints}.
        const tangent = fresh("gradient_");
        const grad =
          w.wrt.length === 1
            ? { setup: `const ${tangent} = ${call(w.grad, ["1"])}; `, result: tangent }
            : gather(call(w.grad, ["1"]));
        return `((${args}) => { ${guarded(`${grad.setup}return { value: ${out(w.wrt.length)}, gradient: ${grad.result} };`)} })`;
      }
    case "pullback":
    case "valueWithPullback": {
      // A pullback may run later, more than once, or after other derivatives: it keeps its own
      // copy of what the forward sweep saved and puts it back on the tape each time it runs.
      const saved = fresh("saved");
      const back = backward(seed);
      const pullback = `(${seed}) => { ${guarded(`${w.runtime}.tapeRestore(${saved}); ${back.setup}return ${back.result};`)} }`;
      const start = `${value} = ${call(w.fwd, [])}; ${saved} = ${w.runtime}.tapeTake(${mark});`;
      const result =
        w.operator === "pullback" ? pullback : `{ value: ${value}, pullback: ${pullback} }`;
      return `((${args}) => { let ${value}, ${saved}; ${guarded(start)} return ${result}; })`;
    }
  }
}

/** `base`, or `base_`, `base__`… when that name is taken. */
function freshName(base: string, taken: string[]): string {
  let name = base;
  while (taken.includes(name)) name = `${name}_`;
  return name;
}
