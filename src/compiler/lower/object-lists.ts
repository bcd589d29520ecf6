import type {
  CallExpression,
  Expression,
  ForOfStatement,
  Node,
  Statement,
  VariableDeclaration,
} from "oxc-parser";
import type { ArrayType, Value } from "../ir/types.js";
import { sameType } from "../ir/type-system.js";
import { closureCapture } from "../diagnostics/messages/index.js";
import type { LowerContext, Slot } from "./context.js";
import { lowerIf } from "./merge.js";
import {
  callbackBody,
  declareElements,
  inlinableCallback,
  listLength,
  listNamed,
  numberLiteral,
  syntheticIdentifier,
} from "./list-elements.js";

// A local `const` array of object literals holding functions written in them, as lists of
// strategies or terms are written: `const terms: Term[] = [{ name: "quad", eval: (x) => k * x
// * x }, { name: "lin", eval(x) { return 2 * x; } }]`. An object holding a function written
// in a literal is tracked by its IR value (object-closures.ts) and cannot be stored in an
// array, so the array has no run-time value: each element is declared as a local object of its
// own (named `terms[0]`, `terms[1]`…, names no source can write), and the array's uses are
// written in terms of them, one copy per element (lists written in place are short):
// - `for (const t of terms) body` runs the body once per element, in order, `t` that element;
//   `continue` ends the element's copy, `break` leaves them all;
// - `terms.forEach((t, i) => …)`, `terms.reduce((acc, t, i) => …, x)` and `terms.map((t, i) =>
//   …)` with a callback written at the call, the callback's body once per element;
// - `terms[i].eval(x)` and `terms[i].name`, the member of the element the index picks (a
//   chain of conditionals; past the end, JavaScript's TypeError when it runs);
// - `terms.length` is the number of elements.
// Any other use is refused by lowerIdentifier; nothing else can reach the array to change it.

/** The element names of the local object lists, by the list's slot. */
const LISTS = new WeakMap<Slot, string[]>();
/** A function member of each list's elements, by the list's slot, for messages. */
const MEMBERS = new WeakMap<Slot, string>();

/** Lists longer than this are not copied per element (NABLA112, as any array of such objects). */
const MOST_ELEMENTS = 16;

/** The name of a function written in the object literal `node` (arrow, method), if any. */
function writtenFunction(node: Node): string | undefined {
  if (node.type !== "ObjectExpression") return undefined;
  for (const p of node.properties) {
    if (p.type !== "Property" || p.key.type !== "Identifier") continue;
    if (
      p.method ||
      p.value.type === "ArrowFunctionExpression" ||
      p.value.type === "FunctionExpression"
    )
      return p.key.name;
  }
  return undefined;
}

/**
 * `const name = [{ … }, { … }]` of object literals, some holding functions written in them:
 * its elements declared (by `declare`, the lowering of a `const` declaration) and the list
 * recorded. False if `init` is not such a list.
 */
export function declareObjectList(
  ctx: LowerContext,
  name: string,
  init: Node | null | undefined,
  declare: (declaration: VariableDeclaration) => void,
): boolean {
  if (init?.type !== "ArrayExpression") return false;
  const elements = init.elements;
  if (elements.length === 0 || elements.length > MOST_ELEMENTS) return false;
  if (!elements.every((e) => e?.type === "ObjectExpression")) return false;
  const member = elements.map((e) => writtenFunction(e!)).find((m) => m !== undefined);
  if (member === undefined) return false;
  const names = declareElements(elements as Node[], name, declare);
  const slot = ctx.declareFunctionName(name);
  LISTS.set(slot, names);
  MEMBERS.set(slot, member);
  return true;
}

/** The element names of the object list `node` names, if it names one. */
function objectListOf(ctx: LowerContext, node: Node): string[] | undefined {
  return listNamed(ctx, node, LISTS);
}

/**
 * When `slot` is an object list's (its name is no value: see lowerIdentifier), a function
 * member of its elements (`eval`), for the message; else undefined.
 */
export function objectListMember(slot: Slot): string | undefined {
  return MEMBERS.get(slot);
}

const span = (at: Node) => ({ start: at.start, end: at.end });

const identifier = syntheticIdentifier;
const literal = numberLiteral;

