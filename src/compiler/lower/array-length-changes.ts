import { typeMismatch, unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { CallExpression, Expression } from "oxc-parser";
import { assignable, isArray, typeText } from "../ir/type-system.js";
import type { ArrayType, Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";
import { expectType } from "./expect-type.js";
import { copyInto, countedLoop } from "./ir-loops.js";
import { relativePosition, wholeIndex } from "./relative-index.js";

// Array methods that shorten an array in place (`pop`, `shift`, `splice`, `unshift`), and
// `xs.length = n`. Each is element copies (`setIndex`), appends (`setIndex` marked "grow")
// and one `truncate`, the op that drops elements from the end: the analyses and both modes
// of differentiation know those three, so nothing here has a derivative of its own.

export function lowerLengthChange(
  ctx: LowerContext,
  node: CallExpression,
  array: Value,
  method: string,
): Value {
  const type = array.type as ArrayType;
  const b = ctx.builder;
  if (type.storage !== "Array" || type.elements)
    ctx.fail(node, unsupportedSyntax.lengthChangeNeedsPlainArray(method, typeText(type)));
  const args = node.arguments as Expression[];
  // Items may be spread (`xs.unshift(...ys)`); a spread start or count may not.
  const firstItem = method === "splice" ? 2 : method === "unshift" ? 0 : args.length;
  const spread = node.arguments.findIndex((a) => a.type === "SpreadElement");
  if (spread >= 0 && spread < firstItem)
    ctx.fail(node.arguments[spread]!, unsupportedSyntax.spreadArgumentsOfLengthChange(method));
  const n = b.emit("length", [array], ["number"]).results[0]!;
  switch (method) {
    case "pop": {
      // The last element (undefined when there is none, as a read past the end gives).
      const last = b.binary("sub", n, b.constant(1));
      const v = b.emit("index", [array, last], [type.element], {}, [], "popped").results[0]!;
      truncate(ctx, array, b.math("max", [last, b.constant(0)]));
      return v;
    }
    case "shift": {
      const v = b.emit("index", [array, b.constant(0)], [type.element], {}, [], "shifted")
        .results[0]!;
      const rest = b.math("max", [b.binary("sub", n, b.constant(1)), b.constant(0)]);
      countedLoop(ctx, rest, (i) => {
        const next = b.emit("index", [array, b.binary("add", i, b.constant(1))], [type.element])
          .results[0]!;
        b.emit("setIndex", [array, i, next], []);
      });
      truncate(ctx, array, rest);
      return v;
    }
    case "unshift": {
      if (args.length === 0) return n;
      const items = lowerItems(ctx, node, type, node.arguments);
      insert(ctx, array, b.constant(0), b.constant(0), n, items);
      return b.emit("length", [array], ["number"]).results[0]!;
    }
    default: {
      // `splice(start, deleteCount, ...items)`, its arguments read as JavaScript reads them.
      const number = (k: number) => {
        const v = expectType(ctx, args[k]!, ctx.lowerExpression(args[k]!), "number");
        ctx.at(node);
        return v;
      };
      const start = args.length > 0 ? relativePosition(ctx, number(0), n) : b.constant(0);
      const available = b.binary("sub", n, start);
      const count =
        args.length === 0
          ? b.constant(0)
          : args.length === 1
            ? available
            : b.math("min", [
                b.math("max", [wholeIndex(ctx, number(1)), b.constant(0)]),
                available,
              ]);
      // Every argument is evaluated before the array changes, as in JavaScript.
      const items = lowerItems(ctx, node, type, node.arguments.slice(2));
      const plain: ArrayType = { kind: "array", storage: "Array", element: type.element };
      const removed = b.emit("alloc", [count], [plain], {}, [], "removed").results[0]!;
      countedLoop(ctx, count, (i) => {
        const v = b.emit("index", [array, b.binary("add", start, i)], [type.element]).results[0]!;
        b.emit("setIndex", [removed, i, v], []);
      });
      insert(ctx, array, start, count, n, items);
      return removed;
    }
  }
}

/** `xs.length = n`, lowered where assignments to members are. */
export function lowerLengthAssignment(ctx: LowerContext, array: Value, length: Value): void {
  truncate(ctx, array, length);
}

function truncate(ctx: LowerContext, array: Value, length: Value): void {
  ctx.builder.emit("truncate", [array, length], []);
}

/** An item to insert: one value, or a spread array whose elements are inserted. */
type Item = { value: Value; spread?: undefined } | { spread: Value; value?: undefined };

/** The items of `splice` or `unshift`, each as `push` takes it. */
function lowerItems(
  ctx: LowerContext,
  node: CallExpression,
  type: ArrayType,
  items: CallExpression["arguments"],
): Item[] {
  return items.map((item) => {
    if (item.type === "SpreadElement") {
      const spread = ctx.lowerExpression(item.argument);
      if (!isArray(spread.type) || !assignable(spread.type.element, type.element))
        ctx.fail(item, typeMismatch.arrayElementsMustAllBe(typeText(type.element)));
      ctx.at(node);
      return { spread };
    }
    const value = expectType(ctx, item, ctx.lowerValue(item, type.element), type.element);
    ctx.at(node);
    return { value };
  });
}

/**
 * Replaces `count` elements from `start` by `items`: the elements after them are copied
 * aside, the array cut at `start`, then the items and the copies appended. Appends never
 * leave holes, whatever the counts turn out to be at run time.
 */
function insert(
  ctx: LowerContext,
  array: Value,
  start: Value,
  count: Value,
  n: Value,
  items: Item[],
): void {
  const b = ctx.builder;
  const type = array.type as ArrayType;
  const from = b.binary("add", start, count);
  const tail = b.binary("sub", n, from);
  if (items.length === 0) {
    // Deleting only: the tail moves down in place.
    countedLoop(ctx, tail, (i) => {
      const v = b.emit("index", [array, b.binary("add", from, i)], [type.element]).results[0]!;
      b.emit("setIndex", [array, b.binary("add", start, i), v], []);
    });
    truncate(ctx, array, b.binary("add", start, tail));
    return;
  }
  const plain: ArrayType = { kind: "array", storage: "Array", element: type.element };
  const aside = b.emit("alloc", [tail], [plain], {}, [], "tail").results[0]!;
  countedLoop(ctx, tail, (i) => {
    const v = b.emit("index", [array, b.binary("add", from, i)], [type.element]).results[0]!;
    b.emit("setIndex", [aside, i, v], []);
  });
  truncate(ctx, array, start);
  const append = (v: Value) => {
    const at = b.emit("length", [array], ["number"]).results[0]!;
    b.emit("setIndex", [array, at, v], [], { value: "grow" });
  };
  for (const item of items) {
    if (item.spread) copyInto(ctx, array, item.spread);
    else append(item.value);
  }
  countedLoop(ctx, tail, (i) => append(b.emit("index", [aside, i], [type.element]).results[0]!));
}
