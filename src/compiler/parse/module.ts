import type { Message } from "../diagnostics/messages/message.js";
import { parseError, unsupportedSyntax } from "../diagnostics/messages/index.js";
import {
  parseSync,
  type ArrowFunctionExpression,
  type Comment,
  type Class,
  type Function as FunctionNode,
  type TSEnumDeclaration,
  type TSInterfaceDeclaration,
  type TSTypeAliasDeclaration,
  type Node,
  type Program,
  type VariableDeclarator,
} from "oxc-parser";
import { visitorKeys } from "oxc-parser";
import type { Type } from "../ir/types.js";
import { privateNamesAsIdentifiers, type PrivateNameUse } from "./private-names.js";
import { lexicalLimit, lexicalNestingProblem, syntacticNestingProblem } from "./nesting.js";

// One parsed source file and the facts about its top level that the compiler needs:
// which names are functions, constants, imports and exports.

export type FunctionLike = FunctionNode | ArrowFunctionExpression;

export type TypeDeclaration = TSInterfaceDeclaration | TSTypeAliasDeclaration | Class;

export interface ImportBinding {
  /** The specifier as written (`./b.ts`, `nabla`). */
  specifier: string;
  /** The exported name it refers to, `default`, or `*` for a namespace import. */
  imported: string;
  /** `import type …`: names a type only. */
  typeOnly?: boolean;
}

export interface ModuleConstant {
  name: string;
  kind: "const" | "let" | "var";
  /** The literal value when the initializer is a constant numeric expression. */
  value: number | undefined;
  /**
   * The declared or inferred type, when it can be known without running code: set by the
   * types phase (types/constant-types.ts) as the program graph loads the module.
   */
  type: Type | undefined;
  node: VariableDeclarator;
  /** A `let`/`var` holding a function: a function value, which may change. */
  holdsFunction: boolean;
}

export interface ParseProblem extends Message {
  start: number;
  end: number;
}

export interface SourceModule {
  file: string;
  text: string;
  program: Program;
  comments: Comment[];
  functions: Map<string, FunctionLike>;
  /** Functions declared without a body (`declare function f(x: number): number;`, .d.ts files). */
  declaredFunctions: Map<string, FunctionLike>;
  /** Interfaces, type aliases and classes declared at the top level, by name. */
  types: Map<string, TypeDeclaration>;
  /** Enums declared at the top level, by name (a name of a type and of a value). */
  enums: Map<string, TSEnumDeclaration>;
  constants: Map<string, ModuleConstant>;
  imports: Map<string, ImportBinding>;
  /** Exported name → local name. */
  exports: Map<string, string>;
  /**
   * `export { a as b } from "./x"`: exported name → where it comes from; `export * as ns from
   * "./x"` has `imported` `*`.
   */
  reexports: Map<string, ImportBinding>;
  /** `export * from "./x"`: the specifiers. */
  starExports: string[];
  problems: ParseProblem[];
  /** Syntax nabla parses but cannot compile (decorators: see unsupportedSyntax). */
  unsupported: ParseProblem[];
  /** Where `#name`s are written; each is an `Identifier` named `#name` in `program` (private-names.ts). */
  privateNames: PrivateNameUse[];
  /** Names the module binds at its top level as values: declarations and value imports. */
  topLevel: Set<string>;
  /** Names declared anywhere in the file, in any scope (variables, parameters, functions…). */
  declared: Set<string>;
  /** Every identifier written in the file: names generated code must not take. */
  identifiers: Set<string>;
}