function constant(pattern: Node, init: Expression, at: Node, kind = "const"): Statement {
  return {
    type: "VariableDeclaration",
    kind,
    declare: false,
    declarations: [{ type: "VariableDeclarator", id: pattern, init, definite: false, ...span(at) }],
    ...span(at),
  } as unknown as Statement;
}

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);
const LOOPS = new Set([
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
]);

/**
 * `body` with the `break`s and `continue`s that would leave or go on with the loop over the
 * list (unlabelled, outside loops, switches and functions of its own, or naming the loop's
 * `label`) aimed at `exit` (the block of all the copies) and `next` (the block of this
 * element's copy).
 */
function aimed(body: Node, exit: string, next: string, label: string | undefined): Node {
  const ours = (n: { label?: { name: string } | null }, unlabelled: boolean) =>
    n.label ? n.label.name === label : unlabelled;
  const visit = (node: unknown, inLoop: boolean, inSwitch: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, inLoop, inSwitch));
    if (!node || typeof node !== "object") return node;
    const n = node as Node & { label?: { name: string } | null };
    if (FUNCTIONS.has(n.type)) return n;
    if (n.type === "BreakStatement" && ours(n, !inLoop && !inSwitch))
      return { ...n, label: identifier(exit, n) };
    if (n.type === "ContinueStatement" && ours(n, !inLoop))
      return { type: "BreakStatement", label: identifier(next, n), ...span(n) };
    const loop = inLoop || LOOPS.has(n.type);
    const choice = inSwitch || n.type === "SwitchStatement";
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(n))
      copy[key] = key === "type" ? value : visit(value, loop, choice);
    return copy;
  };
  return visit(body, false, false) as Node;
}

function labelled(label: string, body: Statement[], at: Node): Statement {
  return {
    type: "LabeledStatement",
    label: identifier(label, at),
    body: { type: "BlockStatement", body, ...span(at) },
    ...span(at),
  } as unknown as Statement;
}

/**
 * `for (const t of terms) body` (labelled `label`, if it is): the body once per element, `t`
 * that element, declared as the loop declares it.
 */
export function forOfObjectList(
  ctx: LowerContext,
  node: ForOfStatement,
  label?: string,
): Statement | undefined {
  const names = objectListOf(ctx, node.right);
  if (!names) return undefined;
  const left = node.left;
  if (left.type !== "VariableDeclaration" || left.declarations.length !== 1) return undefined;
  const pattern = left.declarations[0]!.id;
  const base = `${(node.right as { name: string }).name}[loop@${node.start}]`;
  const exit = `${base}.exit`;
  const copies = names.map((name, k) => {
    const next = `${base}.next${k}`;
    const body = aimed(node.body, exit, next, label) as Statement;
    const element = constant(pattern, identifier(name, node.right), node, left.kind);
    return labelled(next, [element, body], node);
  });
  return labelled(exit, copies, node);
}

/** The methods of an object list lowered as copies of their callback's body. */
const COPYING_METHODS = new Set(["forEach", "reduce", "map"]);

/**
 * `terms.forEach((t, i) => …)`, `terms.reduce((acc, t, i) => …, x)`, `terms.map((t, i) => …)`
 * of an object list, with a callback written at the call: the callback's body once per
 * element, in a scope of its own with its parameters declared. Undefined when `node` is no
 * such call.
 */
