import { parseSync, type CallExpression, type Node, type Statement } from "oxc-parser";
import { callArity, unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { ArrayType, Op, Value } from "../ir/types.js";
import { walk, type FunctionLike } from "../parse/module.js";
import type { LowerContext } from "./context.js";
import { countedLoop } from "./ir-loops.js";

// `xs.sort((a, b) => a.cost - b.cost)` (in place) and `xs.toSorted(cmp)` (a sorted copy):
// a bottom-up merge sort, lowered from the TypeScript below with the comparator inlined at
// its call. It moves the same elements to the same places as JavaScript's sort (both are
// stable, for a comparator that orders consistently), so derivatives follow each value to
// where it lands; the comparisons decide branches and have none. O(n log n) comparisons.
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
        if (i < mid && (j >= hi || ${COMPARE}(${ARRAY}[i], ${ARRAY}[j]) <= 0)) {
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
