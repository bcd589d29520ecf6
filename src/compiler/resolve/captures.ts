import type { Node } from "oxc-parser";
import type { Type } from "../ir/types.js";
import { walk, type FunctionLike } from "../parse/module.js";
import { annotationType } from "../types/signature.js";
import { inferType, type GlobalTest } from "../types/infer-type.js";
import type { FunctionTypeInfo } from "../ir/types.js";
import { THIS_CAPTURE } from "../ir/names.js";
import type { TypeResolver } from "../types/signature.js";

// Variables of enclosing functions that a lambda given to an operator reads, as in
// `derivative((E: number) => residual(E, e, M))`. They are constants for differentiation: the
// lambda's derivative takes them as extra parameters and the call site passes their values.

export interface Capture {
  name: string;
  /** The declared or inferred type; undefined when it needs an annotation. */
  type: Type | undefined;
  /** The declaration, for diagnostics. */
  node: Node;
  /**
   * Whether it holds a function (a local arrow or function). A lambda given to an operator
   * calls a `const` one as its own code does (see local-function-reads.ts); others are refused.
   */
  isFunction: boolean;
  /**
   * A `const` holding one of the program's top-level functions (`c ? forceA : forceB`): its
   * function type. The capture is then an opaque value, called by run-time choice.
   */
  callable?: FunctionTypeInfo;
  /**
   * A variable the enclosing function holds in a cell (lower/cells.ts): the capture is the
   * cell, `type` its value's type.
   */
  cell?: boolean;
  /**
   * The local function that reads this name, which means another variable where the operator
   * is called (`node`, that declaration): the call passes captures by name, so this is refused.
   */
  hiddenFrom?: string;
}

/** A local function of an enclosing function that a lambda given to an operator calls. */
export interface LocalFunction {
  name: string;
  /** The arrow, function expression or function declaration. */
  node: FunctionLike;
}

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);
const SCOPES = new Set([
  "BlockStatement",
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "SwitchStatement",
  "CatchClause",
]);

interface Declaration {
  node: Node;
  kind: "param" | "const" | "let" | "function";
  annotation: Type | undefined;
  init: Node | null;
}

/**
 * The declarations that belong to `scope` itself: for a function its parameters and what its
 * body declares outside nested blocks; for a block (or `for`, `switch`, `catch`) what it
 * declares outside nested blocks. Nested functions declare their names only. Cached per
 * scope node and type resolver: every call site in a function asks about the same scopes.
 */
function ownDeclarations(scope: Node, resolve?: TypeResolver): Map<string, Declaration> {
  let byResolver = ownCache.get(scope);
  if (!byResolver) ownCache.set(scope, (byResolver = new Map()));
  const known = byResolver.get(resolve);
  if (known) return known;
  const found = new Map<string, Declaration>();
  byResolver.set(resolve, found);
  const fn = FUNCTIONS.has(scope.type) ? (scope as FunctionLike) : undefined;
  if (fn) {
    for (const p of fn.params) {
      if (p.type === "Identifier")
        found.set(p.name, {
          node: p,
          kind: "param",
          annotation: annotationType(p.typeAnnotation, resolve),
          init: null,
        });
      // `({ S, K }) => …`, `(x = 1) => …`, `(...xs) => …`: the names the parameter binds.
      else
        for (const name of boundNames(p))
          found.set(name, { node: p, kind: "param", annotation: undefined, init: null });
    }
  }
  const root = fn ? fn.body : scope;
  if (!root) return found;
  walk(root, (n) => {
    if (n !== root && SCOPES.has(n.type)) return false;
    if (n.type === "FunctionDeclaration" && n.id) {
      found.set(n.id.name, { node: n, kind: "function", annotation: undefined, init: n });
      return false;
    }
    if (n !== root && FUNCTIONS.has(n.type)) return false;
    if (n.type === "VariableDeclaration") {
      for (const d of n.declarations) {
        if (d.id.type !== "Identifier") {
          // Destructured names are not captured values nabla can type, but they do shadow.
          for (const name of boundNames(d.id))
            found.set(name, { node: d, kind: "let", annotation: undefined, init: null });
          continue;
        }
        const kind = n.kind === "const" ? "const" : "let";
        found.set(d.id.name, {
          node: d,
          kind,
          annotation: annotationType(d.id.typeAnnotation, resolve),
          init: d.init,
        });
      }
    }
    return true;
  });
  return found;
}

const ownCache = new WeakMap<Node, Map<TypeResolver | undefined, Map<string, Declaration>>>();

/** The declarations of nested scopes, innermost first: a name finds its nearest declaration. */
class Scope {
  constructor(private readonly layers: Map<string, Declaration>[]) {}

  has(name: string): boolean {
    return this.layers.some((l) => l.has(name));
  }

  get(name: string): Declaration | undefined {
    return this.layers.find((l) => l.has(name))?.get(name);
  }
}