export function lowerObjectListMethod(ctx: LowerContext, node: CallExpression): Value | undefined {
  const callee = node.callee;
  if (callee.type !== "MemberExpression" || callee.computed) return undefined;
  if (callee.property.type !== "Identifier") return undefined;
  const names = objectListOf(ctx, callee.object);
  if (!names) return undefined;
  const method = callee.property.name;
  if (!COPYING_METHODS.has(method)) return undefined;
  const folds = method === "reduce";
  const callback = inlinableCallback(node, folds, false);
  if (!callback) return ctx.fail(node, closureCapture.objectListMethodForm(method, folds));
  const initial = node.arguments[1];
  const at = callee.object;
  let accumulator = folds ? ctx.lowerExpression(initial as Expression) : undefined;
  const results: Value[] = [];
  names.forEach((name, k) => {
    ctx.inScope(() => {
      const params = callback.params;
      const [accParam, elementParam, indexParam] = folds
        ? params
        : [undefined, params[0], params[1]];
      const body: Statement[] = [];
      if (elementParam) body.push(constant(elementParam, identifier(name, at), node));
      if (indexParam) body.push(constant(indexParam, literal(k, at), node));
      if (accParam?.type === "Identifier")
        ctx.declare(accParam.name, "let", accumulator!.type, accumulator!);
      else if (accParam)
        return ctx.fail(accParam, closureCapture.objectListMethodForm(method, folds));
      const { statements, result } = callbackBody(callback);
      ctx.lowerStatements([...body, ...statements]);
      const value = result ? ctx.lowerExpression(result) : undefined;
      if (folds && value) accumulator = value;
      else if (folds) return ctx.fail(callback, closureCapture.objectListMethodForm(method, folds));
      if (method === "map") {
        if (!value) return ctx.fail(callback, closureCapture.objectListMethodForm(method, folds));
        results.push(value);
      }
      return undefined;
    });
  });
  ctx.at(node);
  if (folds) return accumulator!;
  if (method === "forEach") return ctx.builder.newValue("void");
  const first = results[0]!;
  const uniform = results.every((r) => sameType(r.type, first.type));
  const type: ArrayType = uniform
    ? { kind: "array", storage: "Array", element: first.type }
    : { kind: "array", storage: "Array", element: "opaque", elements: results.map((r) => r.type) };
  return ctx.builder.emit("literal", results, [type]).results[0]!;
}

/**
 * `terms[i].eval(x)`, `terms[i].name`, `terms[2].name`: the member of the element the index
 * picks, by a chain of branches over the elements; past the end, JavaScript's TypeError.
 * `member` is the member expression whose object is `terms[i]`, `whole` the call of it or the
 * member itself. Undefined when `member` is no such expression.
 */
export function lowerPickedMember(
  ctx: LowerContext,
  member: Node,
  whole: Expression,
): Value | undefined {
  if (member.type !== "MemberExpression") return undefined;
  let element: Node = member.object;
  while (element.type === "ParenthesizedExpression" || element.type === "TSNonNullExpression")
    element = element.expression;
  if (element.type !== "MemberExpression" || !element.computed) return undefined;
  const names = objectListOf(ctx, element.object);
  if (!names) return undefined;
  const at = element;
  // The same expression with the element named in place of `terms[i]`.
  const withElement = (name: string): Expression => {
    const picked = { ...member, object: identifier(name, at) };
    return (whole === member ? picked : { ...whole, callee: picked }) as Expression;
  };
  const index = element.property;
  if (index.type === "Literal" && typeof index.value === "number") {
    const name = names[index.value];
    return name === undefined ? undefined : ctx.lowerExpression(withElement(name));
  }
  const i = ctx.lowerExpression(index as Expression);
  let type: Value["type"] | undefined;
  const field = member.computed ? "" : (member.property as { name?: string }).name;
  const chain = (k: number): Value[] => {
    ctx.at(whole);
    if (k === names.length) {
      ctx.builder.emit(
        "extern",
        [
          ctx.builder.constant("TypeError"),
          ctx.builder.constant(`Cannot read properties of undefined (reading '${field}')`),
        ],
        ["void"],
        { callee: "nabla:raise" },
      );
      // The branch never continues; its result still needs a value.
      return [ctx.builder.emit("const", [], [type ?? "void"], {}, [], "").results[0]!];
    }
    const picks = ctx.builder.compare("eq", i, ctx.builder.constant(k));
    return lowerIf(ctx, picks, [
      () => {
        const v = ctx.lowerExpression(withElement(names[k]!));
        type ??= v.type;
        return [v];
      },
      () => chain(k + 1),
    ]);
  };
  return chain(0)[0];
}

/** `terms[0]` (a number written): that element, the local object declared for it. */
export function lowerListedElement(ctx: LowerContext, node: Node): Value | undefined {
  if (node.type !== "MemberExpression" || !node.computed) return undefined;
  const index = node.property;
  if (index.type !== "Literal" || typeof index.value !== "number") return undefined;
  const name = objectListOf(ctx, node.object)?.[index.value];
  return name === undefined ? undefined : ctx.lowerExpression(identifier(name, node));
}

/** `terms.length`: the number of elements. */
export function lengthOfObjectList(ctx: LowerContext, node: Node): Value | undefined {
  return listLength(ctx, node, LISTS);
}
