import type { FunctionBody, Node, Statement } from "oxc-parser";
import { walk, type FunctionLike } from "../parse/module.js";
import type { LowerContext, Scope } from "./context.js";
import { resolveCallee } from "./user-call.js";

// Which calls are of factories: functions of the program whose last statement returns a
// function written there (factories.ts lowers them; function-lists.ts takes their calls as
// elements of a list of functions).

/** The factory a declaration's initializer calls, and the function its body returns. */
export interface Factory {
  fn: FunctionLike;
  /** Its statements before the `return` of the function it makes. */
  setup: Statement[];
  made: FunctionLike;
  /** A local factory's (`const scaleBy = (k) => (v) => v * k` in a function): where it is written. */
  scope?: Scope;
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
export function factoryOf(ctx: LowerContext, init: Node | null | undefined): Factory | undefined {
  if (init?.type !== "CallExpression" || init.callee.type !== "Identifier") return undefined;
  const local = ctx.scope.lookup(init.callee.name);
  if (local) {
    // A local function returning the function it writes: a factory of its scope.
    const closure = ctx.closures.get(local);
    const made = closure && madeBy(closure.node);
    return made && { ...made, scope: closure.scope };
  }
  const symbol = resolveCallee(ctx, init.callee.name);
  if (!symbol || symbol.module !== ctx.module) return undefined;
  return madeBy(symbol.node);
}

/** `fn` as a factory: its last statement returns a function written there, or its body is one. */
function madeBy(fn: FunctionLike): Factory | undefined {
  if (fn.async || fn.generator) return undefined;
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

/** Whether `node` is a call of a factory: a function of the program returning a function it writes. */
export function isFactoryCall(ctx: LowerContext, node: Node | null | undefined): boolean {
  return factoryOf(ctx, node) !== undefined;
}
