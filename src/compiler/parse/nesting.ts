import type { Message } from "../diagnostics/messages/message.js";
import { parseError } from "../diagnostics/messages/index.js";
import { isMainThread, resourceLimits } from "node:worker_threads";
import { visitorKeys, type Node } from "oxc-parser";

// Limits on how deeply source code may nest, checked without recursion so that they hold
// whatever the input. Two limits:
//
// - Before parsing (`lexicalNestingProblem`): the native parser recurses once per level of
//   nesting, up to about 2 KB of stack each, and overflowing it kills the process with no
//   message. A scan of the text bounds the levels from above (brackets, and operators and
//   keywords that nest without brackets) and refuses text that could exhaust half the stack
//   of the thread compiling it.
// - After parsing (`syntacticNestingProblem`): V8 parses a module on the thread that imports
//   it, with about 1 MB of stack, and fails (a bare "Maximum call stack size exceeded") at
//   some 1,000–12,000 levels depending on the construct. The weights below are the share of
//   V8's stack each construct takes, measured on Node 20 (nested `x * (x * …)` fail at 1,281
//   levels, arrow functions at 1,037, blocks at 3,135, `else if` at 6,065, unary minus at
//   12,120); code past 80% of that is refused, so `check` and `run` agree. Parentheses the
//   output does not need, left-associative chains (`a + b + c`, `a.b().c`) and types do
//   not count: they never reach V8 as nesting.

/** The most V8 nesting units (one `x * (…)` level each) a module may have: 80% of V8's reach. */
export const MAX_NESTING = 1024;

/** A problem found by the checks, in the shape of a parse problem. */
export interface NestingProblem extends Message {
  start: number;
  end: number;
}

/** Stack bytes of the thread running the compiler: a worker's limit, or Linux's default 8 MB. */
function stackBytes(): number {
  const mb = isMainThread ? 8 : (resourceLimits.stackSizeMb ?? 4);
  return mb * 1024 * 1024;
}

/** Levels the native parser may enter here: 2 KB each, within half the thread's stack. */
export function lexicalLimit(): number {
  return Math.floor(stackBytes() / 4096);
}

// Operators and keywords after which the parser recurses without a bracket.
const CHAIN_WORDS = new Set([
  "if",
  "else",
  "for",
  "while",
  "do",
  "with",
  "typeof",
  "void",
  "delete",
  "await",
  "yield",
  "new",
  "extends",
  "keyof",
  "infer",
  "case",
]);
// Words after which an expression starts (so `/` begins a regular expression, `-` is unary).
const EXPRESSION_WORDS = new Set([...CHAIN_WORDS, "return", "throw", "in", "of", "instanceof"]);
const ASSIGNMENTS = new Set(["=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>="]);
const WORD = /[\p{ID_Continue}$\u200c\u200d]/u;

/**
 * An upper bound of the parser's recursion depth in `text`, if it passes `limit`: where it
 * does. Per bracket level it counts one, plus the chain tokens since the last `;` or `,` of
 * that level (a statement after a closing `}` starts afresh unless it is an `else`).
 */