export function parseModule(file: string, text: string): SourceModule {
  // Text nested past what the native parser's stack holds is not parsed at all (a stack
  // overflow there ends the process); nor is code nested past what V8 can load compiled.
  const tooDeep = lexicalNestingProblem(text, lexicalLimit());
  const result = parseSync(file, tooDeep ? "" : text, {
    preserveParens: false,
    sourceType: "module",
  });
  const problem = tooDeep ?? syntacticNestingProblem(result.program);
  const mod: SourceModule = {
    file,
    text,
    program: result.program,
    comments: result.comments,
    functions: new Map(),
    declaredFunctions: new Map(),
    types: new Map(),
    enums: new Map(),
    constants: new Map(),
    imports: new Map(),
    exports: new Map(),
    reexports: new Map(),
    starExports: [],
    problems: result.errors.map((e) => ({
      ...parseError.fromParser(e.message),
      start: e.labels[0]?.start ?? 0,
      end: e.labels[0]?.end ?? 0,
    })),
    unsupported: [],
    topLevel: new Set(),
    declared: new Set(),
    identifiers: new Set(),
    privateNames: [],
  };
  if (problem) {
    mod.problems.push(problem);
    return mod;
  }
  mod.privateNames = privateNamesAsIdentifiers(result.program);
  collectNames(mod);
  for (const statement of result.program.body) collectTopLevel(mod, statement);
  return mod;
}

/**
 * The names of the file (see SourceModule): which built-ins its code may shadow, which names
 * generated code may take; and its decorators, which nabla cannot compile.
 */
function collectNames(mod: SourceModule): void {
  for (const statement of mod.program.body) {
    const declaration =
      statement.type === "ExportNamedDeclaration" || statement.type === "ExportDefaultDeclaration"
        ? statement.declaration
        : statement;
    if (!declaration) continue;
    if (declaration.type === "ImportDeclaration") {
      if (declaration.importKind === "type") continue;
      for (const spec of declaration.specifiers)
        if (spec.type !== "ImportSpecifier" || spec.importKind !== "type")
          mod.topLevel.add(spec.local.name);
      continue;
    }
    // A function's parameters are its own: only its name is bound here.
    const own =
      declaration.type === "FunctionDeclaration" || declaration.type === "ClassDeclaration"
        ? declaration.id && !("declare" in declaration && declaration.declare)
          ? [declaration.id.name]
          : []
        : bindingsOf(declaration);
    for (const name of own) mod.topLevel.add(name);
  }
  walk(mod.program, (n, ancestors) => {
    if (n.type === "Identifier") mod.identifiers.add(n.name);
    for (const name of bindingsOf(n)) mod.declared.add(name);
    // A `var` in a block at the top level is the module's too.
    if (n.type === "VariableDeclaration" && n.kind === "var" && !ancestors.some(isFunction))
      for (const name of bindingsOf(n)) mod.topLevel.add(name);
    if (n.type === "Decorator")
      mod.unsupported.push({
        ...unsupportedSyntax.decoratorsAreNotSupportedIn(),
        start: n.start,
        end: n.end,
      });
    return true;
  });
}

function isFunction(n: Node): boolean {
  return (
    n.type === "FunctionDeclaration" ||
    n.type === "FunctionExpression" ||
    n.type === "ArrowFunctionExpression"
  );
}

/** The value names a declaration (or a parameter list, a catch clause, an import) binds. */
function bindingsOf(node: Node): string[] {
  switch (node.type) {
    case "VariableDeclaration":
      if (node.declare) return [];
      return node.declarations.flatMap((d) => patternNames(d.id));
    case "FunctionDeclaration":
    case "FunctionExpression":
    case "ArrowFunctionExpression": {
      // A function expression's own name is bound inside it: a declaration there too.
      const own = node.type !== "ArrowFunctionExpression" && node.id ? [node.id.name] : [];
      return [...own, ...node.params.flatMap((p) => patternNames(p))];
    }
    case "ClassDeclaration":
    case "ClassExpression":
      return node.id && !node.declare ? [node.id.name] : [];
    case "TSEnumDeclaration":
      return node.declare ? [] : [node.id.name];
    case "TSModuleDeclaration":
      return node.id.type === "Identifier" && !node.declare ? [node.id.name] : [];
    case "TSImportEqualsDeclaration":
      return [node.id.name];
    case "CatchClause":
      return node.param ? patternNames(node.param) : [];
    case "ImportSpecifier":
    case "ImportDefaultSpecifier":
    case "ImportNamespaceSpecifier":
      return [node.local.name];
    default:
      return [];
  }
}

