import { callArity, typeMismatch, unsupportedSyntax } from "../diagnostics/messages/index.js";
import { valuesIteratorArray } from "./iterator-values.js";
import type { Message } from "../diagnostics/messages/message.js";
import type { StaticFunction } from "../resolve/targets.js";
import { collectGenerator } from "./generators.js";
import type {
  ArrowFunctionExpression,
  CallExpression,
  Expression,
  ExpressionStatement,
  MemberExpression,
  Node,
} from "oxc-parser";
import {
  assignable,
  isAggregate,
  isArray,
  isMap,
  isSet,
  sameType,
  typeText,
} from "../ir/type-system.js";
import { iterated } from "./keyed.js";
import { classNamed, staticMethodSymbol } from "../parse/class-hierarchy.js";
import type { ArrayType, Type, Value } from "../ir/types.js";
import { assignedNames } from "./assigned-names.js";
import type { FunctionArg, LowerContext, Slot } from "./context.js";
import { expectType, toBoolean } from "./expect-type.js";
import { callFunctionArg, requireCallback, resolveFunctionArg } from "./function-values.js";
import { inlineCallback } from "./inline-callback.js";
import { builtinCallback } from "./builtin-callbacks.js";
import {
  copyArray,
  copyInto,
  countedLoop,
  forEachIndex,
  isArrayCall,
  lowerValue,
} from "./members.js";
import { lowerIf, lowerLoop } from "./merge.js";
import { mapWithHoles, mayShortenArrays } from "./shortening-callbacks.js";
import { substituteValues } from "../ir/substitute.js";
import { lowerOrderMethod } from "./array-order-methods.js";
import { lowerSort, parsedAt } from "./array-sort.js";
import { lowerTypedArraySet } from "./typed-array-set.js";
import { calleePath, isNamespacePath } from "./user-call.js";
import { relativePosition, wholeIndex } from "./relative-index.js";
import { lowerLengthChange } from "./array-length-changes.js";

// Calls of array methods (`push`, `fill`, `slice`, `map`, `forEach`, `reduce`) and
// `Array.from`, lowered to IR loops; a callback must be an arrow function written at the call,
// which is inlined into the loop body. Method calls on class instances are in calls.ts.

