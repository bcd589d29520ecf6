import { parseSync, type CallExpression, type Node, type Statement } from "oxc-parser";
import { callArity, unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { ArrayType, Op, Value } from "../ir/types.js";
import { walk, type FunctionLike } from "../parse/module.js";
import type { LowerContext, Slot } from "./context.js";
import { positionAt } from "../diagnostics/format.js";
import { countedLoop } from "./ir-loops.js";
import { copyArray } from "./members.js";

// `xs.sort((a, b) => a.cost - b.cost)` (in place) and `xs.toSorted(cmp)` (a sorted copy).
// A comparator the generated code can call is given to the engine's own sort (sortByEngine),
// so each element goes where JavaScript puts it whatever the comparator. Otherwise (it assigns
// variables, calls local functions, reads `this`) and without a comparator: a bottom-up merge
// sort, lowered from the TypeScript below with the comparator inlined at its call. It moves
// the same elements to the same places as JavaScript's sort (both are stable, for a comparator
// that orders consistently), so derivatives follow each value to where it lands; the
// comparisons decide branches and have none. O(n log n) comparisons.
// Without a comparator JavaScript's comparison is the default one, which this file writes out:
// an Array compares its elements as text (`[10, 9, 1].sort()` is `[1, 10, 9]`: numbers and
// booleans by their `${x}`, strings by `<`, both comparing UTF-16 code units), a typed array by value
// (NaN last, -0 before 0). Objects (all '[object Object]') are refused.

const ARRAY = "nabla$sorted";
const COMPARE = "nabla$compare";

/** The merge sort, of `nabla$sorted` in place, by `nabla$compare`. */
const MERGE_SORT = `{
  const n = ${ARRAY}.length;
  const merged = ${ARRAY}.slice();
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = lo + width < n ? lo + width : n;
      const hi = lo + 2 * width < n ? lo + 2 * width : n;
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k++) {
        // A NaN from the comparator counts as 0, as in JavaScript's sort.
        if (i < mid && (j >= hi || !(${COMPARE}(${ARRAY}[i], ${ARRAY}[j]) > 0))) {
          merged[k] = ${ARRAY}[i];
          i++;
        } else {
          merged[k] = ${ARRAY}[j];
          j++;
        }
      }
    }
    for (let k = 0; k < n; k++) ${ARRAY}[k] = merged[k];
  }
}`;

/** `array.sort(cmp)` or `array.toSorted(cmp)`; the sorted array. */
export function lowerSort(
  ctx: LowerContext,
  node: CallExpression,
  array: Value,
  method: "sort" | "toSorted",
): Value {
  const type = array.type as ArrayType;
  const [given, ...rest] = node.arguments;
  if (rest.length > 0) return ctx.fail(node, callArity.takesArgumentHere(method, "0 to 1", "s"));
  const compare = given ?? defaultOrder(type, node);
  if (!compare) return ctx.fail(node.callee, unsupportedSyntax.sortWithoutComparator(method));
  if (compare.type === "SpreadElement")
    return ctx.fail(compare, unsupportedSyntax.spreadArgumentsAreNotSupported());
  if (type.elements) return ctx.fail(node, unsupportedSyntax.sortOfTuple(method));
  const b = ctx.builder;
  ctx.at(node);
  const engine = given && engineComparator(ctx, compare);
  if (engine) return sortByEngine(ctx, node, array, method, engine);
  let sorted = array;
  if (method === "toSorted") {
    const n = b.emit("length", [array], ["number"]).results[0]!;
    const plain: ArrayType = { kind: "array", storage: type.storage, element: type.element };
    sorted = b.emit("alloc", [n], [plain], {}, [], "sorted").results[0]!;
    countedLoop(ctx, n, (k) => {
      const v = b.emit("index", [array, k], [type.element]).results[0]!;
      b.emit("setIndex", [sorted, k, v], []);
    });
  }
  const statements = parsedAt(MERGE_SORT, node);
  const written = ctx.scope;
  ctx.inScope(() => {
    ctx.declare(ARRAY, "const", sorted.type, sorted);
    if (compare.type === "ArrowFunctionExpression" || compare.type === "FunctionExpression") {
      // Inlined at each call, in the scope it was written in (as a local function is).
      ctx.closures.set(ctx.declareFunctionName(COMPARE), {
        node: compare as FunctionLike,
        scope: written,
      });
    } else if (compare.type === "Identifier" || compare.type === "MemberExpression") {
      // A function named by the user (`byScore`, `orders.up`): called as written.
      replaceCallee(statements, COMPARE, compare);
    } else {
      ctx.fail(compare, unsupportedSyntax.sortComparatorForm(method));
    }
    ctx.lowerStatements(statements);
  });
  // The merge's writes (placed at the call) stay within the arrays (lower/hole-checks.ts).
  const own = (op: Op) => op.loc.start === node.start && op.loc.end === node.end;
  ctx.elementWrites.splice(0, Infinity, ...ctx.elementWrites.filter((op) => !own(op)));
  return sorted;
}

/**
 * The comparator as the emitted code names it: a module-level function, or an arrow's text
 * (`written`) made into a function of the local variables it reads (`reads`, their values).
 */
interface EngineComparator {
  comparator: string;
  written?: number[];
  reads?: string[];
  values?: Value[];
}

/**
 * A comparator the engine's sort can call from the generated code: a function of the module by
 * name, or an arrow written at the call that reads local variables' values but assigns none
 * and reads no local function, `this` or private name (it is hoisted to the module, as
 * withDerivative's are, taking those values). Others are inlined into the merge sort.
 */
function engineComparator(ctx: LowerContext, compare: Node): EngineComparator | undefined {
  if (compare.type === "Identifier") {
    const local = ctx.scope.lookup(compare.name);
    // `const byScore = (a, b) => …` in the function: that arrow.
    const closure = local && ctx.closures.get(local);
    if (closure) return engineComparator(ctx, closure.node as Node);
    const declared = ctx.program.resolveLocalFunction(ctx.module, compare.name);
    return !local && declared ? { comparator: compare.name } : undefined;
  }
  // `orders.byWeight`, `byScore` of the module: the expression, read where the module is.
  const named = compare.type === "MemberExpression";
  if (!named && compare.type !== "ArrowFunctionExpression" && compare.type !== "FunctionExpression")
    return undefined;
  // Its own names: parameters and the variables it declares.
  const own = new Set<string>();
  if (!named)
    for (const p of (compare as FunctionLike).params) if (p.type === "Identifier") own.add(p.name);
  walk(compare, (n) => {
    if (n.type === "VariableDeclarator" && n.id.type === "Identifier") own.add(n.id.name);
    return true;
  });
  const reads = new Set<string>();
  let outOfReach = false;
  walk(compare, (n, ancestors) => {
    if (n.type === "ThisExpression" || n.type === "PrivateIdentifier") outOfReach = true;
    if (n.type === "AssignmentExpression" || n.type === "UpdateExpression") {
      const target = n.type === "UpdateExpression" ? n.argument : n.left;
      if (target.type !== "Identifier" || !own.has(target.name)) outOfReach = true;
    }
    if (n.type !== "Identifier" || own.has(n.name) || !ctx.scope.lookup(n.name)) return true;
    const parent = ancestors[ancestors.length - 1];
    const isKey =
      parent &&
      ((parent.type === "MemberExpression" && parent.property === n && !parent.computed) ||
        (parent.type === "Property" && parent.key === n && !parent.computed));
    if (!isKey) reads.add(n.name);
    return true;
  });
  const slots = [...reads].map((name) => ctx.scope.lookup(name)!);
  // A local function, a value nabla carries without knowing it (a function value), an object
  // holding functions written in it (`options.compare`): nabla calls those itself.
  const callsLocals = (slot: Slot) => {
    const value = ctx.env.get(slot);
    return (
      ctx.closures.has(slot) ||
      slot.type === "opaque" ||
      (value !== undefined && ctx.boundObjects.has(value))
    );
  };
  if (outOfReach || (named && slots.length > 0) || slots.some(callsLocals)) return undefined;
  const { line, column } = positionAt(ctx.module.text, compare.start);
  return {
    comparator: `$sortCompare_${line}_${column}`,
    written: [compare.start, compare.end],
    reads: [...reads],
    values: slots.map((slot) => ctx.value(slot)),
  };
}

/**
 * `array.sort(cmp)` / `array.toSorted(cmp)` in the order the engine's own sort chooses: it
 * sorts the elements' indices calling the comparator on the elements they name
 * (runtime/sort-order.ts), so a comparator inconsistent on ties (`a.k > b.k ? 1 : -1`) or
 * returning NaN places each element where JavaScript's sort does. The elements then move there
 * by index, with their derivatives; the order has none.
 */
function sortByEngine(
  ctx: LowerContext,
  node: CallExpression,
  array: Value,
  method: "sort" | "toSorted",
  engine: EngineComparator,
): Value {
  const b = ctx.builder;
  const type = array.type as ArrayType;
  const plain: ArrayType = { kind: "array", storage: type.storage, element: type.element };
  const n = b.emit("length", [array], ["number"]).results[0]!;
  const source = method === "toSorted" ? array : copyArray(ctx, array, plain);
  const target =
    method === "toSorted" ? b.emit("alloc", [n], [plain], {}, [], "sorted").results[0]! : array;
  const orderType: ArrayType = { kind: "array", storage: "Int32Array", element: "number" };
  const { values = [], ...names } = engine;
  const order = b.emit(
    "nondiff",
    [source, ...values],
    [orderType],
    { callee: "nabla:sortOrder", ...names },
    [],
    "order",
  ).results[0]!;
  countedLoop(ctx, n, (k) => {
    const from = b.emit("index", [order, k], ["number"]).results[0]!;
    const v = b.emit("index", [source, from], [type.element]).results[0]!;
    b.emit("setIndex", [target, k, v], []);
  });
  // The writes (placed at the call) stay within the arrays (lower/hole-checks.ts).
  const own = (op: Op) => op.loc.start === node.start && op.loc.end === node.end;
  ctx.elementWrites.splice(0, Infinity, ...ctx.elementWrites.filter((op) => !own(op)));
  return target;
}

/** JavaScript's comparison for a sort without comparator of `type`, placed at `at`. */
function defaultOrder(type: ArrayType, at: Node): Node | undefined {
  const source =
    type.element === "string"
      ? TEXT_ORDER
      : type.element !== "number" && type.element !== "boolean"
        ? undefined
        : type.storage === "Array"
          ? primitiveTextOrder(type.element)
          : TYPED_ARRAY_ORDER;
  if (source === undefined) return undefined;
  const [statement] = parsedAt(source, at);
  return (statement as { expression: Node }).expression;
}

/** Strings, by UTF-16 code units. */
const TEXT_ORDER = "(a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);";

/** Numbers or booleans in an Array: by their text, as `Array.prototype.sort` compares them. */
const primitiveTextOrder = (element: "number" | "boolean") => `(a: ${element}, b: ${element}) => {
  const x = \`\${a}\`;
  const y = \`\${b}\`;
  return x < y ? -1 : x > y ? 1 : 0;
};`;

/** Numbers in a typed array: by value, NaN last and -0 before 0 (`%TypedArray%.prototype.sort`). */
const TYPED_ARRAY_ORDER = `(a: number, b: number) =>
  a !== a ? (b !== b ? 0 : 1)
  : b !== b ? -1
  : a < b ? -1
  : a > b ? 1
  : a === 0 && 1 / a !== 1 / b ? (1 / a < 0 ? -1 : 1)
  : 0;`;

/** The statements of `text`, every node placed at `at` (what messages and maps point to). */
export function parsedAt(text: string, at: Node): Statement[] {
  const body = parseSync("sort.ts", text, { sourceType: "module", preserveParens: false }).program
    .body as Statement[];
  for (const statement of body)
    walk(statement, (n) => {
      n.start = at.start;
      n.end = at.end;
    });
  return body;
}

/** Makes `callee` the callee of every call of `name` in `nodes`. */
function replaceCallee(nodes: Node[], name: string, callee: Node): void {
  for (const node of nodes)
    walk(node, (n) => {
      if (n.type === "CallExpression" && n.callee.type === "Identifier" && n.callee.name === name)
        (n as { callee: Node }).callee = callee;
    });
}
