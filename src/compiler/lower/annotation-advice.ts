import type { Node, TSTypeAnnotation } from "oxc-parser";
import { walk, type SourceModule } from "../parse/module.js";
import type { Advice } from "../diagnostics/messages/unknown-type.js";
import { annotationText } from "../types/signature.js";

// What to annotate when nabla cannot tell a value's type (NABLA103), from how the code uses
// the value: `x * k` makes `k` a number, `p[i] * x` makes `p` a number[], `s.w` an object
// whose interface only the user can name. Advice that would be wrong is not given: a
// `for…of` variable cannot be annotated (its array can), and an annotation already there is
// not asked for again.

const ARITHMETIC = new Set(["+", "-", "*", "/", "%", "**", "<", "<=", ">", ">="]);
const COMPOUND = new Set(["+=", "-=", "*=", "/=", "%=", "**="]);

/** The annotation the uses of `node` (an expression) suggest: `number`, `number[]`…, or "object". */
function guessAt(node: Node, ancestors: readonly Node[], depth = 0): string | undefined {
  const parent = ancestors[ancestors.length - 1];
  if (!parent || depth > 3) return undefined;
  const above = ancestors.slice(0, -1);
  switch (parent.type) {
    case "MemberExpression": {
      if (parent.object !== node) return undefined;
      if (parent.computed) {
        const element = guessAt(parent, above, depth + 1);
        return element && element !== "object" ? `${element}[]` : undefined;
      }
      const field = parent.property.type === "Identifier" ? parent.property.name : "";
      return field === "length" ? undefined : "object";
    }
    case "TSNonNullExpression":
    case "ParenthesizedExpression":
      return guessAt(parent, above, depth);
    case "BinaryExpression":
      return ARITHMETIC.has(parent.operator) ? "number" : undefined;
    case "UnaryExpression":
      return parent.operator === "-" || parent.operator === "+" ? "number" : undefined;
    case "AssignmentExpression":
      return COMPOUND.has(parent.operator) ? "number" : undefined;
    case "CallExpression": {
      const callee = parent.callee;
      const isMath =
        callee.type === "MemberExpression" &&
        callee.object.type === "Identifier" &&
        callee.object.name === "Math";
      return isMath && parent.arguments.includes(node as never) ? "number" : undefined;
    }
    default:
      return undefined;
  }
}

/** Reads of `name` under `root` (not declarations, not property keys), with their ancestors. */
function usesOf(root: Node, name: string): [Node, readonly Node[]][] {
  const found: [Node, readonly Node[]][] = [];
  walk(root, (n, ancestors) => {
    if (n.type !== "Identifier" || n.name !== name) return;
    const parent = ancestors[ancestors.length - 1];
    if (parent?.type === "MemberExpression" && parent.property === n && !parent.computed) return;
    if (parent?.type === "Property" && parent.key === n && !parent.shorthand) return;
    if (parent?.type === "VariableDeclarator" && parent.id === n) return;
    found.push([n, [...ancestors]]);
  });
  return found;
}

/**
 * The annotation the uses of `name` under `root` agree on (the most specific found), "object"
 * for an object whose interface only the user can name, or undefined. A `for…of` over the
 * value makes it an array of what the loop variable is used as.
 */
export function guessFromUses(root: Node, name: string): string | undefined {
  const guesses = new Set<string>();
  for (const [use, ancestors] of usesOf(root, name)) {
    const parent = ancestors[ancestors.length - 1];
    if (parent?.type === "ForOfStatement" && parent.right === use) {
      const loopVariable = forOfVariable(parent);
      const element = loopVariable && guessFromUses(parent.body, loopVariable);
      if (element && element !== "object") guesses.add(`${element}[]`);
      continue;
    }
    const guess = guessAt(use, ancestors);
    if (guess) guesses.add(guess);
  }
  // Uses that disagree (a number here, an array there) are not a guess worth giving.
  return guesses.size === 1 ? [...guesses][0] : undefined;
}

function forOfVariable(loop: Node & { type: "ForOfStatement" }): string | undefined {
  const left = loop.left;
  if (left.type !== "VariableDeclaration") return undefined;
  const id = left.declarations[0]?.id;
  return id?.type === "Identifier" ? id.name : undefined;
}

function adviceFrom(guess: string | undefined): Advice {
  if (guess === "object") return { kind: "object" };
  return guess ? { kind: "annotate", type: guess } : { kind: "unknown" };
}

/** For a parameter of `fn` nabla cannot type. */
export function parameterAdvice(fn: Node, name: string): Advice {
  return adviceFrom(guessFromUses(fn, name));
}

/** An annotation nabla could not read, which the advice must not ask for again. */
function written(module: SourceModule, id: Node): Advice | undefined {
  const annotation = (id as { typeAnnotation?: TSTypeAnnotation | null }).typeAnnotation;
  const text = annotationText(module.text, annotation);
  return text === undefined ? undefined : { kind: "annotated", text };
}

/**
 * For a module variable of `module` nabla cannot type, declared by `declarator`: a class
 * nabla does not differentiate through (`new Map()`) gets no annotation advice at all.
 */
export function moduleVariableAdvice(module: SourceModule, declarator: Node, name: string): Advice {
  if (declarator.type === "VariableDeclarator") {
    const annotated = written(module, declarator.id);
    if (annotated) return annotated;
    const init = declarator.init;
    if (init?.type === "NewExpression" && init.callee.type === "Identifier")
      return { kind: "unsupportedClass", className: init.callee.name };
  }
  return adviceFrom(guessFromUses(module.program, name));
}

/**
 * For a variable of an enclosing function nabla cannot type, declared at `declaration` (its
 * declarator, or a parameter) in `module`. A `for…of` variable cannot be annotated: the
 * advice is about its array; a destructured one, about the value it is taken from.
 */
export function capturedVariableAdvice(
  module: SourceModule,
  declaration: Node,
  name: string,
): Advice {
  const id = declaration.type === "VariableDeclarator" ? declaration.id : declaration;
  if (id.type === "ObjectPattern" || id.type === "ArrayPattern") return { kind: "pattern" };
  const annotated = written(module, id);
  if (annotated) return annotated;
  let chain: readonly Node[] = [];
  walk(module.program, (n, ancestors) => {
    if (n === declaration) chain = [...ancestors];
    return chain.length === 0;
  });
  const declarationNode = chain[chain.length - 1];
  const loop = chain[chain.length - 2];
  if (
    declaration.type === "VariableDeclarator" &&
    declarationNode?.type === "VariableDeclaration" &&
    loop?.type === "ForOfStatement" &&
    loop.left === declarationNode
  ) {
    const element = guessFromUses(loop.body, name);
    const type = element && element !== "object" ? `${element}[]` : undefined;
    return {
      kind: "loopArray",
      ...(loop.right.type === "Identifier" ? { array: loop.right.name } : {}),
      ...(type ? { type } : {}),
    };
  }
  const scope = [...chain].reverse().find((n) => n.type.includes("Function")) ?? module.program;
  return adviceFrom(guessFromUses(scope, name));
}