export function lowerArrayMethod(
  ctx: LowerContext,
  node: CallExpression,
  array: Value,
  method: string,
): Value {
  const type = array.type as ArrayType;
  const b = ctx.builder;
  const args = node.arguments as Expression[];
  const arity = (min: number, max: number) => {
    if (
      args.length < min ||
      args.length > max ||
      node.arguments.some((a) => a.type === "SpreadElement")
    )
      ctx.fail(
        node,
        callArity.takesArgumentHere(
          method,
          min === max ? min : `${min} to ${max}`,
          max === 1 ? "" : "s",
        ),
      );
  };
  switch (method) {
    case "push": {
      if (type.storage !== "Array" || type.elements)
        ctx.fail(node, unsupportedSyntax.lengthChangeNeedsPlainArray(method, typeText(type)));
      // `push(a, b, ...rest)`: the arguments appended in order; returns the new length.
      for (const arg of node.arguments) {
        if (arg.type === "ArrowFunctionExpression" || arg.type === "FunctionExpression")
          ctx.fail(arg, unsupportedSyntax.functionPushed(method));
        if (arg.type === "SpreadElement") {
          const spread = ctx.lowerExpression(arg.argument);
          // Each element as `push(e)` would take it (a class instance onto an interface's array).
          if (!isArray(spread.type) || !assignable(spread.type.element, type.element))
            ctx.fail(arg, typeMismatch.arrayElementsMustAllBe(typeText(type.element)));
          ctx.at(node);
          copyInto(ctx, array, spread);
          continue;
        }
        // `ps.push({ pos, vel })`: a literal takes the element type (its optional fields
        // left out are absent).
        const v = expectType(ctx, arg, ctx.lowerValue(arg, type.element), type.element);
        ctx.at(node);
        const at = b.emit("length", [array], ["number"]).results[0]!;
        b.emit("setIndex", [array, at, v], [], { value: "grow" });
      }
      return b.emit("length", [array], ["number"]).results[0]!;
    }
    case "pop":
    case "shift":
    case "unshift":
    case "splice":
      return lowerLengthChange(ctx, node, array, method);
    case "fill": {
      arity(1, 3);
      const value = ctx.lowerExpression(args[0]!);
      ctx.at(node);
      let filled = array;
      // `new Array(n).fill(row)` with nothing saying what it holds (TypeScript's `any[]`):
      // it holds what it is filled with, as in JavaScript (every element the same `row`). A
      // new array of that type replaces the one of numbers made for it (then unused).
      if (untypedNewArray(ctx, node) && type.element === "number" && isAggregate(value.type)) {
        const n = b.emit("length", [array], ["number"]).results[0]!;
        const holding: ArrayType = { kind: "array", storage: "Array", element: value.type };
        filled = b.emit("alloc", [n], [holding], {}, [], "").results[0]!;
      }
      const v = expectType(ctx, args[0]!, value, (filled.type as ArrayType).element);
      ctx.at(node);
      if (args.length === 1) {
        forEachIndex(ctx, filled, (i) => b.emit("setIndex", [filled, i, v], []));
        return filled;
      }
      // `xs.fill(v, start, end)`: from start up to end, read as `slice` reads them.
      const n = b.emit("length", [filled], ["number"]).results[0]!;
      const { start, end } = relativeRange(ctx, node, args, 1, n, (got) =>
        typeMismatch.expectedHereGot("a number", got),
      );
      ctx.at(node);
      const count = b.math("max", [b.binary("sub", end, start), b.constant(0)]);
      countedLoop(ctx, count, (k) =>
        b.emit("setIndex", [filled, b.binary("add", start, k), v], []),
      );
      return filled;
    }
    case "slice": {
      arity(0, 2);
      const n = b.emit("length", [array], ["number"]).results[0]!;
      const { start, end } = relativeRange(ctx, node, args, 0, n, () =>
        typeMismatch.sliceTakesNumbers(),
      );
      ctx.at(node);
      const count = b.math("max", [b.binary("sub", end, start), b.constant(0)]);
      const plain: ArrayType = { kind: "array", storage: type.storage, element: type.element };
      const out = b.emit("alloc", [count], [plain], {}, [], "slice").results[0]!;
      countedLoop(ctx, count, (k) => {
        const v = b.emit("index", [array, b.binary("add", start, k)], [type.element]).results[0]!;
        b.emit("setIndex", [out, k, v], []);
      });
      return out;
    }
    case "forEach":
    case "map":
    case "reduce":
    case "reduceRight":
      return lowerIteration(ctx, node, array, method);
    case "flat": {
      // `rows.flat()`: one level, the rows' elements in order.
      arity(0, 0);
      if (!isArray(type.element) || type.storage !== "Array")
        return ctx.fail(node, unsupportedSyntax.arrayMethodIsNotSupported(method));
      return flattened(ctx, array);
    }
    case "flatMap": {
      // `xs.flatMap((x) => [x, 2 * x])`: map, then one level flat; a callback returning a
      // value that is not an array gives that value as one element, as JavaScript does.
      if (type.storage !== "Array")
        return ctx.fail(node, unsupportedSyntax.arrayMethodIsNotSupported(method));
      const mapped = lowerIteration(ctx, node, array, "map");
      return isArray((mapped.type as ArrayType).element) ? flattened(ctx, mapped) : mapped;
    }
    case "some":
    case "every":
    case "find":
    case "findIndex":
    case "findLast":
    case "findLastIndex":
      return lowerSearch(ctx, node, array, method);
    case "join": {
      // Text for a message or a log line (`xs.join(", ")`): no derivative.
      arity(0, 1);
      const separator = args[0] ? [ctx.lowerExpression(args[0])] : [];
      ctx.at(node);
      return b.emit("nondiff", [array, ...separator], ["string"], { callee: ".join" }).results[0]!;
    }
    case "at": {
      // `xs.at(-1)`: an index from the end when negative (truncated, as JavaScript does);
      // out of range, undefined as any read out of range.
      arity(1, 1);
      const at = expectType(ctx, args[0]!, ctx.lowerExpression(args[0]!), "number");
      ctx.at(node);
      const k = wholeIndex(ctx, at);
      const n = b.emit("length", [array], ["number"]).results[0]!;
      const negative = b.compare("lt", k, b.constant(0));
      const i = b.emit("select", [negative, b.binary("add", n, k), k], ["number"]).results[0]!;
      return b.emit("index", [array, i], [type.element]).results[0]!;
    }
    case "sort":
    case "toSorted":
      return lowerSort(ctx, node, array, method);
    case "set":
      // `buffer.set(xs, offset)`: a typed array's copy in (a plain array has no `.set`).
      if (type.storage === "Array")
        return ctx.fail(node, unsupportedSyntax.arrayMethodIsNotSupported(method));
      return lowerTypedArraySet(ctx, node, array);
    case "indexOf":
    case "lastIndexOf":
    case "includes": {
      // The first (or, from the end, the last) index holding the value (`===`), or -1;
      // whether there is one.
      arity(1, 1);
      const wanted = ctx.lowerExpression(args[0]!);
      ctx.at(node);
      // An array or object (an instance of a subclass, a variant of a union…) is found by
      // identity, which the element's comparison below (of values of one type) would not make:
      // it would never be found, silently. A number, string or boolean among values of another
      // kind is never found, as in JavaScript.
      const primitive = (t: Type) => t === "number" || t === "string" || t === "boolean";
      const elements = type.elements ?? [type.element];
      if (elements.some((e) => e !== wanted.type && !primitive(e) && !primitive(wanted.type)))
        ctx.fail(node, unsupportedSyntax.searchByIdentity(method, typeText(wanted.type)));
      const found = ctx.hiddenSlot("at", "number", -1);
      ctx.assign(found, b.constant(-1));
      const carried = [found];
      const backward = method === "lastIndexOf";
      const counter = ctx.hiddenSlot("i", "number", 0);
      const n = b.emit("length", [array], ["number"]).results[0]!;
      ctx.assign(counter, backward ? b.binary("sub", n, b.constant(1)) : b.constant(0));
      lowerLoop(
        ctx,
        [counter, ...carried],
        () =>
          b.logical(
            "and",
            backward
              ? b.compare("ge", ctx.value(counter), b.constant(0))
              : b.compare("lt", ctx.value(counter), n),
            b.compare("lt", ctx.value(found), b.constant(0)),
          ),
        () => {
          const i = ctx.value(counter);
          const read = b.emit("index", [array, i], [type.element]);
          if (method !== "includes") ctx.visits.push({ read, method, at: node });
          const e = read.results[0]!;
          if (e.type === wanted.type) {
            // `includes` finds NaN (SameValueZero); `indexOf` does not (`===`).
            const same =
              method === "includes" && e.type === "number"
                ? b.logical(
                    "or",
                    b.compare("eq", e, wanted),
                    b.logical("and", b.compare("ne", e, e), b.compare("ne", wanted, wanted)),
                  )
                : b.compare("eq", e, wanted);
            lowerIf(ctx, same, [
              () => {
                ctx.assign(found, i);
                return [];
              },
              () => [],
            ]);
          }
          ctx.assign(counter, b.binary(backward ? "sub" : "add", i, b.constant(1)));
        },
      );
      const at = ctx.value(found);
      return method === "includes" ? b.compare("ge", at, b.constant(0)) : at;
    }
    case "filter": {
      // A new array of the elements the callback keeps, grown as `.push` grows one.
      if (type.elements)
        ctx.fail(node, unsupportedSyntax.lengthChangeNeedsPlainArray(method, typeText(type)));
      const plain: ArrayType = { kind: "array", storage: "Array", element: type.element };
      const kept = b.emit("alloc", [b.constant(0)], [plain], {}, [], "kept").results[0]!;
      lowerIteration(ctx, node, array, "filter", undefined, (element, keep) => {
        const at = b.emit("length", [kept], ["number"]).results[0]!;
        lowerIf(ctx, toBoolean(ctx, keep, node), [
          () => {
            b.emit("setIndex", [kept, at, element], [], { value: "grow" });
            return [];
          },
          () => [],
        ]);
      });
      if (type.storage === "Array") return kept;
      // A typed array's filter makes a typed array of its kind: `Float64Array.from(kept)`.
      return ctx.inScope(() => {
        ctx.declare(KEPT, "const", plain, kept);
        const from = parsedAt(`${type.storage}.from(${KEPT});`, node)[0] as ExpressionStatement;
        return ctx.lowerExpression(from.expression);
      });
    }
    default:
      return (
        lowerOrderMethod(ctx, node, array, method) ??
        ctx.fail(node.callee, unsupportedSyntax.arrayMethodIsNotSupported(method))
      );
  }
}

