import { badOperatorUse, callArity, typeMismatch } from "../diagnostics/messages/index.js";
import type { CallExpression, Node } from "oxc-parser";
import { typeResolver } from "../types/resolver.js";
import { signatureOf, type ParamInfo } from "../types/signature.js";
import type { DifferentiationTarget } from "../resolve/targets.js";
import { symbolKey } from "../ir/function-key.js";
import { assignable, isObject } from "../ir/type-system.js";
import type { FunctionKey, Type, Value } from "../ir/types.js";
import { leadingJSDoc, walk } from "../parse/module.js";
import type { FunctionSymbol } from "../parse/program.js";
import type { LowerContext } from "./context.js";
import { returnedFunctionType } from "./returned-functions.js";
import { article } from "./describe.js";
import { thisResult } from "./this-result.js";

// A call of a function of the program: finding the callee from the call's text, checking the
// arguments against its signature, and the `call` op, with what the driver needs to lower the
// callee next (lower/calls.ts decides which kind of call a call expression is).

/** Whether a function declaration is tagged `/** @checkpoint *⁠/`. */
export function taggedCheckpoint(symbol: FunctionSymbol): boolean {
  const mod = symbol.module;
  let method: Node | undefined;
  if (symbol.thisType) {
    walk(mod.program, (n) => {
      if (n.type === "MethodDefinition" && n.value === symbol.node) method = n;
      return method === undefined;
    });
  }
  const declaration =
    method ??
    (symbol.node.type === "FunctionDeclaration"
      ? symbol.node
      : mod.program.body.find((s) => {
          const declaration = s.type === "ExportNamedDeclaration" ? s.declaration : s;
          return (
            declaration?.type === "VariableDeclaration" &&
            declaration.declarations.some((d) => d.init === symbol.node)
          );
        }));
  const doc = declaration && leadingJSDoc(mod, declaration);
  return doc !== undefined && /@checkpoint\b/.test(doc);
}

export function checkArity(
  ctx: LowerContext,
  node: Node,
  name: string,
  expected: number,
  got: number,
): void {
  if (got !== expected) {
    ctx.fail(node, callArity.takesArgumentsGot(name, expected, expected === 1 ? "" : "s", got));
  }
}

/** Each argument must fit its parameter's declared type (unannotated ones take anything). */
export function checkArgumentTypes(
  ctx: LowerContext,
  node: Node,
  name: string,
  params: readonly { name: string; type: Type | undefined }[],
  args: Value[],
  argNodes: readonly Node[],
): void {
  params.forEach((p, i) => {
    const arg = args[i];
    if (p.type && arg && !assignable(arg.type, p.type)) {
      ctx.fail(
        argNodes[i] ?? node,
        typeMismatch.parameterOfIsGot(p.name, name, article(p.type), article(arg.type)),
      );
    }
  });
}

/** How a call of a specialization differs from a plain call. */
export interface Specialized {
  key: FunctionKey;
  target: DifferentiationTarget;
  params: ParamInfo[];
  arity: number;
  argNodes: Node[];
  /** The result type, when the specialization knows it better (a generic's instantiation). */
  result?: Type;
}

