import type { CallExpression, Expression, FunctionBody, Node, ObjectExpression } from "oxc-parser";
import { CompileAbort } from "../diagnostics/diagnostic.js";
import { closureCapture, notes } from "../diagnostics/messages/index.js";
import type { Value } from "../ir/types.js";
import { walk, type FunctionLike } from "../parse/module.js";
import { signatureOf } from "../types/signature.js";
import { celledNames } from "./cells.js";
import { enterModule, type CodePlace, type LowerContext } from "./context.js";
import { runFactoryBody } from "./factories.js";
import { parameterFunctionTypeOf, typeResolver } from "../types/resolver.js";
import { resolveCallee } from "./user-call.js";

// Factories of objects with methods, in any module of the program: `function makeModel(w:
// number): Model { return { weight: w, predict(x) { return this.weight * x + w; } }; }`. Such
// an object's methods, getters and arrow fields are functions written where the literal is,
// with no run-time value nabla can call: inside the factory they are known
// (literal-accessors.ts, object-closures.ts), not outside it. So a call of the factory runs its
// body where it is called, as a factory of a function is (factories.ts): its parameters and
// locals in a scope of their own, and the literal it returns built there, with its methods
// reading that scope. The object is then the literal's own value in the caller, whose methods
// run inlined where they are called, as the factory's module's code. Its variables that the
// methods assign are held in cells (cells.ts), as in the factory itself, so a loop calling a
// method carries what it changes.

/** A factory returning an object literal with functions: its code and that literal. */
interface LiteralFactory {
  fn: FunctionLike;
  /** Its statements before the `return` of the literal. */
  setup: FunctionBody["body"];
  literal: ObjectExpression;
  name: string;
  /** The module the factory is written in, whose code its body and methods are. */
  home: CodePlace;
}

const NESTED_FUNCTIONS = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
]);

/**
 * The factory `node` calls, if it is a function of the program whose last statement returns
 * an object literal holding a method, a getter or a function, and that returns nowhere else.
 */
function literalFactoryOf(ctx: LowerContext, node: CallExpression): LiteralFactory | undefined {
  if (node.callee.type !== "Identifier" || ctx.scope.lookup(node.callee.name)) return undefined;
  const symbol = resolveCallee(ctx, node.callee.name);
  if (!symbol || symbol.thisType || symbol.typeArguments) return undefined;
  const returned = returnedLiteral(symbol.node);
  if (!returned) return undefined;
  // A factory of another module given functions would run them as its module's code.
  const elsewhere = symbol.module !== ctx.module;
  if (
    elsewhere &&
    symbol.node.params.some((p) => parameterFunctionTypeOf(ctx.program, symbol.module, p))
  )
    return ctx.fail(node, closureCapture.factoryElsewhereTakesFunctions(node.callee.name));
  const home = elsewhere
    ? { module: symbol.module, types: typeResolver(ctx.program, symbol.module) }
    : { module: ctx.module, types: ctx.types };
  return { fn: symbol.node, ...returned, name: node.callee.name, home };
}

/**
 * What `fn` returns if it is a factory of an object literal holding a method, a getter or a
 * function: its last statement returns that literal (or it is an arrow whose body is one), and
 * it returns nowhere else.
 */
export function returnedLiteral(
  fn: FunctionLike,
): { setup: FunctionBody["body"]; literal: ObjectExpression } | undefined {
  if (fn.async || fn.generator) return undefined;
  if (fn.type === "ArrowFunctionExpression" && fn.expression) {
    const literal = objectLiteral(fn.body as Node);
    return literal && holdsFunctions(literal) ? { setup: [], literal } : undefined;
  }
  const statements = (fn.body as FunctionBody | null)?.body ?? [];
  const last = statements[statements.length - 1];
  const literal = last?.type === "ReturnStatement" ? objectLiteral(last.argument) : undefined;
  if (!literal || !holdsFunctions(literal)) return undefined;
  const setup = statements.slice(0, -1);
  let returnsElsewhere = false;
  for (const s of setup)
    walk(s, (n) => {
      if (n.type === "ReturnStatement") returnsElsewhere = true;
      return !NESTED_FUNCTIONS.has(n.type);
    });
  return returnsElsewhere ? undefined : { setup, literal };
}

/** `{ … }`, past parentheses and `as`/`satisfies`. */
function objectLiteral(node: Node | null | undefined): ObjectExpression | undefined {
  while (
    node?.type === "ParenthesizedExpression" ||
    node?.type === "TSAsExpression" ||
    node?.type === "TSSatisfiesExpression"
  )
    node = node.expression;
  return node?.type === "ObjectExpression" ? node : undefined;
}

/** Whether `node` is an object literal holding a method, a getter or a function written in it. */
export function isLiteralWithFunctions(node: Node | null | undefined): boolean {
  const literal = objectLiteral(node);
  return literal !== undefined && holdsFunctions(literal);
}

/** Whether a literal holds a method, a getter, or a function written in it. */
function holdsFunctions(literal: ObjectExpression): boolean {
  return literal.properties.some(
    (p) =>
      p.type === "Property" &&
      (p.method ||
        p.kind === "get" ||
        p.kind === "set" ||
        p.value.type === "ArrowFunctionExpression" ||
        p.value.type === "FunctionExpression"),
  );
}

/**
 * `makeModel(w)`, a factory of an object with methods: its body run here and the literal it
 * returns built here (see above). Undefined if `node` calls no such factory.
 */
export function lowerLiteralFactoryCall(
  ctx: LowerContext,
  node: CallExpression,
): Value | undefined {
  const factory = literalFactoryOf(ctx, node);
  if (!factory) return undefined;
  const { fn, literal, name, home } = factory;
  if (ctx.inlining.has(fn)) return undefined;
  const savedCelled = ctx.celled;
  ctx.celled = new Set([...savedCelled, ...celledNames(fn)]);
  ctx.inlining.add(fn);
  try {
    const scope = runFactoryBody(ctx, fn, factory.setup, node, home);
    if (!scope) return undefined;
    const outer = ctx.scope;
    const caller = { module: ctx.module, types: ctx.types };
    ctx.scope = scope;
    enterModule(ctx, home);
    try {
      const result = signatureOf(fn, ctx.types).result;
      return ctx.lowerValue(literal as Expression, result === "void" ? undefined : result);
    } finally {
      ctx.scope = outer;
      enterModule(ctx, caller);
    }
  } catch (error) {
    // A problem in the factory's own code: the note says which call brought it in.
    const d = error instanceof CompileAbort ? error.diagnostic : undefined;
    if (d && d.loc.file === home.module.file && d.loc.start >= fn.start && d.loc.end <= fn.end)
      d.notes.unshift({ ...notes.inFactoryCalledHere(name), loc: ctx.loc(node) });
    throw error;
  } finally {
    ctx.inlining.delete(fn);
    ctx.celled = savedCelled;
  }
}