/** The hidden name of a typed array's filtered elements, before they are made its kind. */
const KEPT = "nabla$kept";

/**
 * `xs.some(cb)`, `.every(cb)`, `.find(cb)`, `.findIndex(cb)`: the callback runs on the elements
 * in order until it decides, as in JavaScript (later elements are not visited, so a callback's
 * effects happen as often as they would).
 */
function lowerSearch(
  ctx: LowerContext,
  node: CallExpression,
  array: Value,
  method: "some" | "every" | "find" | "findIndex" | "findLast" | "findLastIndex",
): Value {
  const b = ctx.builder;
  const element = (array.type as ArrayType).element;
  const stop = ctx.hiddenSlot("stop", "boolean", false);
  ctx.assign(stop, b.constant(false));
  // The element (`find`, `findLast`), its index, or whether some or every element passes.
  const finds = method === "find" || method === "findLast";
  const indexes = method === "findIndex" || method === "findLastIndex";
  const resultType: Type = finds ? element : indexes ? "number" : "boolean";
  const result = ctx.hiddenSlot("found", resultType, undefined);
  ctx.assign(
    result,
    finds
      ? b.emit("const", [], [element], {}, [], "found").results[0]! // undefined: none found
      : indexes
        ? b.constant(-1)
        : b.constant(method === "every"),
  );
  lowerIteration(
    ctx,
    node,
    array,
    method,
    undefined,
    (e, produced, i) => {
      const decided = toBoolean(ctx, produced, node);
      const hit = method === "every" ? b.unary("not", decided) : decided;
      lowerIf(ctx, hit, [
        () => {
          ctx.assign(stop, b.constant(true));
          ctx.assign(result, finds ? e : indexes ? i : b.constant(method === "some"));
          return [];
        },
        () => [],
      ]);
    },
    stop,
    [result],
  );
  return ctx.value(result);
}

