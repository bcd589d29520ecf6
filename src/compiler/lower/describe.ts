import type { Node } from "oxc-parser";
import { typeText } from "../ir/type-system.js";
import type { Type } from "../ir/types.js";

// Human names for syntax, used in "X is not supported" diagnostics.

const NAMES: Record<string, string> = {
  ArrayExpression: "an array literal",
  ObjectExpression: "an object literal",
  TemplateLiteral: "a template literal",
  TaggedTemplateExpression: "a tagged template",
  NewExpression: "a 'new' expression",
  ThisExpression: "'this'",
  ClassExpression: "a class expression",
  ClassDeclaration: "a class declaration",
  SequenceExpression: "the comma operator",
  AwaitExpression: "'await'",
  YieldExpression: "'yield'",
  ArrowFunctionExpression: "a nested arrow function",
  FunctionExpression: "a nested function expression",
  FunctionDeclaration: "a nested function declaration reading its own 'this'",
  SpreadElement: "a spread argument",
  MemberExpression: "a property access",
  ComputedMemberExpression: "an element access ('a[i]')",
  ChainExpression: "optional chaining",
  SwitchStatement: "a 'switch' statement",
  ThrowStatement: "a 'throw' statement",
  TryStatement: "a 'try' statement",
  ForInStatement: "a 'for…in' loop",
  ForOfStatement: "a 'for…of' loop",
  WithStatement: "a 'with' statement",
  DebuggerStatement: "a 'debugger' statement",
  ObjectPattern: "object destructuring",
  ArrayPattern: "array destructuring",
  AssignmentPattern: "a default parameter value",
  RestElement: "a rest parameter",
  RegExpLiteral: "a regular expression",
  Literal: "this literal",
  MetaProperty: "'import.meta'",
  ImportExpression: "a dynamic import",
  Super: "'super'",
};

export function describeNode(node: Node): string {
  if (node.type === "Literal") {
    if (node.value === null) return "'null'";
    if (typeof node.value === "bigint") return "a bigint literal";
    if (node.value instanceof RegExp || "regex" in node) return "a regular expression";
  }
  if (node.type === "MemberExpression" && node.computed) return NAMES.ComputedMemberExpression!;
  return NAMES[node.type] ?? `'${node.type}' syntax`;
}

/** The kind of syntax `node` is, for the help of NABLA101 (diagnostics/messages/syntax-help.ts). */
export function syntaxKind(node: Node): string {
  if (node.type === "Literal") {
    if (node.value === null) return "null";
    if (typeof node.value === "bigint") return "bigint";
    if (node.value instanceof RegExp || "regex" in node) return "regex";
  }
  return node.type;
}

/** "a number", "a Float64Array", "a Params" — how messages name a value's type. */
export function article(t: Type): string {
  const text = typeText(t);
  return /^[aeiouAEIOU]/.test(text) ? `an ${text}` : `a ${text}`;
}
