import type { Node } from "oxc-parser";
import { notes, unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { Type } from "../ir/types.js";
import { walk } from "../parse/module.js";
import type { FunctionSymbol } from "../parse/program.js";
import type { TypeResolver } from "../types/signature.js";
import type { LowerContext } from "./context.js";

// A call of a function that returns a function (`pick(name)` choosing one of the program's
// losses by name, not a factory: factories.ts inlines one ending in `return (x) => …`). Its
// value is a function value, which a call through it dispatches over the functions of the
// program used as values (function-values.ts). A function the callee writes itself is none of
// those: the call would throw when it runs, so it is refused here.

const NESTED = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** `opaque` if `symbol` returns a function; undefined if it does not. */
export function returnedFunctionType(
  ctx: LowerContext,
  symbol: FunctionSymbol,
  resolver: TypeResolver,
  at: Node,
): Type | undefined {
  const fn = symbol.node;
  if (!resolver.inferred?.returnsFunction(fn.start, fn.end)) return undefined;
  const written = writtenReturn(fn.body as Node | null);
  if (written) {
    const text = symbol.module.text.slice(written.start, written.end).replace(/\s+/g, " ");
    const loc = { file: symbol.module.file, start: written.start, end: written.end };
    return ctx.failWithNotes(at, unsupportedSyntax.returnsFunctionItWrites(symbol.name, text), [
      { ...notes.returnedFunctionWrittenHere(), loc },
    ]);
  }
  return "opaque";
}

/** A function written in `body` that it returns (`return (p, t) => …`, `cond ? f : (x) => x`). */
function writtenReturn(body: Node | null): Node | undefined {
  if (!body) return undefined;
  // An arrow's expression body is what it returns.
  if (body.type !== "BlockStatement" && (body.type as string) !== "FunctionBody")
    return writtenIn(body);
  let found: Node | undefined;
  walk(body, (n) => {
    if (found || NESTED.has(n.type)) return false;
    if (n.type === "ReturnStatement" && n.argument) found = writtenIn(n.argument);
    return !found;
  });
  return found;
}

/** The function literal `e` evaluates to, through parentheses, conditions and `??`/`||`. */
function writtenIn(e: Node): Node | undefined {
  switch (e.type) {
    case "ArrowFunctionExpression":
    case "FunctionExpression":
      return e;
    case "ParenthesizedExpression":
    case "TSAsExpression":
    case "TSSatisfiesExpression":
    case "TSNonNullExpression":
      return writtenIn(e.expression);
    case "ConditionalExpression":
      return writtenIn(e.consequent) ?? writtenIn(e.alternate);
    case "LogicalExpression":
      return writtenIn(e.left) ?? writtenIn(e.right);
    default:
      return undefined;
  }
}