/** The elements of the rows of `rows` (an array of arrays) in order, in a new array. */
function flattened(ctx: LowerContext, rows: Value): Value {
  const b = ctx.builder;
  const row = (rows.type as ArrayType).element as ArrayType;
  const plain: ArrayType = { kind: "array", storage: "Array", element: row.element };
  const flat = b.emit("alloc", [b.constant(0)], [plain], {}, [], "flat").results[0]!;
  forEachIndex(ctx, rows, (i) => {
    const r = b.emit("index", [rows, i], [row]).results[0]!;
    forEachIndex(ctx, r, (j) => {
      const v = b.emit("index", [r, j], [row.element]).results[0]!;
      const at = b.emit("length", [flat], ["number"]).results[0]!;
      b.emit("setIndex", [flat, at, v], [], { value: "grow" });
    });
  });
  return flat;
}

/**
 * The callback of `map`/`forEach`/`reduce`/`Array.from`: an arrow function written in place
 * (inlined), a built-in function (`xs.map(Math.abs)`, as an arrow calling it), or a function
 * value (called: `xs.map(relu)`).
 */
function callbackOf(
  ctx: LowerContext,
  node: Node | undefined,
  method: string,
): ArrowFunctionExpression | { value: FunctionArg; arity: number; name: string } {
  const what = `'.${method}'`;
  if (!node) return ctx.fail(ctx.builder.loc, callArity.needsCallback(what));
  const inlined =
    builtinCallback(ctx, node, method) ??
    localFunctionCallback(ctx, node) ??
    staticMethodCallback(ctx, node);
  if (inlined) return inlined;
  if (node.type !== "ArrowFunctionExpression" || node.async) {
    const value = resolveFunctionArg(ctx, node, undefined, `the callback of ${what}`);
    const fn = value.fn;
    const arity = arityOf(fn);
    return { value, arity, name: ctx.module.text.slice(node.start, node.end) };
  }
  for (const p of node.params) {
    if (p.type !== "Identifier" && p.type !== "ObjectPattern" && p.type !== "ArrayPattern")
      ctx.fail(p, unsupportedSyntax.callbackParametersMustBePlain());
  }
  return node;
}

/**
 * `Array.from({ length: n }, normal)` where `normal` is a local function (a closure a factory
 * made, which may change what it keeps): the callback as an arrow calling it, inlined where the
 * loop runs as the local function's calls are.
 */
function localFunctionCallback(ctx: LowerContext, node: Node): ArrowFunctionExpression | undefined {
  if (node.type !== "Identifier") return undefined;
  const slot = ctx.scope.lookup(node.name);
  const closure = slot && ctx.closures.get(slot);
  if (!closure || !closure.node.params.every((p) => p.type === "Identifier")) return undefined;
  return arrowCalling(node, closure.node.params.length);
}