/** The names a binding pattern (`x`, `{ a, b: [c] }`, `...rest`, `x = 1`) binds. */
function patternNames(pattern: Node): string[] {
  switch (pattern.type) {
    case "Identifier":
      return [pattern.name];
    case "TSParameterProperty":
      return patternNames(pattern.parameter);
    case "AssignmentPattern":
      return patternNames(pattern.left);
    case "RestElement":
      return patternNames(pattern.argument);
    case "ArrayPattern":
      return pattern.elements.flatMap((e) => (e ? patternNames(e) : []));
    case "ObjectPattern":
      return pattern.properties.flatMap((p) =>
        p.type === "RestElement" ? patternNames(p.argument) : patternNames(p.value),
      );
    default:
      return [];
  }
}

function collectTopLevel(mod: SourceModule, node: Node): void {
  switch (node.type) {
    case "FunctionDeclaration":
      if (node.id && node.body) mod.functions.set(node.id.name, node);
      return;
    case "TSDeclareFunction":
      if (node.id) mod.declaredFunctions.set(node.id.name, node);
      return;
    case "VariableDeclaration":
      for (const decl of node.declarations) {
        if (decl.id.type !== "Identifier") continue;
        const name = decl.id.name;
        const init = decl.init;
        if (
          init &&
          (init.type === "ArrowFunctionExpression" || init.type === "FunctionExpression")
        ) {
          if (node.kind === "const") {
            mod.functions.set(name, init);
            continue;
          }
        }
        // `const Damper = class { … }` is a class as a declaration is, under the const's name.
        if (init?.type === "ClassExpression" && node.kind === "const") {
          mod.types.set(name, init);
          continue;
        }
        const literal = init ? constantValue(init, (n) => mod.constants.get(n)?.value) : undefined;
        mod.constants.set(name, {
          name,
          kind: node.kind as ModuleConstant["kind"],
          value: node.kind === "const" ? literal : undefined,
          type: undefined, // types/constant-types.ts, once the module is parsed
          node: decl,
          holdsFunction:
            init?.type === "ArrowFunctionExpression" || init?.type === "FunctionExpression",
        });
      }
      return;
    case "TSInterfaceDeclaration":
    case "TSTypeAliasDeclaration":
      mod.types.set(node.id.name, node);
      return;
    case "ClassDeclaration":
      if (node.id) mod.types.set(node.id.name, node);
      return;
    case "TSEnumDeclaration":
      mod.enums.set(node.id.name, node);
      return;
    case "ImportDeclaration":
      for (const spec of node.specifiers) {
        const imported =
          spec.type === "ImportSpecifier"
            ? spec.imported.type === "Identifier"
              ? spec.imported.name
              : String(spec.imported.value)
            : spec.type === "ImportDefaultSpecifier"
              ? "default"
              : "*";
        const typeOnly =
          node.importKind === "type" ||
          (spec.type === "ImportSpecifier" && spec.importKind === "type");
        mod.imports.set(spec.local.name, {
          specifier: String(node.source.value),
          imported,
          typeOnly,
        });
      }
      return;
    case "ExportNamedDeclaration":
      if (node.declaration) {
        collectTopLevel(mod, node.declaration);
        for (const name of declaredNames(node.declaration)) mod.exports.set(name, name);
      }
      for (const spec of node.specifiers) {
        const local = spec.local.type === "Identifier" ? spec.local.name : String(spec.local.value);
        const exported =
          spec.exported.type === "Identifier" ? spec.exported.name : String(spec.exported.value);
        if (node.source)
          mod.reexports.set(exported, { specifier: String(node.source.value), imported: local });
        else mod.exports.set(exported, local);
      }
      return;
    case "ExportAllDeclaration":
      if (!node.exported) mod.starExports.push(String(node.source.value));
      // `export * as ns from "./m"`: a namespace re-exported under a name (program.ts).
      else
        mod.reexports.set(
          node.exported.type === "Identifier" ? node.exported.name : String(node.exported.value),
          { specifier: String(node.source.value), imported: "*", typeOnly: false },
        );
      return;
    case "ExportDefaultDeclaration": {
      const decl = node.declaration;
      if (decl.type === "FunctionDeclaration" && decl.body) {
        const name = decl.id?.name ?? "default";
        mod.functions.set(name, decl);
        mod.exports.set("default", name);
      } else if (
        (decl.type === "ArrowFunctionExpression" || decl.type === "FunctionExpression") &&
        !decl.async &&
        !decl.generator
      ) {
        // `export default (a: number) => a * a`: the module's function 'default', as an
        // anonymous `export default function (a) { … }` is.
        mod.functions.set("default", decl);
        mod.exports.set("default", "default");
      } else if (
        (decl.type === "ClassDeclaration" || decl.type === "TSInterfaceDeclaration") &&
        decl.id
      ) {
        // `export default class Vec { … }`: the class, imported by any name (`import V from`).
        collectTopLevel(mod, decl);
        mod.exports.set("default", decl.id.name);
      } else if (decl.type === "Identifier") {
        mod.exports.set("default", decl.name);
      }
      return;
    }
    default:
      return;
  }
}