/** Emits a call of `symbol` with lowered arguments, checking their number and types. */
export function emitUserCall(
  ctx: LowerContext,
  node: CallExpression | Node,
  symbol: FunctionSymbol,
  path: string,
  args: Value[],
  receiver?: Value,
  checkpoint = false,
  specialized?: Specialized,
): Value {
  const resolver = typeResolver(ctx.program, symbol.module, symbol.typeArguments);
  const signature = signatureOf(symbol.node, resolver);
  const params = specialized?.params ?? signature.params;
  const argNodes = specialized?.argNodes ?? (node.type === "CallExpression" ? node.arguments : []);
  ctx.at(node);
  // Optional and default parameters are reported when the callee is lowered.
  const fixedArity = params.every((p) => !p.unsupported);
  // Trailing parameters with defaults or marked `?` may be omitted: they get undefined. A
  // specialization for function values checks its arguments itself (calls.ts); one of a
  // generic function takes the arguments as written.
  const asWritten = !specialized || !specialized.target.bindings;
  let required = params.length;
  while (required > 0 && params[required - 1]!.omissible) required--;
  if (asWritten && fixedArity && !(args.length >= required && args.length < params.length))
    checkArity(ctx, node, symbol.name, params.length, args.length);
  if (asWritten && fixedArity) args = [...args, ...omitted(ctx, params.slice(args.length))];
  checkArgumentTypes(ctx, node, path, params, args, argNodes);
  const key = specialized?.key ?? symbolKey(symbol);
  ctx.calls.push({
    key,
    symbol,
    loc: ctx.loc(node),
    ...(specialized ? { target: specialized.target } : {}),
  });
  // A method returning `this` gives back its receiver, typed as the caller has it: a
  // subclass's override (`accrue(): this` of Savings) called on the base type returns the
  // base's type, as the base's method does, so the dispatch's branches join.
  const self = thisResult(symbol.node, symbol.thisType);
  // A dispatched override declaring a narrower class (class-dispatch.ts): typed as the call.
  const dispatched = ctx.dispatchedResult;
  const declared = signature.result;
  const asWrittenResult =
    receiver &&
    dispatched?.start === node.start &&
    dispatched.end === node.end &&
    declared &&
    isObject(declared) &&
    declared.classKey
      ? dispatched.type
      : undefined;
  const result =
    specialized?.result ??
    symbol.constructs ??
    (self && receiver ? receiver.type : undefined) ??
    asWrittenResult ??
    signature.result ??
    self ??
    returnedFunctionType(ctx, symbol, resolver, node) ??
    "number";
  const operands = receiver ? [receiver, ...args] : args;
  const checkpointed = checkpoint || taggedCheckpoint(symbol);
  if (checkpointed && symbol.name === "default") {
    return ctx.fail(node, badOperatorUse.anonymousDefaultExportedFunctionCannot());
  }
  const attrs = {
    callee: key,
    calleeName: path,
    ...(ctx.dispatching ? { via: ctx.dispatching } : {}),
    ...(receiver ? { method: path } : {}),
    ...(receiver && ctx.superOf ? { superOf: ctx.superOf } : {}),
    ...(symbol.getter ? { getter: true } : {}),
    ...(symbol.setter ? { setter: true } : {}),
    ...(params.some((p) => p.rest) ? { restParameter: true } : {}),
    ...(checkpointed ? { checkpoint: true } : {}),
  };
  if (result === "void") {
    ctx.builder.emit("call", operands, [], attrs);
    return ctx.builder.newValue("void");
  }
  return ctx.builder.emit("call", operands, [result], attrs).results[0]!;
}

/** The undefined arguments of omitted parameters (a default of the callee then applies). */
export function omitted(
  ctx: LowerContext,
  params: readonly Pick<ParamInfo, "name" | "type">[],
): Value[] {
  return params.map((p) => {
    const type = p.type ?? "number";
    return ctx.builder.emit("const", [], [type], {}, [], p.name).results[0]!;
  });
}

/** `f`, `ns.f` or `console.log` as a dotted path; undefined for computed callees. */
export function calleePath(node: Node): string | undefined {
  if (node.type === "Identifier") return node.name;
  if (node.type === "MemberExpression" && !node.computed && node.property.type === "Identifier") {
    const object = calleePath(node.object);
    return object === undefined ? undefined : `${object}.${node.property.name}`;
  }
  return undefined;
}

export function resolveCallee(ctx: LowerContext, path: string): FunctionSymbol | undefined {
  const parts = path.split(".");
  if (parts.length === 1) return ctx.program.resolveLocalFunction(ctx.module, parts[0]!);
  // `ns.f`, `shapes.area.f`: through namespaces, imported or re-exported.
  let target = ctx.program.namespaceModule(ctx.module, parts[0]!);
  for (const part of parts.slice(1, -1))
    target = target && ctx.program.exportedNamespace(target, part);
  return target && ctx.program.resolveExport(target, parts[parts.length - 1]!);
}

/** Whether `node` (`shapes.area`) names a namespace of modules, not a value of the code. */
export function isNamespacePath(ctx: LowerContext, node: Node): boolean {
  const parts = calleePath(node)?.split(".");
  if (!parts || ctx.scope.lookup(parts[0]!)) return false;
  let target = ctx.program.namespaceModule(ctx.module, parts[0]!);
  for (const part of parts.slice(1)) target = target && ctx.program.exportedNamespace(target, part);
  return target !== undefined;
}