/** `($a0, …) => callee($a0, …)` with `count` parameters, written where `callee` is. */
function arrowCalling(callee: Node, count: number): ArrowFunctionExpression {
  const at = { start: callee.start, end: callee.end };
  const params = Array.from({ length: count }, (_, i) => ({
    type: "Identifier",
    name: `$a${i}`,
    ...at,
  }));
  return {
    type: "ArrowFunctionExpression",
    expression: true,
    async: false,
    params,
    body: { type: "CallExpression", callee, arguments: params, optional: false, ...at },
    ...at,
  } as unknown as ArrowFunctionExpression;
}

/**
 * `vs.map(Vec.norm)`, `vs.reduce(Vec.add, zero)` of a static method of a class of the program:
 * the callback as an arrow calling it with as many arguments as it declares, as JavaScript
 * passes them (calls.ts calls a static method by its path).
 */
function staticMethodCallback(ctx: LowerContext, node: Node): ArrowFunctionExpression | undefined {
  if (node.type !== "MemberExpression" || node.computed) return undefined;
  const { object, property } = node;
  if (object.type !== "Identifier" || property.type !== "Identifier") return undefined;
  if (ctx.scope.lookup(object.name)) return undefined;
  const symbol = staticMethodSymbol(ctx.program, ctx.module, object.name, property.name);
  if (!symbol || symbol.node.params.some((p) => p.type === "RestElement")) return undefined;
  return arrowCalling(node, symbol.node.params.length);
}

/**
 * `xs.map(cb)`, `xs.forEach(cb)`, `xs.reduce(cb, init)` and `Array.from({ length: n }, cb)`:
 * a loop whose body is the callback, inlined with its parameters bound to the element, the
 * index and the array (and the accumulator first).
 */
/** The methods that pass over an array's holes (`find` and `from` visit them as undefined). */
const SKIP_HOLES = new Set(["forEach", "map", "filter", "reduce", "reduceRight", "some", "every"]);