function declaredNames(node: Node): string[] {
  if (
    node.type === "FunctionDeclaration" ||
    node.type === "TSDeclareFunction" ||
    node.type === "ClassDeclaration"
  )
    return node.id ? [node.id.name] : [];
  if (
    node.type === "TSInterfaceDeclaration" ||
    node.type === "TSTypeAliasDeclaration" ||
    node.type === "TSEnumDeclaration"
  )
    return [node.id.name];
  if (node.type === "VariableDeclaration") {
    return node.declarations.flatMap((d) => (d.id.type === "Identifier" ? [d.id.name] : []));
  }
  return [];
}

/**
 * Folds numeric literals, unary minus and plain arithmetic of them, and names `known` gives a
 * value (the numeric constants declared before); undefined otherwise.
 */
export function constantValue(
  node: Node,
  known: (name: string) => number | undefined = () => undefined,
): number | undefined {
  switch (node.type) {
    case "Literal":
      return typeof node.value === "number" ? node.value : undefined;
    case "Identifier":
      return known(node.name);
    case "ParenthesizedExpression":
      return constantValue(node.expression, known);
    case "UnaryExpression": {
      const v = constantValue(node.argument, known);
      if (v === undefined) return undefined;
      return node.operator === "-" ? -v : node.operator === "+" ? v : undefined;
    }
    case "BinaryExpression": {
      if (node.left.type === "PrivateIdentifier") return undefined;
      const a = constantValue(node.left, known);
      const b = constantValue(node.right, known);
      if (a === undefined || b === undefined) return undefined;
      switch (node.operator) {
        case "+":
          return a + b;
        case "-":
          return a - b;
        case "*":
          return a * b;
        case "/":
          return a / b;
        case "**":
          return a ** b;
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
}

/**
 * Calls `visit` on `node` and every node below it (pre-order) with the nodes enclosing it,
 * outermost first; returning false skips the children.
 */
export function walk(
  node: Node,
  visit: (n: Node, ancestors: readonly Node[]) => boolean | void,
): void {
  const ancestors: Node[] = [];
  const go = (n: Node) => {
    if (visit(n, ancestors) === false) return;
    ancestors.push(n);
    for (const key of visitorKeys[n.type] ?? []) {
      const child = (n as unknown as Record<string, unknown>)[key];
      if (Array.isArray(child)) {
        for (const c of child) if (c && typeof c === "object" && "type" in c) go(c as Node);
      } else if (child && typeof child === "object" && "type" in child) {
        go(child as Node);
      }
    }
    ancestors.pop();
  };
  go(node);
}

/** The JSDoc block directly before `node`, if any. */
export function leadingJSDoc(mod: SourceModule, node: Node): string | undefined {
  let best: Comment | undefined;
  for (const c of mod.comments) {
    if (c.type !== "Block" || !c.value.startsWith("*") || c.end > node.start) continue;
    if (
      /^\s*$/.test(mod.text.slice(c.end, node.start)) ||
      /^\s*export(\s+default)?\s*$/.test(mod.text.slice(c.end, node.start))
    )
      best = c;
  }
  return best?.value;
}