/**
 * Parameters and variables declared in `fn` and visible at a site inside it, whose enclosing
 * nodes inside `fn` are `inner` (outermost first): blocks that do not enclose the site are
 * skipped, so a `k` declared in another block is not this `k`. Without a site, every
 * declaration in `fn` outside nested functions counts (for the lambda's own locals).
 */
function declarationsOf(fn: FunctionLike, inner?: readonly Node[], resolve?: TypeResolver): Scope {
  if (!inner) return new Scope(allDeclarations(fn));
  const layers = [ownDeclarations(fn, resolve)];
  for (const n of inner)
    if (SCOPES.has(n.type) && n !== fn.body) layers.push(ownDeclarations(n, resolve));
  return new Scope(layers.reverse());
}

/** The declarations of `fn` and of every block in it, outside nested functions. */
function allDeclarations(fn: FunctionLike): Map<string, Declaration>[] {
  const layers = [ownDeclarations(fn)];
  if (!fn.body) return layers;
  walk(fn.body, (n) => {
    if (n !== fn.body && FUNCTIONS.has(n.type)) return false;
    if (n !== fn.body && SCOPES.has(n.type)) layers.push(ownDeclarations(n));
    return true;
  });
  return layers;
}

/** Names read in `fn` that it does not declare itself, in order of first use. */
export function freeNames(fn: FunctionLike): string[] {
  const own = declarationsOf(fn);
  const names: string[] = [];
  const add = (name: string) => {
    if (!own.has(name) && !names.includes(name)) names.push(name);
  };
  walk(fn, (n, ancestors) => {
    // A nested function's own parameters and locals are not free here: only what it reads
    // from outside itself.
    if (n !== fn && FUNCTIONS.has(n.type)) {
      // An arrow reads the `this` around it; a function has its own.
      const inner = freeNames(n as FunctionLike);
      (n.type === "ArrowFunctionExpression" ? inner : inner.filter((x) => x !== "this")).forEach(
        add,
      );
      return false;
    }
    if (n.type === "ThisExpression" && fn.type === "ArrowFunctionExpression") add("this");
    if (n.type !== "Identifier") return true;
    const parent = ancestors[ancestors.length - 1];
    const isProperty =
      (parent?.type === "MemberExpression" && parent.property === n && !parent.computed) ||
      (parent?.type === "Property" && parent.key === n && !parent.computed && !parent.shorthand);
    const isLabel =
      parent?.type === "LabeledStatement" ||
      parent?.type === "BreakStatement" ||
      parent?.type === "ContinueStatement";
    // `function g(…)`: the name it declares, not a read.
    const isOwnName = parent === fn && (fn as { id?: Node | null }).id === n;
    if (!isProperty && !isLabel && !isOwnName) add(n.name);
    return true;
  });
  return names;
}

/** The declarations visible at a site, innermost enclosing function first. */
function scopesAt(ancestors: readonly Node[], exclude?: Node, resolve?: TypeResolver): Scope[] {
  const scopes: Scope[] = [];
  // Blocks and loops at module level (`for (const [n, v] of cases) { … }`) declare block-scoped
  // variables a lambda may capture as it would a function's; the module's own declarations are
  // its constants, found elsewhere.
  const moduleLevel: Map<string, Declaration>[] = [];
  for (const a of ancestors) {
    if (FUNCTIONS.has(a.type)) break;
    if (SCOPES.has(a.type)) moduleLevel.push(ownDeclarations(a, resolve));
  }
  if (moduleLevel.length > 0) scopes.push(new Scope(moduleLevel.reverse()));
  for (let i = 0; i < ancestors.length; i++) {
    const a = ancestors[i]!;
    if (!FUNCTIONS.has(a.type) || a === exclude) continue;
    // The nodes between this function and the next one (or the site).
    let j = i + 1;
    while (j < ancestors.length && !FUNCTIONS.has(ancestors[j]!.type)) j++;
    scopes.push(declarationsOf(a as FunctionLike, ancestors.slice(i + 1, j), resolve));
  }
  return scopes.reverse();
}

function isFunctionValue(decl: Declaration): boolean {
  const t = decl.init?.type;
  return decl.kind === "function" || t === "ArrowFunctionExpression" || t === "FunctionExpression";
}

/** The variables of enclosing functions `lambda` reads; `ancestors` enclose the lambda. */
export function findCaptures(
  lambda: FunctionLike,
  ancestors: readonly Node[],
  resolve?: TypeResolver,
  resultOf?: (callee: string) => Type | undefined,
  choiceOf?: (init: Node) => FunctionTypeInfo | undefined,
  isGlobal: GlobalTest = () => true,
): Capture[] {
  const scopes = scopesAt(ancestors, lambda, resolve);
  const lookup = (name: string) => scopes.find((s) => s.has(name))?.get(name);
  const global = (name: string) => !lookup(name) && isGlobal(name);
  // `const target = makeTarget()`: the declared result type of a function of the program.
  const callResult = (init: Node | null): Type | undefined =>
    init?.type === "CallExpression" &&
    init.callee.type === "Identifier" &&
    !lookup(init.callee.name)
      ? resultOf?.(init.callee.name)
      : undefined;
  const typeOf = (name: string, seen: Set<string>): Type | undefined => {
    const decl = lookup(name);
    if (!decl || seen.has(name)) return undefined;
    seen.add(name);
    return (
      decl.annotation ??
      inferType(decl.init, (n) => typeOf(n, seen), resolve, global) ??
      callResult(decl.init) ??
      checkedType(decl, name, resolve)
    );
  };
  return freeNames(lambda).flatMap((name) => {
    if (name === "this") return thisCapture(lambda, ancestors, resolve);
    const decl = lookup(name);
    if (!decl) return [];
    const callable = decl.kind === "const" && decl.init ? choiceOf?.(decl.init) : undefined;
    if (callable) return [{ name, type: "opaque", node: decl.node, isFunction: false, callable }];
    return [
      { name, type: typeOf(name, new Set()), node: decl.node, isFunction: isFunctionValue(decl) },
    ];
  });
}