function lowerIteration(
  ctx: LowerContext,
  node: CallExpression,
  array: Value | undefined,
  method:
    | "map"
    | "forEach"
    | "reduce"
    | "reduceRight"
    | "filter"
    | "from"
    | "some"
    | "every"
    | "find"
    | "findIndex"
    | "findLast"
    | "findLastIndex",
  length?: Value,
  /** For `filter` and the searches: what to do with each element and the callback's result. */
  onElement?: (element: Value, produced: Value, index: Value) => void,
  /** A flag that ends the loop once set (a search that has decided). */
  stop?: Slot,
  /** Variables the loop carries besides (a search's result). */
  extra: Slot[] = [],
  /** The storage of `from`'s result: `Array`, or a typed array's (`Float64Array.from`). */
  storage: ArrayType["storage"] = "Array",
): Value {
  const b = ctx.builder;
  const args = node.arguments as Expression[];
  const callback = callbackOf(ctx, method === "from" ? args[1] : args[0], method);
  if ("value" in callback) requireCallback(ctx, node, callback.value, callback.name);
  const reducing = method === "reduce" || method === "reduceRight";
  if (reducing && args.length !== 2 && args.length !== 1) {
    return ctx.fail(node, callArity.takesArgumentHere(method, "1 to 2", "s"));
  }
  const element = array ? (array.type as ArrayType).element : undefined;
  let initial = reducing && args.length === 2 ? reduceStart(ctx, node, args[1]!) : undefined;
  ctx.at(node);
  const n = length ?? b.emit("length", [array!], ["number"]).results[0]!;
  // `xs.reduce((a, b) => a + b)`: JavaScript throws on an empty array, else starts from the
  // first element visited and visits the others.
  const firstVisited = reducing && !initial;
  if (firstVisited) {
    throwIfEmpty(ctx, node, n);
    ctx.at(node);
    const first = method === "reduce" ? b.constant(0) : b.binary("sub", n, b.constant(1));
    const read = b.emit("index", [array!, first], [element!]);
    ctx.visits.push({ read, method, at: node });
    initial = read.results[0]!;
  }

  // The result array of `map`/`from` is allocated before the loop, once the element type is
  // known from lowering the callback; its op is moved up then.
  const counter = ctx.hiddenSlot("i", "number", 0);
  ctx.assign(counter, b.constant(firstVisited ? 1 : 0));
  const accumulator = initial ? ctx.hiddenSlot("acc", initial.type, undefined) : undefined;
  if (accumulator) ctx.assign(accumulator, initial!);
  const resultSlot: { value?: Value } = {};
  const outPlaceholder = b.newValue("number", "out");

  const inline = "type" in callback ? callback : undefined;
  const outer = inline
    ? [...assignedNames([inline.body], true)]
        .map((name) => ctx.scope.lookup(name))
        .filter((slot): slot is Slot => slot !== undefined && ctx.env.has(slot))
        .concat(ctx.closureWrites([inline.body]))
    : [];
  const at = inline ?? args[method === "from" ? 1 : 0]!;
  const carried = [
    ...new Set([
      counter,
      ...(accumulator ? [accumulator] : []),
      ...(stop ? [stop] : []),
      ...extra,
      ...outer,
    ]),
  ];

  // A typed array's length never changes. A callback passed by name (`xs.map(halve)`) may
  // shorten the array as an arrow may.
  const fn = "value" in callback ? callback.value.fn : undefined;
  const named = fn?.kind === "named" ? fn.symbol : undefined;
  const shortens =
    array !== undefined && SKIP_HOLES.has(method) && (array.type as ArrayType).storage === "Array"
      ? inline
        ? mayShortenArrays(ctx, inline)
        : named !== undefined && mayShortenArrays(ctx, named.node, named.module)
      : false;
  lowerLoop(
    ctx,
    carried,
    () => {
      const more = b.compare("lt", ctx.value(counter), n);
      return stop ? b.logical("and", more, b.unary("not", ctx.value(stop))) : more;
    },
    () => {
      const step = ctx.value(counter);
      // `reduceRight`, `findLast` and `findLastIndex` visit the elements from the last.
      const backward =
        method === "reduceRight" || method === "findLast" || method === "findLastIndex";
      const i = backward ? b.binary("sub", b.binary("sub", n, b.constant(1)), step) : step;
      // A callback that may shorten the array: the elements it removed are not visited.
      if (shortens) {
        const present = b.compare("lt", i, b.emit("length", [array!], ["number"]).results[0]!);
        lowerIf(ctx, present, [() => (visit(i), []), () => []]);
      } else visit(i);
      ctx.assign(counter, b.binary("add", step, b.constant(1)));
    },
  );
  function visit(i: Value): void {
    const bound: Value[] = [];
    if (reducing) bound.push(ctx.value(accumulator!));
    if (array) {
      const read = b.emit("index", [array, i], [element!]);
      if (SKIP_HOLES.has(method)) ctx.visits.push({ read, method, at: node });
      bound.push(read.results[0]!);
    } else bound.push(b.constant(0));
    bound.push(i);
    // The array itself, the callback's last parameter (`(x, i, arr) => x * arr.length`);
    // `from`'s callback takes no third.
    if (array && method !== "from") bound.push(array);
    const produced = inline
      ? inlineCallback(ctx, inline, bound, undefined, [], method === "forEach")
      : valueOrNothing(
          callFunctionArg(
            ctx,
            at,
            (callback as { value: FunctionArg }).value,
            bound.slice(0, (callback as { arity: number }).arity),
            (callback as { name: string }).name,
          ),
        );
    ctx.at(node);
    if (reducing) {
      ctx.assign(accumulator!, expectType(ctx, at, produced!, initial!.type));
    } else if (onElement) {
      if (!produced) return ctx.fail(at, typeMismatch.callbackOfMustReturnValue(method));
      onElement(bound[0]!, produced, i);
    } else if (method === "map" || method === "from") {
      if (!produced) return ctx.fail(at, typeMismatch.callbackOfMustReturnValue(method));
      resultSlot.value ??= produced;
      if (!sameType(produced.type, resultSlot.value.type))
        ctx.fail(at, typeMismatch.callbackMustReturnOneType());
      b.emit("setIndex", [outPlaceholder, i, produced], []);
    }
  }
  const loopAt = b.region.ops.length - 1;
  if (reducing) return ctx.value(accumulator!);
  if (method !== "map" && method !== "from") return b.constant(0);
  // Now the element type is known: allocate the result before the loop.
  const elementType: Type = resultSlot.value!.type;
  // `Float64Array.prototype.map` returns a Float64Array (numbers only), as in JavaScript.
  // So does `Float64Array.from(…, f)` (`storage`).
  const typed =
    method === "map" && array && (array.type as ArrayType).storage !== "Array"
      ? (array.type as ArrayType).storage
      : storage;
  if (typed !== "Array" && elementType !== "number")
    return ctx.fail(
      at,
      typeMismatch.callbackOfTypedArray(
        method === "map" ? "a typed array's '.map'" : `'${typed}.from'`,
      ),
    );
  const outType: ArrayType =
    typed !== "Array"
      ? { kind: "array", storage: typed, element: "number" }
      : { kind: "array", storage: "Array", element: elementType };
  // `map`'s result keeps a hole where its callback removed the element before its turn.
  const holes = method === "map" && shortens ? { holes: true } : {};
  const alloc = b.emit("alloc", [n], [outType], holes, [], method === "map" ? "mapped" : "array");
  if (holes.holes) mapWithHoles(ctx, node, alloc.results[0]!);
  b.region.ops.splice(b.region.ops.indexOf(alloc), 1);
  b.region.ops.splice(loopAt, 0, alloc);
  substituteValues(b.region, new Map([[outPlaceholder.id, alloc.results[0]!]]));
  return alloc.results[0]!;
}

