import { isArrowField } from "./arrow-fields.js";
import type { CallExpression, Expression, Node } from "oxc-parser";
import { implementationCaller } from "./calls.js";
import { lowerOptionalInterfaceMethodCall } from "./optional-methods.js";
import type { Value } from "../ir/types.js";
import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { LowerContext } from "./context.js";
import { lowerIf } from "./merge.js";
import { fieldOf, isObject } from "../ir/type-system.js";
import { holdsFunction } from "./function-values.js";

// Optional chaining (`opts?.scale`, `p.wind?.x`, `a?.b.c`, `p.wind?.norm()`): where the object
// before `?.` is null or undefined, the whole chain is undefined and the rest of it is not
// evaluated, as in JavaScript. Lowered as an `if` on a `nullish` test of that object: one
// branch yields undefined, the other reads the rest of the chain, so the derivative flows
// only where JavaScript reads.

/** `a?.b…` (the expression inside a ChainExpression). */
export function lowerOptionalChain(ctx: LowerContext, node: Expression): Value {
  const link = outermostOptionalLink(node);
  if (!link) return ctx.lowerExpression(node);
  if (link.type === "CallExpression") return lowerOptionalCall(ctx, node, link);
  if (link.type !== "MemberExpression") throw new Error("internal: a link is a member or a call");
  const baseNode = link.object as Expression;
  // `undefined?.x` is undefined too: an inner `?.` short-circuits to the same value.
  const base = lowerOptionalChain(ctx, baseNode);
  ctx.at(link);
  const absent = ctx.builder.unary("nullish", base);
  const present = ctx.builder.unary("not", absent);
  // `lowerIf` lowers the branches in order: the absent one takes the present one's type.
  let read: Value | undefined;
  const [value] = lowerIf(ctx, present, [
    () => [(read = readRest(ctx, node, link, base))],
    () => [ctx.builder.emit("const", [], [read!.type], {}, [], "").results[0]!],
  ]);
  return value!;
}

/**
 * `o.scale?.(x)`: the call where the field holds a function, else undefined. The object is
 * evaluated once; the field is read for the test, then called as a method of that object.
 */
function lowerOptionalCall(
  ctx: LowerContext,
  node: Expression,
  link: Node & { type: "CallExpression" },
): Value {
  const callee = link.callee;
  // `onStep?.(i, loss)` of a function parameter: whether it holds a function is known where
  // the specialization is compiled, or tested at run time (function-values.ts' Presence).
  const held = link === node ? holdsFunction(ctx, callee) : undefined;
  if (held === true) return ctx.lowerExpression({ ...link, optional: false } as Expression);
  if (held === false) return skippedCall(ctx, link);
  if (held) {
    ctx.at(link);
    let called: Value | undefined;
    const [value] = lowerIf(ctx, held, [
      () => [(called = ctx.lowerExpression({ ...link, optional: false } as Expression))],
      () => [called!.type === "void" ? called! : skippedCall(ctx, link)],
    ]);
    return value!;
  }
  if (
    callee.type !== "MemberExpression" ||
    callee.computed ||
    callee.property.type !== "Identifier"
  )
    return ctx.fail(link, unsupportedSyntax.optionalCallsAreNotSupported());
  const object = lowerOptionalChain(ctx, callee.object as Expression);
  const name = callee.property.name;
  const field = isObject(object.type) ? fieldOf(object.type, name) : undefined;
  // An arrow field is always there (and in derivative code, not a field the IR reads).
  const arrow = isObject(object.type) && isArrowField(ctx, object.type, name);
  // `f.reset?.()`, an optional method of the interface `f` has (optional-methods.ts); a class
  // implementing it by an arrow field (`reset = () => {…}`) gives the interface's type a field
  // of that name, holding a function nabla has no type for.
  const method = !field || (field.type === "opaque" && !field.callable);
  if (method && !arrow && !callee.optional && isObject(object.type) && object.type.interfaceKey) {
    const type = { ...object.type, interfaceKey: object.type.interfaceKey };
    const callMethod = (): Value => {
      const called = lowerOptionalInterfaceMethodCall(
        ctx,
        { ...link, optional: false } as CallExpression,
        object,
        type,
        name,
        implementationCaller(ctx, { ...link, optional: false } as CallExpression, name),
      );
      // `s.grow?.(1).scaled(10)`: the rest of the chain reads the call's result, where the
      // object's class has the method (elsewhere the result is undefined, and so is the chain).
      return link === node ? called : readRestOfResult(ctx, node, link, called);
    };
    // `s.grow?.(1).grow?.(2)`: the object is the chain before, undefined where it stopped, and
    // then so is this call.
    if (!outermostOptionalLink(callee.object)) return callMethod();
    ctx.at(link);
    const present = ctx.builder.unary("not", ctx.builder.unary("nullish", object));
    let read: Value | undefined;
    const [value] = lowerIf(ctx, present, [
      () => [(read = callMethod())],
      () => [ctx.builder.emit("const", [], [read!.type], {}, [], "").results[0]!],
    ]);
    return value!;
  }
  if (!field?.callable && !arrow)
    return ctx.fail(link, unsupportedSyntax.optionalCallsAreNotSupported());
  const hidden = `?.${link.start}`;
  ctx.declare(hidden, "const", object.type, object);
  const at = { start: callee.object.start, end: callee.object.end };
  const call = {
    ...link,
    optional: false,
    callee: { ...callee, optional: false, object: { type: "Identifier", name: hidden, ...at } },
  } as unknown as Expression;
  // `o?.f?.(x)`: the field is read only where the object is there.
  const tests: (() => Value)[] = [
    ...(callee.optional
      ? [() => ctx.builder.unary("not", ctx.builder.unary("nullish", object))]
      : []),
    ...(arrow
      ? []
      : [
          () => {
            const held = ctx.builder.emit("field", [object], ["opaque"], { field: name }, [], name)
              .results[0]!;
            return ctx.builder.unary("not", ctx.builder.unary("nullish", held));
          },
        ]),
  ];
  let read: Value | undefined;
  const guarded = (i: number): Value => {
    ctx.at(link);
    if (i === tests.length) return (read = ctx.lowerExpression(replaceNode(node, link, call)));
    const [value] = lowerIf(ctx, tests[i]!(), [
      () => [guarded(i + 1)],
      () => [ctx.builder.emit("const", [], [read!.type], {}, [], "").results[0]!],
    ]);
    return value!;
  };
  return guarded(0);
}

