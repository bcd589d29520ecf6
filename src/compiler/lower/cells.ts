import type { Node } from "oxc-parser";
import { walk, type FunctionLike } from "../parse/module.js";
import { assignedNames } from "./assigned-names.js";
import { CALLING_METHODS } from "../resolve/function-values.js";
import { freeNames } from "../resolve/captures.js";

// Variables a closure assigns and the function passes on (`let peak = 0; rk4(f, y0, { onStep:
// (t, y) => { peak = Math.max(peak, y[0]); } })`). A closure passed to another function is
// lowered as a function of its own, given what it captures as arguments, so an assignment in
// it would not reach the enclosing function's variable. Such a variable is held in a
// one-element array instead, a cell, which the enclosing function and the closure read and
// write (LowerContext.value and assign): memory both see, differentiated as any array.
// Closures called where they are written (`const add = (v) => { total += v; }; add(1)`) and
// callbacks of array methods, inlined, assign the variable itself and need no cell; a local
// function calling itself is not inlined, and needs cells as a closure passed on does.
// A function written in an object literal takes what it captures where the literal is, which
// may be before the call that runs it (`const opts = { f: (x) => x * k }; k = 2; solve(opts)`):
// a variable it reads that the function assigns anywhere is held in a cell too, so it reads the
// value the variable has when it runs.

const FUNCTIONS = new Set(["FunctionExpression", "ArrowFunctionExpression"]);

/** The names of variables and parameters of `fn` that a closure it passes on assigns. */
export function celledNames(fn: FunctionLike): Set<string> {
  const body = fn.body;
  if (!body) return new Set();
  const declared = letNames(body);
  for (const p of fn.params) bindingNames(p, declared);
  const celled = new Set<string>();
  if (declared.size === 0) return celled;
  let assigned: Set<string> | undefined;
  walk(body, (node, ancestors) => {
    if (!FUNCTIONS.has(node.type) && node.type !== "FunctionDeclaration") return true;
    if (escapes(node, ancestors, body) || callsItself(node as FunctionLike, ancestors)) {
      const inner = (node as FunctionLike).body;
      for (const name of assignedNames(inner ? [inner] : [], true))
        if (declared.has(name)) celled.add(name);
    }
    if (holder(node, ancestors).parent?.type === "Property") {
      assigned ??= assignedNames([body], true);
      for (const name of freeNames(node as FunctionLike))
        if (declared.has(name) && assigned.has(name)) celled.add(name);
    }
    return true;
  });
  return celled;
}

/** The `let` and `var` names declared in `body`, outside nested functions. */
function letNames(body: Node): Set<string> {
  const names = new Set<string>();
  walk(body, (node) => {
    if (FUNCTIONS.has(node.type) || node.type === "FunctionDeclaration") return false;
    if (node.type === "VariableDeclaration" && node.kind !== "const")
      for (const d of node.declarations) bindingNames(d.id, names);
    return true;
  });
  return names;
}

/** The names a parameter or declaration binds (`x`, `[a, b]`, `{ s, k = 1 }`, `...rest`). */
function bindingNames(target: Node, names: Set<string>): void {
  walk(target, (node, ancestors) => {
    const parent = ancestors[ancestors.length - 1];
    // A default's expression and a property's key are not bound.
    if (parent?.type === "AssignmentPattern" && parent.right === node) return false;
    if (parent?.type === "Property" && parent.key === node && parent.computed) return false;
    if (
      node.type === "Identifier" &&
      !(parent?.type === "Property" && parent.key === node && !parent.shorthand)
    )
      names.add(node.name);
    return !node.type.startsWith("TS");
  });
}

/**
 * Whether a function written at `node` may run after the statement that writes it has handed
 * it on: an argument of a call that is not an inlined array method, a field of an object, an
 * element of an array, or a `const` used other than by calling it.
 */
function escapes(written: Node, ancestors: readonly Node[], body: Node): boolean {
  const { node, parent } = holder(written, ancestors);
  if (!parent) return false;
  switch (parent.type) {
    case "CallExpression":
      if (parent.callee === node) return false;
      return !isInlinedCallback(parent.callee);
    case "Property":
    case "ArrayExpression":
    case "ReturnStatement":
      return true;
    case "VariableDeclarator":
      return parent.id.type === "Identifier" && usedOtherThanCalled(parent.id.name, body);
    default:
      return false;
  }
}

/**
 * Whether a local function calls itself by its name: it runs as a function of its own, given
 * what it captures (calls.ts, callRecursiveLocal), as a function passed on is.
 */
function callsItself(fn: FunctionLike, ancestors: readonly Node[]): boolean {
  const parent = ancestors[ancestors.length - 1];
  const name =
    fn.type === "FunctionDeclaration"
      ? fn.id?.name
      : parent?.type === "VariableDeclarator" && parent.id.type === "Identifier"
        ? parent.id.name
        : undefined;
  return name !== undefined && freeNames(fn).includes(name);
}

/**
 * The expression a function written at `node` is the value of, past the choices and wrappers
 * around it (`onStep: verbose ? (t) => … : undefined`), and what holds that expression.
 */
function holder(node: Node, ancestors: readonly Node[]): { node: Node; parent: Node | undefined } {
  let i = ancestors.length - 1;
  while (i >= 0 && CHOICES.has(ancestors[i]!.type)) {
    const parent = ancestors[i]!;
    // The test of a choice is not its value.
    if (parent.type === "ConditionalExpression" && parent.test === node) break;
    node = parent;
    i--;
  }
  return { node, parent: ancestors[i] };
}

const CHOICES = new Set([
  "ConditionalExpression",
  "LogicalExpression",
  "ParenthesizedExpression",
  "TSAsExpression",
  "TSSatisfiesExpression",
  "TSNonNullExpression",
]);

/** A method call that calls its callback there and lets it go (an array method, `then`). */
function isInlinedCallback(callee: Node): boolean {
  return (
    callee.type === "MemberExpression" &&
    !callee.computed &&
    callee.property.type === "Identifier" &&
    CALLING_METHODS.has(callee.property.name)
  );
}

/** Whether `name` appears in `body` other than as the callee of a call. */
function usedOtherThanCalled(name: string, body: Node): boolean {
  let used = false;
  walk(body, (node, ancestors) => {
    if (used) return false;
    if (node.type !== "Identifier" || node.name !== name) return true;
    const parent = ancestors[ancestors.length - 1];
    if (parent?.type === "CallExpression" && parent.callee === node) return true;
    if (parent?.type === "VariableDeclarator" && parent.id === node) return true;
    used = true;
    return false;
  });
  return used;
}