export function lexicalNestingProblem(text: string, limit: number): NestingProblem | undefined {
  // Open brackets: their kind (`(`, `[`, `{`, `${` of a template) and their chain counts.
  const kinds: string[] = ["top"];
  const chains: number[] = [0];
  let depth = 1;
  let operand = false;
  let afterBlock = false;
  const chain = (at: number) => {
    chains[chains.length - 1]!++;
    depth++;
    return depth > limit ? at : -1;
  };
  const resetChain = () => {
    depth -= chains[chains.length - 1]!;
    chains[chains.length - 1] = 0;
  };
  const problem = (at: number): NestingProblem => ({
    ...parseError.nestedTooDeeplyToParse(limit.toLocaleString("en-US")),
    start: at,
    end: at + 1,
  });
  /** Skips template text from `i` (after a backtick or a `}` closing `${`); where it stops. */
  const template = (i: number): { next: number; opened: boolean } => {
    while (i < text.length) {
      const c = text[i]!;
      if (c === "\\") i += 2;
      else if (c === "`") return { next: i + 1, opened: false };
      else if (c === "$" && text[i + 1] === "{") return { next: i + 2, opened: true };
      else i++;
    }
    return { next: i, opened: false };
  };
  const open = (kind: string, at: number): number => {
    kinds.push(kind);
    chains.push(0);
    depth++;
    return depth > limit ? at : -1;
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
      continue;
    }
    const word = WORD.test(c)
      ? /^[\p{ID_Continue}$\u200c\u200d]+/u.exec(text.slice(i, i + 256))
      : null;
    if (afterBlock) {
      afterBlock = false;
      if (!word || word[0] !== "else") resetChain();
    }
    let at = -1;
    if (word) {
      const w = word[0];
      i += w.length;
      if (CHAIN_WORDS.has(w)) at = chain(i - w.length);
      operand = !EXPRESSION_WORDS.has(w);
    } else if (c === '"' || c === "'") {
      i++;
      while (i < text.length && text[i] !== c && text[i] !== "\n") i += text[i] === "\\" ? 2 : 1;
      i++;
      operand = true;
    } else if (c === "`") {
      const t = template(i + 1);
      i = t.next;
      if (t.opened) at = open("${", i - 2);
      operand = !t.opened;
    } else if (c === "/" && !operand) {
      // A regular expression: up to the closing slash outside a character class, and flags.
      let inClass = false;
      i++;
      while (i < text.length && text[i] !== "\n" && (inClass || text[i] !== "/")) {
        if (text[i] === "[") inClass = true;
        else if (text[i] === "]") inClass = false;
        i += text[i] === "\\" ? 2 : 1;
      }
      i++;
      operand = true;
    } else if (c === "(" || c === "[" || c === "{") {
      at = open(c, i);
      i++;
      operand = false;
    } else if (c === ")" || c === "]" || c === "}") {
      i++;
      if (kinds.length > 1) {
        const kind = kinds.pop()!;
        depth -= 1 + chains.pop()!;
        if (kind === "${") {
          const t = template(i);
          i = t.next;
          if (t.opened) at = open("${", i - 2);
        } else if (c === "}") afterBlock = true;
      }
      operand = true;
    } else if (c === ";" || c === ",") {
      i++;
      resetChain();
      operand = false;
    } else {
      // An operator: the longest of up to four characters that reads as one.
      const op =
        /^(?:>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.|\*\*|\+\+|--|[+\-*/%&|^]=|<<|>>|.)/su.exec(
          text.slice(i, i + 4),
        )![0];
      const nests =
        op === "=>" ||
        op === "**" ||
        op === "?" ||
        op === "<" ||
        ASSIGNMENTS.has(op) ||
        (!operand &&
          (op === "-" || op === "+" || op === "!" || op === "~" || op === "++" || op === "--"));
      if (nests) at = chain(i);
      i += op.length;
      // A postfix `!`, `++`, `--` or a closing `>` leaves an operand; other operators expect one.
      operand = operand && (op === "!" || op === "++" || op === "--" || op === ">" || op === "?.");
      if (/^[\p{L}\p{N}_$]/u.test(op)) operand = true;
    }
    if (at >= 0) return problem(at);
  }
  return undefined;
}

// The node types whose nesting is iterative in V8 when they continue a chain (see below).
const CHAINING = new Set(["MemberExpression", "CallExpression", "ChainExpression"]);
const STATEMENTS = new Set([
  "BlockStatement",
  "IfStatement",
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
  "ExpressionStatement",
  "ReturnStatement",
  "ThrowStatement",
  "VariableDeclaration",
  "VariableDeclarator",
  "LabeledStatement",
  "TryStatement",
  "CatchClause",
  "SwitchStatement",
  "SwitchCase",
]);
const FUNCTIONS = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
  "ClassDeclaration",
  "ClassExpression",
]);
const PREFIX = new Set(["UnaryExpression", "UpdateExpression", "AwaitExpression", "SpreadElement"]);
// TypeScript wrappers of expressions, which the output drops.
const ERASED = new Set([
  "Program",
  "ExportNamedDeclaration",
  "ExportDefaultDeclaration",
  "TSAsExpression",
  "TSSatisfiesExpression",
  "TSNonNullExpression",
  "TSTypeAssertion",
  "TSInstantiationExpression",
]);
// Keys holding types, and declarations that are only types: stripped from the output.
const TYPE_KEYS = new Set([
  "typeAnnotation",
  "returnType",
  "typeParameters",
  "typeArguments",
  "superTypeArguments",
  "implements",
]);

