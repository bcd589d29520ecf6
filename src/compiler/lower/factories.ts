import type { CallExpression, Expression, FunctionBody, Node, Statement } from "oxc-parser";
import { walk, type FunctionLike } from "../parse/module.js";
import { Scope, type LowerContext } from "./context.js";
import { resolveCallee } from "./user-call.js";
import { signatureOf } from "../types/signature.js";
import { isArray } from "../ir/type-system.js";
import { packRestArguments } from "./rest-arguments.js";
import { bindPattern, lowerParameterDefault } from "./destructure.js";

// `const rand = mulberry32(42)`, `const k = kernel(hyper)`, `const f = lotkaVolterra(params)`:
// a local name for the function a factory of the program returns. The factory's body runs
// where it is called, in a scope of its own that holds its parameters and locals; the
// function it returns is then a local function of that scope (see lowerClosureCall), so each
// call of it is inlined there, reads what the factory computed and may change what it keeps
// (`let a = seed; return () => { a += …; }`), as JavaScript's closure does.

/** The factory a declaration's initializer calls, and the function its body returns. */
interface Factory {
  fn: FunctionLike;
  /** Its statements before the `return` of the function it makes. */
  setup: Statement[];
  made: FunctionLike;
}

const NESTED_FUNCTIONS = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
]);

function isFunction(node: Node | null | undefined): node is FunctionLike {
  return node?.type === "ArrowFunctionExpression" || node?.type === "FunctionExpression";
}

/**
 * What `init` makes, if it calls a function of this module whose last statement returns a
 * function written there (and that returns nowhere else), or an arrow whose body is one.
 */
function factoryOf(ctx: LowerContext, init: Node | null | undefined): Factory | undefined {
  if (init?.type !== "CallExpression" || init.callee.type !== "Identifier") return undefined;
  if (ctx.scope.lookup(init.callee.name)) return undefined;
  const symbol = resolveCallee(ctx, init.callee.name);
  if (!symbol || symbol.module !== ctx.module || symbol.node.async || symbol.node.generator)
    return undefined;
  const fn = symbol.node;
  if (fn.type === "ArrowFunctionExpression" && fn.expression) {
    const body = fn.body as Node;
    return isFunction(body) ? { fn, setup: [], made: body } : undefined;
  }
  const statements = (fn.body as FunctionBody | null)?.body ?? [];
  const last = statements[statements.length - 1];
  if (last?.type !== "ReturnStatement" || !isFunction(last.argument)) return undefined;
  const setup = statements.slice(0, -1);
  let returnsElsewhere = false;
  for (const s of setup) {
    walk(s, (n) => {
      if (n.type === "ReturnStatement") returnsElsewhere = true;
      return !NESTED_FUNCTIONS.has(n.type);
    });
  }
  return returnsElsewhere ? undefined : { fn, setup, made: last.argument };
}

/**
 * Declares `name` as the function `init`'s factory makes, if `init` calls one; returns whether
 * it did. The arguments are lowered where the call is, the factory's body in its own scope.
 */
/** Whether `node` is a call of a factory: a function of the program returning a function it writes. */
export function isFactoryCall(ctx: LowerContext, node: Node | null | undefined): boolean {
  return factoryOf(ctx, node) !== undefined;
}

export function declareMadeFunction(ctx: LowerContext, name: string, init: Node | null): boolean {
  const factory = factoryOf(ctx, init);
  if (!factory) return false;
  const call = init as CallExpression;
  if (call.arguments.some((a) => a.type === "SpreadElement")) return false;
  const signature = signatureOf(factory.fn, ctx.types);
  if (signature.params.some((p) => p.unsupported)) return false;
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
  const lowered = call.arguments.map((a, i) =>
    functions[i] ? ctx.builder.constant(0) : ctx.lowerValue(a as Expression, expected(i)),
  );
  const args = packRestArguments(ctx, call, signature.params, lowered);
  const outer = ctx.scope;
  const scope = new Scope(outer);
  ctx.scope = scope;
  try {
    signature.params.forEach((p, i) => {
      const fn = functions[i];
      if (fn) {
        ctx.closures.set(ctx.declareFunctionName(p.name), fn);
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
    ctx.lowerStatements(factory.setup);
  } finally {
    ctx.scope = outer;
  }
  ctx.closures.set(ctx.declareFunctionName(name), { node: factory.made, scope });
  return true;
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
