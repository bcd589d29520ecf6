import type { Node } from "oxc-parser";
import { closureCapture, notes } from "../diagnostics/messages/index.js";
import { CompileAbort } from "../diagnostics/diagnostic.js";
import { forEachOp } from "../ir/walk.js";
import type { Op, SourceLoc, Value } from "../ir/types.js";
import type { Binding } from "../resolve/targets.js";
import type { ParamInfo } from "../types/signature.js";
import type { BoundObject, FunctionArg, LowerContext } from "./context.js";

// Functions written in an object literal handed to a function of the program — an options
// object's callbacks (`rk4(f, y0, t1, { steps: 50, onStep: (t, y) => { peak = … } })`), a
// solver's `{ f, df }`. A function written in a literal is a local function, which has no
// run-time value nabla can call (function-values.ts lifts it into a function of its own), so
// the object is tracked by its IR value instead (LowerContext.boundObjects): a call passing it
// specializes the callee for its functions, as for a function passed as an argument, with
// bindings named `param.field`; in the callee the parameter's value is tracked the same way.
// Reading, calling, testing or destructuring such a field resolves to the bound function.
// Anything else done with the object (storing it, returning it, joining it with another
// value, handing it to code that is not specialized) would let its placeholder field be read
// as if it held the function: checkBoundObjectUses refuses it when the function is lowered.

/** The function `object`'s field `name` holds, when it was written in an object literal. */
export function boundField(
  ctx: LowerContext,
  object: Value,
  name: string,
): FunctionArg | undefined {
  return ctx.boundObjects.get(object)?.fields.get(name);
}

/**
 * `opts.onStep` (parenthesized or with `!`), where `opts` is a variable holding an object whose
 * `onStep` was written in an object literal: that function. Read without lowering anything.
 */
export function boundFieldRead(ctx: LowerContext, node: Node): FunctionArg | undefined {
  node = unwrapped(node);
  if (node.type !== "MemberExpression" || node.computed || node.property.type !== "Identifier")
    return undefined;
  const object = unwrapped(node.object);
  if (object.type !== "Identifier") return undefined;
  const slot = ctx.scope.lookup(object.name);
  if (!slot || ctx.cells.has(slot)) return undefined;
  const value = ctx.env.get(slot);
  return value && boundField(ctx, value, node.property.name);
}

function unwrapped(node: Node): Node {
  while (node.type === "ParenthesizedExpression" || node.type === "TSNonNullExpression")
    node = node.expression;
  return node;
}

/** The IR value for a field whose function is bound: never read (checkBoundObjectUses). */
export function boundFieldPlaceholder(ctx: LowerContext, name: string): Value {
  return ctx.builder.emit("const", [], ["opaque"], {}, [], name).results[0]!;
}

/**
 * The bindings a call makes for the objects it passes that hold functions written in object
 * literals: `param.field` for each such field, with the values each function carries.
 */
export function objectArgumentBindings(
  ctx: LowerContext,
  passed: readonly { param: ParamInfo; value: Value }[],
): { bindings: Binding[]; carried: Value[] } {
  const bindings: Binding[] = [];
  const carried: Value[] = [];
  for (const { param, value } of passed) {
    const bound = ctx.boundObjects.get(value);
    if (!bound || param.rest) continue;
    for (const [field, arg] of bound.fields) {
      bindings.push({ name: `${param.name}.${field}`, fn: arg.fn });
      carried.push(...arg.values);
    }
  }
  return { bindings, carried };
}

/** The name of a binding of an object parameter's field (`opts.onStep`): its parts. */
export function fieldBindingName(name: string): { param: string; field: string } | undefined {
  const dot = name.indexOf(".");
  return dot < 0 ? undefined : { param: name.slice(0, dot), field: name.slice(dot + 1) };
}

/**
 * In a specialization, the parameter `object` whose field `field` is bound: reads of it
 * resolve to `arg`.
 */
export function bindParameterField(
  ctx: LowerContext,
  object: Value,
  field: string,
  arg: FunctionArg,
  origin: SourceLoc,
): void {
  const bound = ctx.boundObjects.get(object) ?? { fields: new Map(), origin };
  bound.fields.set(field, arg);
  ctx.boundObjects.set(object, bound);
}

/**
 * Refuses every use of an object holding bound functions other than reading a field that is
 * not one of them, writing such a field, testing whether the object is there (`opts?.…`) or
 * has a field (`in`), and passing it to a specialization made for its functions.
 */
export function checkBoundObjectUses(ctx: LowerContext): void {
  if (ctx.boundObjects.size === 0) return;
  forEachOp(ctx.body, (op) => {
    op.operands.forEach((operand, index) => {
      const bound = ctx.boundObjects.get(operand);
      if (!bound || allowed(ctx, op, index, bound)) return;
      // A return, or a join of branches, is an op at the end of a function or statement: the
      // object itself says better what is returned or joined.
      const atObject = op.opcode === "return" || op.opcode === "yield" || op.opcode === "condition";
      throw new CompileAbort({
        severity: "error",
        ...closureCapture.objectHoldingFunctionUsed(
          [...bound.fields.keys()].join("', '"),
          useOf(ctx, op, index),
        ),
        loc: atObject ? bound.origin : op.loc,
        notes: atObject ? [] : [{ ...notes.objectWithFunctionFrom(), loc: bound.origin }],
      });
    });
  });
}

function allowed(ctx: LowerContext, op: Op, index: number, bound: BoundObject): boolean {
  switch (op.opcode) {
    case "field":
    case "setField":
      return index === 0 && !bound.fields.has(op.attrs.field as string);
    case "nullish":
      return true;
    // `"scale" in options`, which a spread of an optional field asks.
    case "nondiff":
      return op.attrs.callee === "in" && index === 1;
    case "call":
      return index < (ctx.boundPasses.get(op) ?? 0) || ctx.thisPasses.get(op)?.has(index) === true;
    default:
      return false;
  }
}

/** What the code does with the object, for the message ("return it"). */
function useOf(ctx: LowerContext, op: Op, index: number): string {
  switch (op.opcode) {
    case "field":
      return `read its function '${op.attrs.field}' as a value (call it, test it or pass it to a function instead)`;
    case "setField":
      if (index === 0) return `assign its function '${op.attrs.field}'`;
      break;
    case "call":
      return ctx.boundPasses.has(op) || String(op.attrs.callee).includes("#lambda@")
        ? "capture it in a function that is passed on"
        : `pass it to '${op.attrs.calleeName ?? op.attrs.callee}', which is not specialized for its functions`;
  }
  return objectUseOf(op);
}

/**
 * What the code does with an object it may only read and call (one holding functions or
 * accessors), for the messages that refuse the rest: the uses both kinds share.
 */
export function objectUseOf(op: Op): string {
  switch (op.opcode) {
    case "setField":
    case "literal":
    case "setIndex":
      return "store it in an object or an array";
    case "return":
      return "return it";
    case "yield":
    case "condition":
      return "choose between it and another object by a condition, or keep it in a variable that branches or loops change";
    case "call":
      return `pass it to '${op.attrs.calleeName ?? op.attrs.callee}'`;
    default:
      return "use it as another kind of value";
  }
}