/** Throws JavaScript's TypeError for `reduce` without an initial value when `n` is 0. */
function throwIfEmpty(ctx: LowerContext, node: CallExpression, n: Value): void {
  const COUNT = "nabla$count";
  const check = `if (${COUNT} === 0) throw new TypeError("Reduce of empty array with no initial value");`;
  ctx.inScope(() => {
    ctx.declare(COUNT, "const", "number", n);
    ctx.lowerStatements(parsedAt(check, node));
  });
}

/**
 * JavaScript's ToLength, which `Array.from({ length })` applies: `{ length: xs.length / 2 }`
 * makes floor(n) elements, a negative length or NaN none (`n > 0` is false for NaN).
 */
function toLength(ctx: LowerContext, length: Value): Value {
  const b = ctx.builder;
  const known = b.constantOf(length);
  if (known !== undefined && Number.isInteger(known) && known >= 0) return length;
  const positive = b.compare("gt", length, b.constant(0));
  return b.select(positive, b.math("floor", [length]), b.constant(0), "length");
}

/** `Array.from({ length: n }, (_, i) => …)` and `Array.from(xs)`. */
export function lowerArrayFrom(
  ctx: LowerContext,
  node: CallExpression,
  /** `Array.from`'s plain array, or `Float64Array.from`'s and `Float32Array.from`'s. */
  storage: ArrayType["storage"] = "Array",
): Value {
  const args = node.arguments as Expression[];
  const source = args[0];
  if (
    source?.type === "ObjectExpression" &&
    source.properties.length === 1 &&
    source.properties[0]!.type === "Property" &&
    source.properties[0]!.key.type === "Identifier" &&
    source.properties[0]!.key.name === "length"
  ) {
    const length = ctx.lowerExpression(source.properties[0]!.value as Expression);
    if (length.type !== "number") ctx.fail(source, typeMismatch.lengthMustBeNumber());
    if (args.length !== 2) return ctx.fail(node, callArity.arrayFromLengthNNeeds());
    ctx.at(source);
    const n = toLength(ctx, length);
    return lowerIteration(ctx, node, undefined, "from", n, undefined, undefined, [], storage);
  }
  if (source && (args.length === 1 || args.length === 2)) {
    // `Array.from(gen(…))`: the values the generator yields.
    const mapped = args[1];
    const taken =
      mapped && (() => ctx.types.inferred?.parameterTypeOf(mapped.start, mapped.end, 0));
    const lowered =
      collectGenerator(ctx, source, node, taken) ??
      valuesIteratorArray(ctx, source) ??
      ctx.lowerExpression(source);
    // `Array.from(set)`, `Array.from(map, ([k, v]) => …)`: what a spread of it gives.
    const v = isMap(lowered.type) || isSet(lowered.type) ? iterated(ctx, lowered, source) : lowered;
    if (isArray(v.type) && args.length === 2) {
      // `Array.from(xs, (v, i) => …)`: a plain array of what the callback makes of each element.
      return lowerIteration(ctx, node, v, "from", undefined, undefined, undefined, [], storage);
    }
    if (isArray(v.type)) {
      ctx.at(node);
      if (storage !== "Array" && v.type.element !== "number")
        return ctx.fail(source, typeMismatch.typedFromTakesNumbers(storage));
      return copyArray(ctx, v, { kind: "array", storage, element: v.type.element });
    }
  }
  return ctx.fail(node, unsupportedSyntax.arrayFromIsSupportedAs());
}

