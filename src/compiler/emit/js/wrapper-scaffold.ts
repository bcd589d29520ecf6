// What every higher-order operator wrapper starts with (higher-order.ts, several-jacobian.ts,
// several-hessian.ts, matrix-jacobian.ts): names of its own that hide neither the function's
// parameters nor its captures nor the runtime, and, for a function that writes its arguments
// (or captures), copies of them as they were, so that running it several times writes them
// once: every pass but the last runs on copies.

export interface WrapperScaffold {
  /** A local name not taken yet (`base`, `base_`…). */
  fresh: (base: string) => string;
  /** The parameters, unnamed ones (destructured) named `arg<i>`. */
  params: string[];
  /** The parameters, then what the function captures: `writes` indexes this list. */
  all: string[];
  /** Per written argument or capture: the name of its copy as it was. */
  snapshots: Map<number, string>;
  /** The statements taking those copies, before any pass runs. */
  takeSnapshots: string;
  /** The arguments and captures for a pass that must not write the user's: fresh copies. */
  copies: string[];
}

export function wrapperScaffold(w: {
  params: string[];
  captures: string[];
  writes: number[];
  runtime: string;
}): WrapperScaffold {
  const taken = new Set([...w.params, ...w.captures, w.runtime]);
  const fresh = (base: string) => {
    let name = base;
    while (taken.has(name)) name = `${name}_`;
    taken.add(name);
    return name;
  };
  const params = w.params.map((p, i) => p || fresh(`arg${i}`));
  const all = [...params, ...w.captures];
  const snapshots = new Map(w.writes.map((i) => [i, fresh(`${all[i]}0`)]));
  const takeSnapshots = [...snapshots]
    .map(([i, s]) => `const ${s} = ${w.runtime}.copyValue(${all[i]}); `)
    .join("");
  const copies = all.map((p, i) =>
    snapshots.has(i) ? `${w.runtime}.copyValue(${snapshots.get(i)})` : p,
  );
  return { fresh, params, all, snapshots, takeSnapshots, copies };
}