/** The rest of the chain after the call `link`, read on its result where it is there. */
function readRestOfResult(ctx: LowerContext, node: Expression, link: Node, result: Value): Value {
  const hidden = `?.${link.start}`;
  ctx.declare(hidden, "const", result.type, result);
  const at = { start: link.start, end: link.end };
  const rest = replaceNode(node, link, { type: "Identifier", name: hidden, ...at } as Expression);
  ctx.at(link);
  const present = ctx.builder.unary("not", ctx.builder.unary("nullish", result));
  let read: Value | undefined;
  const [value] = lowerIf(ctx, present, [
    () => [(read = ctx.lowerExpression(rest))],
    () => [ctx.builder.emit("const", [], [read!.type], {}, [], "").results[0]!],
  ]);
  return value!;
}

/** A copy of the chain `node` with `link` replaced by `by`. */
function replaceNode(node: Node, link: Node, by: Expression): Expression {
  if (node === link) return by;
  if (node.type === "MemberExpression")
    return { ...node, object: replaceNode(node.object, link, by) } as Expression;
  if (node.type === "CallExpression")
    return { ...node, callee: replaceNode(node.callee, link, by) } as Expression;
  if (node.type === "TSNonNullExpression")
    return { ...node, expression: replaceNode(node.expression, link, by) } as Expression;
  throw new Error(`internal: ${node.type} is not a link of an optional chain`);
}

/** The rest of the chain, read where the object before `link` is there. */
function readRest(ctx: LowerContext, node: Expression, link: Node, base: Value): Value {
  // The chain from `node` down to `link`, with the object of `link` replaced by a name bound
  // to `base` (hidden from the program: no identifier can be spelled so).
  const name = `?.${link.start}`;
  if (!base.hint) base.hint = "chained";
  ctx.declare(name, "const", base.type, base);
  const replaced = replaceLink(node, link, {
    type: "Identifier",
    name,
    start: (link as { object: Node }).object.start,
    end: (link as { object: Node }).object.end,
  } as unknown as Expression);
  return ctx.lowerExpression(replaced);
}

/** The `?.` nearest the end of the chain `node` (the last one JavaScript evaluates), if any. */
function outermostOptionalLink(node: Node): Node | undefined {
  let n: Node | undefined = node;
  while (n) {
    if ((n.type === "MemberExpression" || n.type === "CallExpression") && n.optional) return n;
    n = chainChild(n);
  }
  return undefined;
}

/** The next link down a chain: a member's object, a call's callee, a `!`'s operand. */
function chainChild(n: Node): Node | undefined {
  if (n.type === "MemberExpression") return n.object;
  if (n.type === "CallExpression") return n.callee;
  if (n.type === "TSNonNullExpression") return n.expression;
  return undefined;
}

/** A copy of the chain `node` whose `link` reads `object` instead, no longer optional. */
function replaceLink(node: Node, link: Node, object: Expression): Expression {
  if (node === link) return { ...node, object, optional: false } as unknown as Expression;
  if (node.type === "MemberExpression")
    return { ...node, object: replaceLink(node.object, link, object) } as Expression;
  if (node.type === "CallExpression")
    return { ...node, callee: replaceLink(node.callee, link, object) } as Expression;
  if (node.type === "TSNonNullExpression")
    return { ...node, expression: replaceLink(node.expression, link, object) } as Expression;
  throw new Error(`internal: ${node.type} is not a link of an optional chain`);
}

/** `f?.(…)` where `f` holds no function: undefined, its arguments not evaluated. */
function skippedCall(ctx: LowerContext, link: Node & { type: "CallExpression" }): Value {
  ctx.at(link);
  const result = ctx.types.inferred?.callAt(link.start, link.end)?.result;
  if (!result || result === "void") return ctx.builder.newValue("void");
  return ctx.builder.emit("const", [], [result], {}, [], "").results[0]!;
}
