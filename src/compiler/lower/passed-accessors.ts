import type { Node } from "oxc-parser";
import { closureCapture, unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { FunctionTypeInfo, Value } from "../ir/types.js";
import { isObject } from "../ir/type-system.js";
import { walk } from "../parse/module.js";
import type { Binding, StaticFunction } from "../resolve/targets.js";
import { signatureOf, type ParamInfo } from "../types/signature.js";
import {
  enterModule,
  Scope,
  type AccessorObject,
  type FunctionArg,
  type LiteralAccessor,
  type LowerContext,
} from "./context.js";
import { carriedValues, liftLiteralAccessor } from "./function-values.js";

// An object literal with methods or getters passed to a function of the program (`measure({
// w, h, area() { return this.w * this.h; } })`, `fit(model)` of a model a factory built).
// Where the literal is written its accessors run inlined (literal-accessors.ts); the callee
// sees only a parameter. So the call is specialized for them, as for an object holding arrow
// functions (object-closures.ts): each accessor is lifted to a function of its own, capturing
// `this` (the object) and what it reads where the literal was written, and bound in the callee
// as `param.name`, where a call of the method or a read of the getter runs it. The object's
// other accessors a method reaches through `this` (`this.area` in `ratio()`) are bound in it
// the same way, as `this.area`.

/** The bindings a call makes for the objects with accessors it passes, and the values they carry. */
export function accessorArgumentBindings(
  ctx: LowerContext,
  passed: readonly { param: ParamInfo; value: Value }[],
): { bindings: Binding[]; carried: Value[] } {
  const bindings: Binding[] = [];
  const carried: Value[] = [];
  for (const { param, value } of passed) {
    const entry = ctx.literalAccessors.get(value);
    if (!entry || param.rest) continue;
    for (const accessor of entry.accessors.values()) {
      const lifted = liftAccessor(ctx, value, entry, accessor, []);
      bindings.push({ name: `${param.name}.${accessor.key}`, fn: lifted.fn });
      carried.push(...lifted.values);
    }
  }
  return { bindings, carried };
}

/**
 * Where, among the values a function value carries, are objects its lifted accessors capture
 * as `this` (the first capture of each, theirs and their bound functions'): a call passes
 * them, which is no escape of the object (checkAccessorObjectUses, checkBoundObjectUses).
 */
export function thisPositions(fn: StaticFunction): number[] {
  if (fn.kind === "choice") {
    const found: number[] = [];
    let offset = 1;
    for (const option of fn.options) {
      for (const at of thisPositions(option)) found.push(offset + at);
      offset += carriedValues(option, "").length;
    }
    return found;
  }
  if (fn.kind !== "lambda") return [];
  const found = fn.target.literalAccessor ? [0] : [];
  let offset = fn.target.captures.length;
  for (const b of fn.target.bindings ?? []) {
    for (const at of thisPositions(b.fn)) found.push(offset + at);
    offset += carriedValues(b.fn, b.name).length;
  }
  return found;
}

/** Whether a function bound to an object's field is a getter of its literal: read, it runs. */
export function isBoundGetter(arg: FunctionArg): boolean {
  return arg.fn.kind === "lambda" && arg.fn.target.literalAccessor === "getter";
}

function liftAccessor(
  ctx: LowerContext,
  object: Value,
  entry: AccessorObject,
  accessor: LiteralAccessor,
  visiting: string[],
): FunctionArg {
  const { node, key } = accessor;
  if (visiting.includes(key))
    return ctx.fail(node, unsupportedSyntax.localFunctionCallsItselfRecursive(key));
  const through = reachedThroughThis(node.body, entry);
  if (!through) return ctx.fail(node, closureCapture.passedMethodUsesThis(key));
  const reached = through.map((name) => ({
    binding: { name: `this.${name}` },
    arg: liftAccessor(ctx, object, entry, entry.accessors.get(name)!, [...visiting, key]),
  }));
  const saved = ctx.scope;
  const caller = { module: ctx.module, types: ctx.types };
  ctx.scope = new Scope(entry.scope);
  // Lifted as code of the module the literal is written in.
  enterModule(ctx, entry);
  try {
    ctx.declare("this", "const", object.type, object);
    const typeName = isObject(object.type) ? object.type.name : "object";
    return liftLiteralAccessor(ctx, node, ctx.scope, contextualOf(ctx, accessor), typeName, {
      accessors: reached.map((r) => ({
        binding: { name: r.binding.name, fn: r.arg.fn },
        values: r.arg.values,
      })),
      getter: accessor.getter,
    });
  } finally {
    ctx.scope = saved;
    enterModule(ctx, caller);
  }
}

/** The parameter and result types of an accessor: as written, else as TypeScript infers them. */
function contextualOf(ctx: LowerContext, accessor: LiteralAccessor): FunctionTypeInfo | undefined {
  const { node } = accessor;
  const inferred = ctx.types.inferred?.functionTypeAt(node.start);
  const signature = signatureOf(node, ctx.types);
  const result =
    signature.result ?? inferred?.result ?? ctx.types.inferred?.returnTypeOf(node.start, node.end);
  return {
    params: signature.params.map((p, i) => p.type ?? inferred?.params[i]),
    result,
    text: accessor.key,
  };
}

/**
 * The object's accessors `body` reads or calls through `this` (not in nested functions), or
 * undefined if it uses `this` otherwise (`helper(this)`, `const { area } = this`), which the
 * lifted function could not follow.
 */
function reachedThroughThis(
  body: Node | null | undefined,
  entry: AccessorObject,
): string[] | undefined {
  const names: string[] = [];
  let bare = false;
  if (!body) return names;
  walk(body, (n, ancestors) => {
    if (n.type === "FunctionExpression" || n.type === "FunctionDeclaration") return false;
    if (n.type !== "ThisExpression") return true;
    const parent = ancestors[ancestors.length - 1];
    if (
      parent?.type !== "MemberExpression" ||
      parent.object !== n ||
      parent.computed ||
      parent.property.type !== "Identifier"
    ) {
      bare = true;
      return false;
    }
    const name = parent.property.name;
    if (entry.accessors.has(name) && !names.includes(name)) names.push(name);
    return false;
  });
  return bare ? undefined : names;
}
