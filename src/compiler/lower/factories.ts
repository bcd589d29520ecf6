import type { CallExpression, Expression, Node, Statement } from "oxc-parser";
import type { FunctionLike } from "../parse/module.js";
import { enterModule, Scope, type CodePlace, type LowerContext } from "./context.js";
import { factoryOf } from "./factory-of.js";
import { signatureOf } from "../types/signature.js";
import { isArray } from "../ir/type-system.js";
import { packRestArguments } from "./rest-arguments.js";
import { bindPattern, lowerParameterDefault } from "./destructure.js";
import { declareArgumentList, declareListName } from "./function-lists.js";

// `const rand = mulberry32(42)`, `const k = kernel(hyper)`, `const f = lotkaVolterra(params)`:
// a local name for the function a factory of the program returns. The factory's body runs
// where it is called, in a scope of its own that holds its parameters and locals; the
// function it returns is then a local function of that scope (see lowerClosureCall), so each
// call of it is inlined there, reads what the factory computed and may change what it keeps
// (`let a = seed; return () => { a += …; }`), as JavaScript's closure does.

/**
 * Declares `name` as the function `init`'s factory makes, if `init` calls one; returns whether
 * it did. The arguments are lowered where the call is, the factory's body in its own scope.
 */
export function declareMadeFunction(ctx: LowerContext, name: string, init: Node | null): boolean {
  const factory = factoryOf(ctx, init);
  if (!factory) return false;
  const scope = runFactoryBody(
    ctx,
    factory.fn,
    factory.setup,
    init as CallExpression,
    undefined,
    factory.scope,
  );
  if (!scope) return false;
  ctx.closures.set(ctx.declareFunctionName(name), { node: factory.made, scope });
  return true;
}

/**
 * Runs the factory `fn` called by `call` up to what it returns: its parameters bound to the
 * call's arguments and its `setup` statements lowered, in a scope of its own, which is
 * returned. Undefined when the call cannot be so inlined (a spread argument, a parameter
 * nabla cannot type), and nothing is lowered then.
 */
export function runFactoryBody(
  ctx: LowerContext,
  fn: FunctionLike,
  setup: Statement[],
  call: CallExpression,
  /** The factory's module, when it is another than the caller's (literal-factories.ts). */
  home: CodePlace = { module: ctx.module, types: ctx.types },
  /** A local factory's scope, whose names its code reads. */
  written?: Scope,
): Scope | undefined {
  if (call.arguments.some((a) => a.type === "SpreadElement")) return undefined;
  const signature = signatureOf(fn, home.types);
  if (signature.params.some((p) => p.unsupported)) return undefined;
  // Literals take the parameters' types (`makeController({ kp: 1, ki: 0, kd: 0 })`); trailing
  // arguments go into a rest parameter; an omitted one is undefined, for its default.
  const expected = (i: number) => {
    const p = signature.params[Math.min(i, signature.params.length - 1)];
    return p?.rest && p.type && isArray(p.type) ? p.type.element : p?.type;
  };
  // A function given to the factory (`gaussianSource(mulberry32(seed))`, an arrow, a local
  // function): the parameter names it, a local function of the factory's scope.
  const functions = call.arguments.map((a, i) =>
    signature.params[i]?.pattern || signature.params[i]?.rest
      ? undefined
      : localFunction(ctx, a, i),
  );
  // A function of the program or a Math function (`compose2(Math.sin, square)`): declared
  // here under a hidden name, as a list's element is, and the parameter made another name
  // for it.
  const named = call.arguments.map((a, i) =>
    functions[i] || signature.params[i]?.pattern || signature.params[i]?.rest
      ? undefined
      : declareArgumentList(ctx, [a], `${signature.params[i]?.name}#${madeCount++}`)?.[0],
  );
  // `compose(...fns: Fn[])` given functions: the rest parameter is a list of them, declared
  // here under hidden names (function-lists.ts), which the factory's code loops over.
  const restIndex = signature.params.findIndex((p) => p.rest);
  const restName = signature.params[restIndex]?.name;
  const list =
    restName === undefined || call.arguments.length <= restIndex
      ? undefined
      : declareArgumentList(ctx, call.arguments.slice(restIndex), `${restName}#${madeCount++}`);
  const lowered = call.arguments.map((a, i) =>
    functions[i] || named[i] !== undefined || (list && i >= restIndex)
      ? ctx.builder.constant(0)
      : ctx.lowerValue(a as Expression, expected(i)),
  );
  const args = list
    ? lowered.slice(0, restIndex)
    : packRestArguments(ctx, call, signature.params, lowered);
  const outer = ctx.scope;
  // The factory's code sees its own names and its module's (or a local factory's, those of
  // where it is written), not the caller's locals (`const scale = 100` where the factory reads
  // a module-level `scale`): its scope holds only the hidden names the call declared for the
  // functions it passes.
  const hidden = new Scope(written);
  for (const name of [...named, ...(list ?? [])]) {
    const slot = name === undefined ? undefined : outer.lookup(name);
    if (slot) hidden.names.set(name!, slot);
  }
  const scope = new Scope(hidden);
  const caller = { module: ctx.module, types: ctx.types };
  ctx.scope = scope;
  enterModule(ctx, home);
  try {
    signature.params.forEach((p, i) => {
      if (list && i === restIndex) return declareListName(ctx, p.name, list);
      const fn = functions[i];
      if (fn) {
        ctx.closures.set(ctx.declareFunctionName(p.name), fn);
        return;
      }
      const alias = named[i] === undefined ? undefined : outer.lookup(named[i]);
      if (alias) {
        const closure = ctx.closures.get(alias);
        const bound = ctx.bound.get(alias);
        if (closure) ctx.closures.set(ctx.declareFunctionName(p.name), closure);
        else if (bound) ctx.bound.set(ctx.declareFunctionName(p.name), bound);
        else ctx.scope.names.set(p.name, alias);
        return;
      }
      const value =
        args[i] ?? ctx.builder.emit("const", [], [p.type ?? "number"], {}, [], p.name).results[0]!;
      ctx.declare(p.name, "let", value.type, value);
    });
    for (const p of signature.params) {
      if (p.defaultValue) lowerParameterDefault(ctx, p.name, p.defaultValue);
      if (p.pattern) bindPattern(ctx, p.pattern, ctx.value(ctx.scope.lookup(p.name)!), p.name);
    }
    ctx.lowerStatements(setup);
  } finally {
    ctx.scope = outer;
    enterModule(ctx, caller);
  }
  return scope;
}

let madeCount = 0;

/** The local function an argument is: an arrow written there, a local function, or one a factory makes. */
function localFunction(
  ctx: LowerContext,
  arg: Node,
  index: number,
): { node: FunctionLike; scope: Scope } | undefined {
  if (arg.type === "ArrowFunctionExpression" || arg.type === "FunctionExpression")
    return { node: arg, scope: ctx.scope };
  if (arg.type === "Identifier") {
    const slot = ctx.scope.lookup(arg.name);
    return slot ? ctx.closures.get(slot) : undefined;
  }
  if (!factoryOf(ctx, arg)) return undefined;
  // A hidden name for the function the inner factory makes, declared where the call is.
  const hidden = `$made${madeCount++}_${index}`;
  if (!declareMadeFunction(ctx, hidden, arg)) return undefined;
  return ctx.closures.get(ctx.scope.lookup(hidden)!);
}
