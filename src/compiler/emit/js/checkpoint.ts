import { isAggregate, isArray, isObject, isRecursiveType } from "../../ir/type-system.js";
import type { CheckpointSweep, FunctionKey, IRFunction, Type } from "../../ir/types.js";
import type { EmittedLine } from "./function.js";

// The reverse-mode sweeps of a checkpointed call (`checkpoint(f)(…)` or f tagged
// `@checkpoint`), with the calling conventions of f's own sweeps:
// - the forward sweep saves the arguments (copies of arrays and objects, since f or later code
//   may change them) and the shadows it was given, then runs the primal f: nothing of f's
//   inside is taped;
// - the backward sweep takes them back, reruns f's forward sweep on copies of them — which tapes
//   f's residuals only for as long as f's backward sweep, called right after, needs them.
// The tape's peak is then what the rest of the program saves plus one call of f, instead of
// every call of f.

export function emitCheckpointSweep(
  fn: IRFunction,
  sweep: CheckpointSweep,
  nameOf: (key: FunctionKey) => string,
  runtime: string,
  inputsOf: (bwd: FunctionKey) => readonly number[] = () => [],
): EmittedLine[] {
  const lines: EmittedLine[] = [];
  const line = (text: string, indent = 1) => lines.push({ text, indent, loc: fn.loc });
  // Locals hide none of the functions the sweep calls (a function of the program may be
  // named `$a0`).
  const calls = sweep.kind === "fwd" ? [sweep.primal] : [sweep.fwd, sweep.bwd];
  const called = new Set(calls.map((key) => nameOf(key).split(".")[0]!));
  const local = (base: string) => {
    let name = base;
    while (called.has(name)) name = `${name}_`;
    return name;
  };
  const args = sweep.params.map((_, i) => local(`$a${i}`));
  const shadowOf = new Map(
    sweep.wrt.filter((i) => isAggregate(sweep.params[i]!)).map((i) => [i, local(`$s${i}`)]),
  );
  const shadows = [...shadowOf.values()];
  const objects = `${runtime}.tape.objects`;
  if (sweep.kind === "fwd") {
    line(`export function ${fn.name}(${[...args, ...shadows].join(", ")}) {`, 0);
    // One copy of all arguments together, so arrays they share stay shared.
    line(
      `${objects}.push(${[`${runtime}.copyValues([${args.join(", ")}])`, ...shadows].join(", ")});`,
    );
    const primal = nameOf(sweep.primal);
    const method = primal.includes(".") ? primal.slice(primal.lastIndexOf(".") + 1) : undefined;
    const call = method
      ? `${args[0]}.${method}(${args.slice(1).join(", ")})`
      : `${primal}(${args.join(", ")})`;
    // f may write its plain arrays of numbers past their end (`ys[i] = …`): their shadows
    // grow as f's forward sweep would have grown them.
    const growing = sweep.wrt.filter((i) => holdsPlainNumbers(sweep.params[i]!));
    const returns = sweep.result !== undefined && sweep.result !== "void";
    if (growing.length === 0) line(returns ? `return ${call};` : `${call};`);
    else {
      line(returns ? `const $value = ${call};` : `${call};`);
      for (const i of growing) line(`${runtime}.growTangent(${args[i]}, $s${i});`);
      if (returns) line("return $value;");
    }
    line("}", 0);
  } else {
    const [seedName, objectsName, savedName, argsName] = [
      "$seed",
      "$objects",
      "$saved",
      "$args",
    ].map(local) as [string, string, string, string];
    line(`export function ${fn.name}(${seedName}) {`, 0);
    line(`const ${objectsName} = ${objects};`);
    for (const name of [...shadows].reverse()) line(`const ${name} = ${objectsName}.pop();`);
    // The rerun writes what f writes: under a pullback, which may replay this sweep, it gets
    // a copy.
    line(`const ${savedName} = ${objectsName}.pop();`);
    line(
      `const ${argsName} = ${runtime}.tape.replays > 0 ? ${runtime}.copyValues(${savedName}) : ${savedName};`,
    );
    const rerun = args.map((_, i) => `${argsName}[${i}]`);
    line(`${nameOf(sweep.fwd)}(${[...rerun, ...shadows].join(", ")});`);
    // f's backward sweep takes the arguments and shadows it reads after its seed.
    const inputs = inputsOf(sweep.bwd).map((k) =>
      k < args.length ? rerun[k]! : shadowOf.get(sweep.wrt[k - args.length]!)!,
    );
    const seed = sweep.result === "number" ? [seedName] : [];
    line(`return ${nameOf(sweep.bwd)}(${[...seed, ...inputs].join(", ")});`);
    line("}", 0);
  }
  return lines;
}

/** Whether a value of this type may hold a plain array of numbers (one that can grow). */
function holdsPlainNumbers(type: Type): boolean {
  // A tree may hold plain arrays at any depth.
  if (isRecursiveType(type)) return true;
  if (isArray(type))
    return type.elements
      ? type.elements.some(holdsPlainNumbers)
      : type.storage === "Array" && (type.element === "number" || holdsPlainNumbers(type.element));
  return isObject(type) && type.fields.some((f) => holdsPlainNumbers(f.type));
}