/**
 * The method (not static) whose `this` code with these `ancestors` reads: that of the
 * innermost enclosing function that is no arrow; undefined if that is no such method.
 */
export function methodOfThis(ancestors: readonly Node[]): Node | undefined {
  let k = ancestors.length - 1;
  while (
    k >= 0 &&
    (!FUNCTIONS.has(ancestors[k]!.type) || ancestors[k]!.type === "ArrowFunctionExpression")
  )
    k--;
  const method = k > 0 ? ancestors[k - 1] : undefined;
  return method?.type === "MethodDefinition" && !method.static ? method : undefined;
}

/**
 * `this` read by an arrow written in a method (`(p) => this.loss(p)`): the instance, as a
 * capture named THIS_CAPTURE of the type the checker gives `this` there. None elsewhere (a
 * static method's or a module's `this`): lowering then says where `this` is supported.
 */
function thisCapture(
  lambda: FunctionLike,
  ancestors: readonly Node[],
  resolve?: TypeResolver,
): Capture[] {
  const method = methodOfThis(ancestors);
  if (!method) return [];
  let at: number | undefined;
  walk(lambda, (n) => {
    if (at === undefined && n.type === "ThisExpression") at = n.start;
    return at === undefined;
  });
  const type = at === undefined ? undefined : resolve?.inferred?.typeAt(at);
  return [{ name: THIS_CAPTURE, type, node: method, isFunction: false }];
}

/** What TypeScript's checker infers for a declaration's `name`, when nabla's own reading cannot tell. */
function checkedType(decl: Declaration, name: string, resolve?: TypeResolver): Type | undefined {
  if (!resolve?.inferred || decl.kind === "function") return undefined;
  let at: number | undefined;
  walk(decl.node, (n) => {
    if (at === undefined && n.type === "Identifier" && n.name === name) at = n.start;
    return at === undefined;
  });
  return at === undefined ? undefined : resolve.inferred.typeAt(at);
}

/**
 * A function defined inside the enclosing functions under `name` (`const f = (x) => …` or a
 * nested `function f`), as seen from a site with these `ancestors`.
 */
export function findLocalFunction(
  name: string,
  ancestors: readonly Node[],
): { node: FunctionLike; constant: boolean } | undefined {
  const decl = scopesAt(ancestors)
    .find((s) => s.has(name))
    ?.get(name);
  if (!decl || !isFunctionValue(decl)) return undefined;
  return {
    node: decl.init as FunctionLike,
    constant: decl.kind === "const" || decl.kind === "function",
  };
}

/** The declaration `name` means at a site with these `ancestors` (undefined: module-level). */
export function declarationAt(name: string, ancestors: readonly Node[]): Node | undefined {
  return scopesAt(ancestors)
    .find((s) => s.has(name))
    ?.get(name)?.node;
}

/** The nodes enclosing `target` in `program`, outermost first. */
export function ancestorsIn(program: Node, target: Node): Node[] {
  let found: Node[] = [];
  walk(program, (node, ancestors) => {
    if (found.length > 0 || node.start > target.start || node.end < target.end) return false;
    if (node === target) {
      found = [...ancestors];
      return false;
    }
    return true;
  });
  return found;
}

/** Whether `name` is declared by a function enclosing a site (so it shadows a module name). */
export function declaredLocally(name: string, ancestors: readonly Node[]): boolean {
  return scopesAt(ancestors).some((s) => s.has(name));
}

/** The names a destructuring pattern (or a parameter with a default, or a rest one) binds. */
function boundNames(pattern: Node): string[] {
  const names: string[] = [];
  walk(pattern, (n, ancestors) => {
    const parent = ancestors[ancestors.length - 1];
    const isKey = parent?.type === "Property" && parent.key === n && !parent.shorthand;
    if (n.type === "AssignmentPattern") {
      names.push(...boundNames(n.left)); // the default value binds nothing
      return false;
    }
    if (n.type === "Identifier" && !isKey) names.push(n.name);
    // A type annotation (`{ S, K }: Option`) names no variable.
    return n.type !== "TSTypeAnnotation";
  });
  return names;
}
