import type { HigherOrderOperator, Operator } from "../../../api/operators.js";

// The code that replaces an operator call such as `derivative(f)`: a small wrapper around the
// derivative functions nabla generated, specialized to the operator and its `wrt` list, so no
// generic dispatch or argument spreading happens at run time.

export interface OperatorWrapper {
  operator: Exclude<Operator, HigherOrderOperator>;
  /** Parameter names of the differentiated function. */
  params: string[];
  /** Variables of the enclosing function a lambda reads, passed after its parameters. */
  captures: string[];
  /** Differentiated parameter indices in the user's `wrt` order. */
  wrt: number[];
  /**
   * Per parameter that is an array or object: builds the JavaScript of a fresh zero tangent
   * shaped like the argument named by its input (its shadow). Undefined for numbers.
   */
  zeros: (((arg: string) => string) | undefined)[];
  /** Per parameter: its gradient drops the fields the argument lacks (see program-module.ts). */
  prunes?: boolean[];
  /**
   * Per argument, then per capture: where it may hold plain arrays, whose holes (elements never
   * written) would leave the derivative code reading undefined, as a shape's JSON
   * (ir/hole-shapes.ts), or undefined for none. Unknown: every array and object parameter and
   * every capture, looked through entirely.
   */
  holds?: (string | undefined)[];
  /** Array and object parameters the function may write (checked for aliasing at run time). */
  writes: number[];
  /** Parameters the function stores arrays or objects into (`o.v = [1, 2]`). */
  replaces: number[];
  /** Parameters the function may lengthen or shorten (`xs.push(v)`). */
  grows?: number[];
  /**
   * Local names of the generated functions: `jvp` in forward mode; `fwd` and `bwd` in reverse
   * mode. They take tangents or return adjoints in ascending parameter order.
   */
  jvp?: string;
  fwd?: string;
  bwd?: string;
  /**
   * What `bwd` takes after its seed: positions among the arguments and captures, then (from
   * their count on) the shadows of the differentiated parameters in ascending order.
   */
  bwdInputs?: readonly number[];
  /** The fused gradient: (args…, shadows…, adjoint) → adjoints, then the value, through `out`. */
  grad?: string;
  /**
   * The pullback without the tape: (args…) → `back(adjoint, shadows…)`, then the value and the
   * result's shadow through `out` (see vjpFunction).
   */
  vjp?: string;
  /**
   * A pullback in WebAssembly (emit/js/wasm-requests.ts): `wasmPullback()` is its two halves,
   * `take(args…, captures…, shadows…)` → `{ value }` and `run(taken, args…, captures…,
   * shadows…, seed)` → the adjoints as the backward sweep returns them.
   */
  wasmPullback?: string;
  /** The closure `vjp` returns needs the result's shadow filled first (in `out.v2`). */
  vjpFillsShadow?: boolean;
  /**
   * The shape of every value of the result's type, when the type fixes it (a tuple or object
   * of numbers), as JavaScript text: what a seed the closure `vjp` returns reads itself
   * (without `vjpFillsShadow`) is checked against.
   */
  fixedResultShape?: string;
  /**
   * Whether a pullback's backward sweep may put replaced shadows back, so that each run keeps
   * a journal of them (runtime/store-journal.ts); absent: it may (store-journals.ts).
   */
  journals?: boolean;
  /**
   * The function returns an array or object: its forward sweep hands back the result's shadow
   * (in `out.v1`), which a pullback fills with the adjoint it is given before the backward sweep.
   */
  aggregateResult?: boolean;
  /**
   * The result may lack fields its type has (optional ones, a union's other variants): its
   * tangent is given with the value's keys only, as a gradient is.
   */
  prunesResult?: boolean;
  /**
   * `hasAux: true`: the function's forward sweep leaves its aux in the runtime (see
   * lower/aux.ts), which the result carries as `aux`.
   */
  aux?: boolean;
  runtime: string;
}