const BINARY_PRECEDENCE: Record<string, number> = {
  "??": 1,
  "||": 2,
  "&&": 3,
  "|": 4,
  "^": 5,
  "&": 6,
  "==": 7,
  "!=": 7,
  "===": 7,
  "!==": 7,
  "<": 8,
  ">": 8,
  "<=": 8,
  ">=": 8,
  instanceof: 8,
  in: 8,
  "<<": 9,
  ">>": 9,
  ">>>": 9,
  "+": 10,
  "-": 10,
  "*": 11,
  "/": 11,
  "%": 11,
  "**": 12,
};

function weight(node: Node): number {
  if (ERASED.has(node.type)) return 0;
  if (STATEMENTS.has(node.type)) return 0.4;
  if (FUNCTIONS.has(node.type)) return 1.25;
  if (node.type === "ConditionalExpression") return 0.5;
  if (PREFIX.has(node.type)) return 0.125;
  if (node.type === "Property") return 0.5;
  return 1;
}

/** Whether V8 parses `child`, found under `key` of `parent`, in a loop rather than by recursing. */
function continuesChain(parent: Node, key: string, child: Node): boolean {
  if (
    (parent.type === "BinaryExpression" || parent.type === "LogicalExpression") &&
    key === "left"
  ) {
    if (child.type !== "BinaryExpression" && child.type !== "LogicalExpression") return false;
    const outer = BINARY_PRECEDENCE[parent.operator] ?? 0;
    const inner = BINARY_PRECEDENCE[child.operator] ?? 0;
    return parent.operator === "**" ? false : inner >= outer;
  }
  if (
    (parent.type === "MemberExpression" && key === "object") ||
    (parent.type === "CallExpression" && key === "callee")
  )
    return CHAINING.has(child.type);
  if (parent.type === "TaggedTemplateExpression" && key === "tag") return CHAINING.has(child.type);
  return false;
}

function isTypeOnly(node: Node): boolean {
  return (
    node.type === "TSInterfaceDeclaration" ||
    node.type === "TSTypeAliasDeclaration" ||
    node.type === "TSDeclareFunction" ||
    (node.type.startsWith("TS") &&
      !ERASED.has(node.type) &&
      node.type !== "TSEnumDeclaration" &&
      node.type !== "TSModuleDeclaration")
  );
}

/**
 * The first node whose nesting, in V8's units (see the top of the file), passes
 * {@link MAX_NESTING}; walked with an explicit stack.
 */
export function syntacticNestingProblem(program: Node): NestingProblem | undefined {
  const nodes: Node[] = [program];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > MAX_NESTING) {
      return {
        ...parseError.nestedTooDeeplyToLoad(Math.round(MAX_NESTING / 0.8).toLocaleString("en-US")),
        start: node.start,
        end: node.end,
      };
    }
    for (const key of visitorKeys[node.type] ?? []) {
      if (TYPE_KEYS.has(key)) continue;
      const value = (node as unknown as Record<string, unknown>)[key];
      const children = Array.isArray(value) ? value : [value];
      for (const child of children) {
        if (!child || typeof child !== "object" || !("type" in child)) continue;
        const c = child as Node;
        if (isTypeOnly(c)) continue;
        nodes.push(c);
        depths.push(continuesChain(node, key, c) ? depth : depth + weight(c));
      }
    }
  }
  return undefined;
}