/**
 * The range `args[first]` and `args[first + 1]` give `slice` or `fill` of an array of length
 * `n`, as JavaScript reads them: truncated (NaN as 0), counted from the end when negative,
 * clamped to [0, n]; the whole array where left out.
 */
function relativeRange(
  ctx: LowerContext,
  node: CallExpression,
  args: Expression[],
  first: number,
  n: Value,
  notNumber: (got: string) => Message,
): { start: Value; end: Value } {
  const b = ctx.builder;
  const bound = (k: number, fallback: Value) => {
    if (!args[k]) return fallback;
    const v = ctx.lowerExpression(args[k]!);
    if (v.type !== "number") ctx.fail(args[k]!, notNumber(typeText(v.type)));
    ctx.at(node);
    return relativePosition(ctx, v, n);
  };
  return { start: bound(first, b.constant(0)), end: bound(first + 1, n) };
}

/** The property name of a non-computed member callee (`xs.map`), if it is one. */
export function methodName(callee: Node): string | undefined {
  const m = callee as MemberExpression;
  if (m.type !== "MemberExpression" || m.computed || m.property.type !== "Identifier")
    return undefined;
  return m.property.name;
}

/** Whether the object of a member callee is a value (not Math, console or an import). */
export function isValueReceiver(ctx: LowerContext, callee: MemberExpression): boolean {
  const object = callee.object;
  if (object.type === "MemberExpression" && isNamespacePath(ctx, object)) return false;
  // `geo.Particle.at(…)`: a static method of a class imported through a namespace.
  if (object.type === "MemberExpression" && isNamespacePath(ctx, object.object)) {
    const path = calleePath(object);
    if (path && classNamed(ctx.program, ctx.module, path)) return false;
  }
  if (object.type !== "Identifier") return object.type !== "Super";
  if (ctx.scope.lookup(object.name)) return true;
  // A module-level array or object (declared here or imported), not a namespace or a class.
  const name = object.name;
  if (ctx.module.functions.has(name) || ctx.module.types.has(name)) return false;
  if (ctx.module.constants.has(name)) return !ctx.module.constants.get(name)!.holdsFunction;
  const binding = ctx.module.imports.get(name);
  return (
    binding !== undefined &&
    binding.imported !== "*" &&
    ctx.program.resolveLocalConstant(ctx.module, name) !== undefined
  );
}

/** A call's result, or undefined for a call returning nothing. */
function valueOrNothing(v: Value): Value | undefined {
  return v.type === "void" ? undefined : v;
}

/** How many parameters a function value takes (a choice: the most either option takes). */
function arityOf(fn: StaticFunction): number {
  if (fn.kind === "dynamic") return fn.type.params.length;
  if (fn.kind === "choice") return Math.max(...fn.options.map(arityOf));
  if (fn.kind === "absent") return 0;
  return (fn.kind === "named" ? fn.symbol.node : fn.target.node).params.length;
}

/**
 * Whether `node` is `<receiver>.fill(…)` of `new Array(n)` or `Array(n)` written without a
 * type argument, whose element type nothing gave (lowerNew's default, numbers).
 */
function untypedNewArray(ctx: LowerContext, node: CallExpression): boolean {
  if (node.callee.type !== "MemberExpression") return false;
  const receiver = node.callee.object;
  if (receiver.type !== "NewExpression" && !isArrayCall(ctx, receiver)) return false;
  const made = receiver as { callee: Expression; start: number; end: number };
  if (made.callee.type !== "Identifier" || made.callee.name !== "Array") return false;
  if ((made as { typeArguments?: unknown }).typeArguments) return false;
  const checked = ctx.types.inferred?.expectedTypeOf(made.start, made.end);
  return !(checked && isArray(checked));
}

/**
 * A reduction's start value. A literal (`{}`, `[]`) is typed as the accumulator TypeScript
 * gives the call (`reduce<Record<string, number>>(…, {})`, or a typed callback parameter), not
 * by itself: the group-by idiom's `{}` is a record to fill, not an object without fields.
 */
function reduceStart(ctx: LowerContext, node: CallExpression, start: Expression): Value {
  if (start.type !== "ObjectExpression" && start.type !== "ArrayExpression")
    return ctx.lowerExpression(start);
  // The call's own result (reduce<U>'s U), not the type its place expects of it.
  const accumulator = ctx.types.inferred?.callAt(node.start, node.end)?.result;
  return lowerValue(ctx, start, accumulator === "opaque" ? undefined : accumulator);
}