export function operatorWrapper(w: OperatorWrapper): string {
  const reserved = [w.jvp, w.fwd, w.bwd, w.grad, w.vjp, w.runtime].filter(
    (n): n is string => n !== undefined,
  );
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
  // The wrapper's own locals hide neither what it is given nor the functions it calls.
  const taken = [...params, ...w.captures, ...reserved];
  const fresh = (base: string) => {
    const name = freshName(base, taken);
    taken.push(name);
    return name;
  };
  const isAggregate = (i: number) => w.zeros[i] !== undefined;
  /** The arguments and then what a lambda captures: `writes` indexes this list. */
  const allArgs = [...params, ...w.captures];
  /** Throws when an array the function writes is reachable twice from the arguments. */
  const aliasChecks =
    w.writes.length === 0
      ? ""
      : `${w.runtime}.checkAliasing(${JSON.stringify(w.operator)}, [${allArgs.join(", ")}], [${allArgs
          .map((_, i) => w.writes.includes(i))
          .join(", ")}]); `;

  // Arrays with holes (elements never written) among the arrays and objects given: the
  // derivative code would read undefined where JavaScript's array methods skip (runtime/holes.ts).
  const holeChecks = allArgs
    .map((arg, i) => {
      const shape = w.holds ? w.holds[i] : i >= params.length || isAggregate(i) ? "0" : undefined;
      if (shape === undefined) return "";
      return `${w.runtime}.refuseArgumentHoles(${arg}, ${JSON.stringify(arg)}, ${JSON.stringify(shape)}); `;
    })
    .join("");
  const checked = holeChecks + aliasChecks;

  switch (w.operator) {
    case "derivative": {
      const result = w.prunesResult
        ? `${w.runtime}.withoutAbsent(${call(w.jvp, ["1"])}, ${out(1)})`
        : call(w.jvp, ["1"]);
      return holeChecks
        ? `((${args}) => { ${holeChecks}return ${result}; })`
        : `((${args}) => ${result})`;
    }
    case "valueWithDerivative": {
      const tangent = fresh("tangent");
      const given = w.prunesResult ? `${w.runtime}.withoutAbsent(${tangent}, ${out(1)})` : tangent;
      return `((${args}) => { ${holeChecks}const ${tangent} = ${call(w.jvp, ["1"])}; return { value: ${out(1)}, derivative: ${given} }; })`;
    }
    case "differential":
    case "valueWithDifferential": {
      const tangents = w.wrt.map((i) => fresh(`d${params[i]}`));
      // The JVP writes array tangents where the function writes arrays: give it copies.
      const inOrder = sorted.map((i) => {
        const t = tangents[w.wrt.indexOf(i)]!;
        return isAggregate(i) ? `${w.runtime}.copyTangent(${t})` : t;
      });
      // A function that changes its arguments changes them once, as one call of it would; the
      // differential is the one at the point it was taken, so later runs use copies of them as
      // they were.
      const snapshots = new Map(w.writes.map((i) => [i, fresh(`${allArgs[i]}0`)]));
      // The arrays and objects it is taken at and only reads (differentiated or not, and what
      // a lambda captures) are copied too: the caller may change them afterwards (an optimizer
      // moving its parameters in place), and the differential is still the one at the point it
      // was taken. One copy of them all keeps what they share shared.
      const taken = new Map(
        allArgs
          .map((_, i) => i)
          .filter((i) => (i >= params.length || isAggregate(i)) && !w.writes.includes(i))
          .map((i) => [i, fresh(`${allArgs[i]}Taken`)]),
      );
      const fresh_ = fresh("fresh");
      const copyTaken =
        taken.size === 0
          ? ""
          : `const [${[...taken.values()].join(", ")}] = ${w.runtime}.copyValues([${[...taken.keys()].map((i) => allArgs[i]).join(", ")}]); `;
      const takeSnapshots =
        [...snapshots]
          .map(([i, s]) => `const ${s} = ${w.runtime}.copyValue(${allArgs[i]}); `)
          .join("") + copyTaken;
      const liveArgs = allArgs.map((p, i) => taken.get(i) ?? p);
      const primalArgs = liveArgs.map((p, i) =>
        snapshots.has(i) ? `${w.runtime}.copyValue(${snapshots.get(i)})` : p,
      );
      // The result's tangent with the keys of the value the JVP left in `out.v1` (prunesResult).
      const kept = (tangent: string) =>
        w.prunesResult ? `${w.runtime}.withoutAbsent(${tangent}, ${out(1)})` : tangent;
      const jvpOf = (primals: string[], rest: string[]) =>
        kept(`${w.jvp}(${[...primals, ...rest].join(", ")})`);
      const differential = (originalFirst: boolean) =>
        snapshots.size === 0
          ? `(${tangents.join(", ")}) => ${jvpOf(liveArgs, inOrder)}`
          : originalFirst
            ? `(${tangents.join(", ")}) => { if (${fresh_}) { ${fresh_} = false; return ${jvpOf(liveArgs, inOrder)}; } return ${jvpOf(primalArgs, inOrder)}; }`
            : `(${tangents.join(", ")}) => ${jvpOf(primalArgs, inOrder)}`;
      if (w.operator === "differential") {
        const flag = snapshots.size > 0 ? `let ${fresh_} = true; ` : "";
        return `((${args}) => { ${checked}${takeSnapshots}${flag}return ${differential(true)}; })`;
      }
      const value = fresh("value");
      const zeros = sorted.map((i) => (isAggregate(i) ? w.zeros[i]!(params[i]!) : "0"));
      return (
        `((${args}) => { ${checked}${takeSnapshots}${call(w.jvp, zeros)}; const ${value} = ${out(1)}; ` +
        `return { value: ${value}, differential: ${differential(false)} }; })`
      );
    }
  }

  // Reverse mode: array and object arguments get shadows, which the backward sweep fills with
  // their adjoints; the adjoints of number arguments come back from the backward sweep (the
  // first returned, the others in `out.v1`, `out.v2`…). The user gets them in `wrt` order.
  const shadows = new Map(sorted.filter(isAggregate).map((i) => [i, fresh(`d${params[i]}`)]));
  // A function that replaces arrays inside an argument replaces them in its shadow too: the
  // shadow's structure is put back after the backward sweep (the adjoints are in the originals).
  const structures = new Map(
    [...shadows]
      .filter(([i]) => w.replaces.includes(i))
      .map(([, s]) => [s, fresh(`${s}Structure`)]),
  );
  // A function that lengthens an array argument (`xs.push(v)`) lengthens its shadow too: the
  // adjoints of the elements it was given are the first ones, and the gradient has only those.
  const lengths = new Map(
    [...shadows]
      .filter(([i]) => w.grows?.includes(i))
      .map(([i]) => [i, fresh(`${params[i]}Length`)]),
  );
  const noteLengths = [...lengths]
    .map(([i, n]) => `const ${n} = ${w.runtime}.arrayLength(${params[i]}); `)
    .join("");
  const makeShadows =
    noteLengths +
    [...shadows].map(([i, s]) => `const ${s} = ${w.zeros[i]!(params[i]!)}; `).join("") +
    [...structures].map(([s, k]) => `const ${k} = ${w.runtime}.saveStructure(${s}); `).join("");
  const restore = [...structures.values()]
    .map((k) => `${w.runtime}.restoreStructure(${k}); `)
    .join("");
  const shadowArgs = [...shadows.values()];
  const numberWrt = sorted.filter((i) => !isAggregate(i));
  const seed = fresh("seed");
  const first = fresh("gradient");
  const value = fresh("value");
  const mark = fresh("mark");
  const objectMark = fresh("objectMark");
  const error = fresh("error");
  /** The adjoints, in `wrt` order, given how the first number adjoint is named. */
  const gather = (firstNumber: string, copy: boolean) => {
    const pick = (i: number) => {
      if (isAggregate(i)) {
        const s = shadows.get(i)!;
        const copied = copy ? `${w.runtime}.copyTangent(${s})` : s;
        const length = lengths.get(i);
        const given = length ? `${w.runtime}.trimmedTo(${copied}, ${length})` : copied;
        return w.prunes?.[i] ? `${w.runtime}.withoutAbsent(${given}, ${params[i]})` : given;
      }
      const j = numberWrt.indexOf(i);
      return j === 0 ? firstNumber : out(j);
    };
    return w.wrt.length === 1 ? pick(w.wrt[0]!) : `[${w.wrt.map(pick).join(", ")}]`;
  };
  /** Runs `body`; if it throws, drops what it left on the tape (a RangeError in deep recursion). */
  const guarded = (body: string) =>
    `const ${mark} = ${w.runtime}.tape.top, ${objectMark} = ${w.runtime}.tape.objects.length; ` +
    `try { ${body} } catch (${error}) { ${w.runtime}.tapeReset(${mark}, ${objectMark}); throw ${error}; }`;
  const inputs = (w.bwdInputs ?? []).map((k) => {
    if (k < allArgs.length) return allArgs[k]!;
    const shadow = shadows.get(sorted[k - allArgs.length]!);
    if (!shadow) throw new Error(`internal: no shadow for input ${k} of ${w.bwd}`);
    return shadow;
  });
  const backward = (seedText: string) => {
    const args = [...(seedText ? [seedText] : []), ...inputs].join(", ");
    return (
      (numberWrt.length > 0 ? `const ${first} = ${w.bwd}(${args}); ` : `${w.bwd}(${args}); `) +
      restore
    );
  };

  if ((w.operator === "pullback" || w.operator === "valueWithPullback") && w.wasmPullback) {
    // The forward sweep runs in wasm when the pullback is taken, the backward sweep at each
    // seed on the memory it left (runtime/wasm-pullback.ts), at the arguments as they were when
    // taken: the arrays and objects among them are copied once, here, since each run copies
    // them into wasm memory again and the caller may change them in between (the function
    // only reads them: what they share need not stay shared).
    const copied = allArgs.map((_, i) => i).filter((i) => i >= params.length || isAggregate(i));
    const taken = new Map(copied.map((i) => [i, fresh(`${allArgs[i]}Taken`)]));
    const copyTaken =
      taken.size === 0
        ? ""
        : `const [${[...taken.values()].join(", ")}] = ${w.runtime}.copyReadOnly([${copied.map((i) => allArgs[i]).join(", ")}]); `;
    const at = allArgs.map((p, i) => taken.get(i) ?? p);
    const zeroShadows = [...shadows]
      .map(([i, s]) => `const ${s} = ${w.zeros[i]!(at[i]!)}; `)
      .join("");
    const halves = fresh("halves");
    const forward = fresh("forward");
    const take = `const ${halves} = ${w.wasmPullback}(); const ${forward} = ${halves}.take(${[...at, ...shadowArgs].join(", ")}); `;
    const run = `${numberWrt.length > 0 ? `const ${first} = ` : ""}${halves}.run(${[forward, ...at, ...shadowArgs, seed].join(", ")}); `;
    const pullback = `(${seed}) => { ${zeroShadows}${guarded(`${run}return ${gather(first, false)};`)} }`;
    const result =
      w.operator === "pullback" ? pullback : `{ value: ${forward}.value, pullback: ${pullback} }`;
    return `((${args}) => { ${checked}${copyTaken}${makeShadows}${take}return ${result}; })`;
  }

  if (
    (w.operator === "pullback" || w.operator === "valueWithPullback") &&
    w.vjp &&
    structures.size === 0
  ) {
    // The pullback is a closure over the forward sweep's values (nothing on the tape to keep
    // or put back) that returns the adjoints in ascending order, in fresh shadows.
    const back = fresh("back");
    const given = fresh("given");
    let pullback = back;
    const userOrder = w.wrt.length > 1 && w.wrt.some((i, k) => i !== sorted[k]);
    const resultShadow = fresh("resultShadow");
    const seedShape = fresh("seedShape");
    // A seed of another shape than the result's is refused: the closure would read past its
    // end (NaN) or leave what it has more unread.
    const checksSeed = !w.vjpFillsShadow && w.fixedResultShape !== undefined;
    if (userOrder || w.vjpFillsShadow || checksSeed) {
      // Reorder the adjoints; fill the result's shadow when the closure cannot read the seed.
      const shadowed = w.vjpFillsShadow
        ? `${w.runtime}.seedTangent(${resultShadow}, ${seed}, ${seedShape}); `
        : "";
      // A seed of fixed shape is checked, and given zeros for optional fields it leaves out.
      const got = w.vjpFillsShadow
        ? `${back}()`
        : checksSeed
          ? `${back}(${w.runtime}.seedOfShape(${seed}, ${w.fixedResultShape}))`
          : `${back}(${seed})`;
      const reordered = userOrder
        ? `const ${given} = ${got}; return [${w.wrt.map((i) => `${given}[${sorted.indexOf(i)}]`).join(", ")}];`
        : `return ${got};`;
      pullback = `(${seed}) => { ${shadowed}${reordered} }`;
    }
    // The adjoints with only the keys their values have (a union's other variants' fields out),
    // as gradient gives them.
    const pruned = w.wrt.flatMap((i, k) => (isAggregate(i) && w.prunes?.[i] ? [k] : []));
    if (pruned.length > 0) {
      const adjoints = fresh("adjoints");
      const prune = (k: number, at: string) =>
        `${w.runtime}.withoutAbsent(${at}, ${params[w.wrt[k]!]})`;
      const result =
        w.wrt.length === 1
          ? prune(0, adjoints)
          : `(${pruned.map((k) => prune(k, `${adjoints}[${k}]`)).join(", ")}, ${adjoints})`;
      pullback = `(${seed}) => { const ${adjoints} = (${pullback})(${seed}); return ${result}; }`;
    }
    // Each run redoes the shadow stores the last run's backward sweep put back.
    const journal = fresh("journal");
    const journalMark = fresh("journalMark");
    if (w.journals !== false)
      pullback =
        `(${seed}) => { const ${journalMark} = ${w.runtime}.beginReplay(${journal}); ` +
        `try { return (${pullback})(${seed}); } finally { ${w.runtime}.endReplay(${journal}, ${journalMark}); } }`;
    // The vjp form shortens no shadow (see vjpPays): the result's is as long as the result.
    const keepShadow = w.vjpFillsShadow
      ? `const ${resultShadow} = ${out(2)}; const ${seedShape} = ${w.runtime}.resultShape(${resultShadow}); `
      : "";
    const withValue = w.operator === "valueWithPullback" ? "true" : "false";
    const keepJournal =
      w.journals !== false ? `const ${journal} = ${w.runtime}.storeJournal(); ` : "";
    const start = `const ${back} = ${call(w.vjp, [withValue])}; ${keepShadow}${keepJournal}`;
    const result =
      w.operator === "pullback" ? pullback : `{ value: ${out(1)}, pullback: ${pullback} }`;
    return `((${args}) => { ${checked}${noteLengths}${start}return ${result}; })`;
  }

  switch (w.operator) {
    case "gradient":
    case "valueWithGradient": {
      // The aux the forward sweep left, taken once both sweeps are done (they run no other
      // forward sweep of this function).
      const aux = w.aux ? `, aux: ${w.runtime}.takeAux()` : "";
      const result = (v: string) =>
        w.operator === "gradient"
          ? w.aux
            ? `{ gradient: ${gather(first, false)}${aux} }`
            : gather(first, false)
          : `{ value: ${v}, gradient: ${gather(first, false)}${aux} }`;
      if (!w.grad) {
        // Both sweeps, one after the other (functions with loops: see choices.ts).
        const body = `const ${value} = ${call(w.fwd, shadowArgs)}; ${backward("1")}return ${result(value)};`;
        return `((${args}) => { ${checked}${makeShadows}${guarded(body)} })`;
      }
      // The fused gradient returns the number adjoints, then the value (first or in `out`).
      const valueText = numberWrt.length > 0 ? out(numberWrt.length) : first;
      const body = `const ${first} = ${call(w.grad, [...shadowArgs, "1"])}; ${restore}return ${result(valueText)};`;
      return `((${args}) => { ${checked}${makeShadows}${guarded(body)} })`;
    }
    case "pullback":
    case "valueWithPullback": {
      // A pullback may run later, more than once, or after other derivatives: it keeps its own
      // copy of what the forward sweep saved and puts it back on the tape each time it runs;
      // the argument shadows start from zero each time and the caller gets copies of them.
      const saved = fresh("saved");
      const clear = shadowArgs.map((s) => `${w.runtime}.clearTangent(${s}); `).join("");
      const resultShadow = fresh("resultShadow");
      // The result's shape when it was made: its shadow may be longer (see seedTangent).
      const seedShape = fresh("seedShape");
      const seedResult = w.aggregateResult
        ? `${w.runtime}.seedTangent(${resultShadow}, ${seed}, ${seedShape}); `
        : "";
      // Each run redoes the shadow stores the last run's backward sweep put back.
      const journal = fresh("journal");
      const journalMark = fresh("journalMark");
      const journals = w.journals !== false;
      const begin = journals ? `const ${journalMark} = ${w.runtime}.beginReplay(${journal}); ` : "";
      const end = journals ? `${w.runtime}.endReplay(${journal}, ${journalMark}); ` : "";
      const pullback = `(${seed}) => { ${clear}${guarded(`${w.runtime}.tapeRestore(${saved}); ${begin}try { ${seedResult}${backward(w.aggregateResult ? "" : seed)}return ${gather(first, true)}; } finally { ${end}${w.runtime}.tape.replays--; }`)} }`;
      const keepShadow = w.aggregateResult
        ? `${resultShadow} = ${out(1)}; ${seedShape} = ${w.runtime}.resultShape(${value}); `
        : "";
      const start = `${value} = ${call(w.fwd, shadowArgs)}; ${keepShadow}${saved} = ${w.runtime}.tapeTake(${mark}, ${objectMark});`;
      const result =
        w.operator === "pullback" ? pullback : `{ value: ${value}, pullback: ${pullback} }`;
      const declared = `${w.aggregateResult ? `, ${resultShadow}, ${seedShape}` : ""}${journals ? `, ${journal} = ${w.runtime}.storeJournal()` : ""}`;
      return `((${args}) => { ${checked}${makeShadows}let ${value}, ${saved}${declared}; ${guarded(start)} return ${result}; })`;
    }
  }
}

/** `base`, or `base_`, `base__`… when that name is taken. */
function freshName(base: string, taken: string[]): string {
  let name = base;
  while (taken.includes(name) || RESERVED_WORDS.has(name)) name = `${name}_`;
  return name;
}

/** Names a wrapper may not use for a variable (`do` is the tangent of a parameter `o`). */
const RESERVED_WORDS = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof let new null return static super switch " +
    "this throw true try typeof var void while with yield await implements interface package " +
    "private protected public arguments eval"
  ).split(" "),
);
