import type { ForwardOperator } from "../analyze/requests.js";

// The code that replaces an operator call such as `derivative(f)`: a small wrapper around the
// derivative function nabla generated, specialized to the operator and its `wrt` list, so no
// generic dispatch or argument spreading happens at run time.

export interface OperatorWrapper {
  operator: ForwardOperator;
  /** Parameter names of the differentiated function. */
  params: string[];
  /** Variables of the enclosing function a lambda reads, passed after its parameters. */
  captures: string[];
  /** Differentiated parameter indices in the user's `wrt` order. */
  wrt: number[];
  /** Local name of the generated JVP, which takes tangents in ascending parameter order. */
  jvp: string;
  runtime: string;
}

export function operatorWrapper(w: OperatorWrapper): string {
  const params = w.params.map((p, i) => (p && p !== w.jvp && p !== w.runtime ? p : `arg${i}`));
  const tangentName = (i: number) => uniqueTangentName(params[i]!, params);
  const sorted = [...w.wrt].sort((a, b) => a - b);
  const args = params.join(", ");
  const jvpCall = (tangents: string[]) =>
    `${w.jvp}(${[...params, ...w.captures, ...tangents].join(", ")})`;
  const out = `${w.runtime}.out.v1`;
  switch (w.operator) {
    case "derivative":
      return `((${args}) => ${jvpCall(["1"])})`;
    case "valueWithDerivative": {
      const tangent = freshName("tangent", params);
      return `((${args}) => { const ${tangent} = ${jvpCall(["1"])}; return { value: ${out}, derivative: ${tangent} }; })`;
    }
    case "differential": {
      const tangents = w.wrt.map(tangentName);
      return `((${args}) => (${tangents.join(", ")}) => ${jvpCall(sorted.map(tangentName))})`;
    }
    case "valueWithDifferential": {
      const tangents = w.wrt.map(tangentName);
      const zeros = sorted.map(() => "0");
      const value = freshName("value", [...params, ...tangents]);
      return (
        `((${args}) => { ${jvpCall(zeros)}; const ${value} = ${out}; ` +
        `return { value: ${value}, differential: (${tangents.join(", ")}) => ${jvpCall(sorted.map(tangentName))} }; })`
      );
    }
  }
}

function uniqueTangentName(param: string, taken: string[]): string {
  return freshName(`d${param}`, taken);
}

/** `base`, or `base_`, `base__`… when that name is taken by a parameter. */
function freshName(base: string, taken: string[]): string {
  let name = base;
  while (taken.includes(name)) name = `${name}_`;
  return name;
}
