import {
  API,
  SignatureKind,
  SymbolFlags,
  TypeFlags,
  type Checker,
  type Project,
  type Symbol as TsSymbol,
  type Type as TsType,
} from "typescript7/unstable/sync";
import {
  getTokenAtPosition,
  isArrayLiteralExpression,
  isBinaryExpression,
  isCallExpression,
  isConditionalExpression,
  isExpression,
  isFunctionLikeDeclaration,
  isParenthesizedExpression,
  isSpreadAssignment,
  SyntaxKind,
  type Node,
} from "typescript7/unstable/ast";
import { readFileSync } from "node:fs";
import { isTypedArrayName } from "../ir/type-system.js";
import type { TypedArrayStorage } from "../ir/types.js";

// The one module that talks to TypeScript's own checker (typescript@7, the native compiler,
// through its synchronous API, which is marked unstable: everything it offers nabla goes
// through here). It answers "what type does TypeScript give the code at this position", and
// describes a type in plain data (`CheckedShape`) for checked-types.ts to turn into IR types.
//
// One checker process serves the whole Node process: starting it costs ~85 ms, a warm
// snapshot of a changed program ~8 ms, so the loader, the plugin and a test run keep it and
// every compile takes a new snapshot of it. Files are read through nabla (the texts nabla
// parsed, so positions agree even for text a bundler handed over), and from disk otherwise.

/** A type as the checker knows it; only this module looks inside. */
export type CheckedType = { readonly __checked: unique symbol };

/** What a CheckedType is: a type with the checker (of one project and snapshot) it belongs to. */
interface Held {
  readonly type: TsType;
  readonly checker: Checker;
  /** Unique across the checkers of a view. */
  readonly key: string;
}

const hold = (type: TsType, checker: Checker, index: number): CheckedType =>
  ({ type, checker, key: `${index}:${type.id}` }) as unknown as CheckedType;
const held = (type: CheckedType): Held => type as unknown as Held;

/** A property of an object type, with the declaration it comes from. */
export interface CheckedProperty {
  name: string;
  type: CheckedType;
  optional: boolean;
  /** A method or accessor: behaviour, not data. */
  method: boolean;
}

/** A type described in plain data: what IR types are built from. */
export type CheckedShape =
  | { kind: "number" | "boolean" | "string" | "void" | "undefined" | "null" }
  | { kind: "union"; members: CheckedType[]; /** The alias naming it (`Shape`). */ name?: string }
  | { kind: "array"; element: CheckedType }
  | { kind: "tuple"; elements: CheckedType[]; variadic: boolean }
  | { kind: "typedArray"; storage: TypedArrayStorage }
  /** `Map<K, V>`, or an object type that is only an index signature (`Record<string, V>`). */
  | { kind: "keyed"; storage: "Record" | "Map"; key: CheckedType; value: CheckedType }
  /** `Set<K>`. */
  | { kind: "set"; key: CheckedType }
  | {
      kind: "object";
      /** How TypeScript writes the type. */
      text: string;
      /** The declared name of a class, interface or alias; undefined for literal types. */
      name?: string;
      /** Where the class, interface or alias is declared. */
      declaredIn?: string;
      isClass: boolean;
      /** For an instance of a generic class (`Box<number>`): its type arguments, in order. */
      typeArguments?: CheckedType[];
      properties: CheckedProperty[];
      /** It can be called (a function type). */
      callable: boolean;
      /** It has an index signature besides its properties (a map or a pure record is `keyed`). */
      keyed: boolean;
    }
  | { kind: "other"; text: string };

/** The checker's view of one program: the types at positions of its files. */
export interface CheckerView {
  /** The types of the expressions or names at `positions` of `file` (UTF-16 offsets). */
  typesAt(file: string, positions: readonly number[]): (CheckedType | undefined)[];
  /** The result type of the function written at [start, end) of `file`. */
  returnTypeOf(file: string, start: number, end: number): CheckedType | undefined;
  /** The type of parameter `index` of the function written at [start, end) of `file`. */
  parameterTypeOf(file: string, start: number, end: number, index: number): CheckedType | undefined;
  /**
   * The type the expression written at [start, end) of `file` is expected to have where it
   * stands (`[]` given as `reduce<number[]>`'s start), else its own type.
   */
  expectedTypeOf(file: string, start: number, end: number): CheckedType | undefined;
  /**
   * The signature TypeScript chose for the call written at [start, end) of `file`, with its
   * type arguments filled in (`sumBy<Point>`): the parameters' types and the result's.
   */
  callAt(
    file: string,
    start: number,
    end: number,
  ): { params: (CheckedType | undefined)[]; result: CheckedType | undefined } | undefined;
  describe(type: CheckedType): CheckedShape;
  /** How TypeScript writes the type, for messages. */
  text(type: CheckedType): string;
  /** The parameter and result types of a function type's (first) call signature. */
  callSignature(type: CheckedType): { params: CheckedType[]; result: CheckedType } | undefined;
  /** The values of a type that is a union of literals (`"add" | "mul"`); else undefined. */
  literals(type: CheckedType): (string | number)[] | undefined;
  /** The value of an enum member's type (`Mode.Fast`: 1, or its string); else undefined. */
  enumValue(type: CheckedType): string | number | undefined;
  /** Whether the type is a numeric enum or one of its members (`Kind`, `Kind.Call`). */
  isNumericEnum(type: CheckedType): boolean;
  /** Equal for the same type of the same checker. */
  key(type: CheckedType): string;
}

/** Text of files as nabla read them; undefined: read the disk. */
export type SourceTexts = (file: string) => string | undefined;

let api: API | undefined;
/** The texts of the program being compiled now, which the checker process reads through. */
let currentTexts: SourceTexts = () => undefined;
/** The files the checker has open for nabla (the last compile's). */
let openFiles: string[] = [];
/** Every file the checker has read, with the text it read: what a later compile compares. */
const served = new Map<string, string>();

/** A file's text now: as nabla read it, else from disk; undefined if there is none. */
function textNow(file: string): string | undefined {
  const text = currentTexts(file);
  if (text !== undefined) return text;
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Opens a view of the program whose files `texts` serves (a new snapshot of the warm checker). */
export function openChecker(texts: SourceTexts, cwd: string): CheckerView {
  currentTexts = texts;
  api ??= new API({
    cwd,
    fs: {
      readFile: (file) => {
        const text = textNow(file);
        if (text !== undefined) served.set(file, text);
        return text;
      },
    },
  });
  return new View(api);
}

/** The files whose text changed, or that went away, since the checker read them. */
function changesSinceRead(): { changed: string[]; deleted: string[] } {
  const changed: string[] = [];
  const deleted: string[] = [];
  for (const [file, text] of served) {
    const now = textNow(file);
    if (now === undefined) deleted.push(file);
    else if (now !== text) changed.push(file);
  }
  for (const file of deleted) served.delete(file);
  return { changed, deleted };
}

/** A view whose snapshot is taken when a file is first asked about. */
class View implements CheckerView {
  private readonly projects = new Map<string, Project | undefined>();
  private fresh = true;

  constructor(private readonly api: API) {}

  private project(file: string): Project | undefined {
    if (this.projects.has(file)) return this.projects.get(file);
    // A new compile closes the files the last one opened (so the checker's program stays the
    // size of this one, and an open file, whose text the checker would otherwise keep, is
    // read again) and tells the checker which files it read have changed since.
    if (this.fresh) {
      const { changed, deleted } = changesSinceRead();
      if (openFiles.length > 0 || changed.length > 0 || deleted.length > 0) {
        this.api.updateSnapshot({
          ...(openFiles.length > 0 ? { closeFiles: openFiles } : {}),
          fileChanges: { changed, deleted },
        });
      }
      openFiles = [];
      this.fresh = false;
    }
    const snapshot = this.api.updateSnapshot({ openFiles: [file] });
    openFiles.push(file);
    const project = snapshot.getDefaultProjectForFile(file);
    this.projects.set(file, project);
    return project;
  }

  typesAt(file: string, positions: readonly number[]): (CheckedType | undefined)[] {
    const checker = this.project(file)?.checker;
    const unknown = () => positions.map(() => undefined);
    if (!checker || positions.length === 0) return unknown();
    const index = this.indexOf(checker);
    const types = unlessPanics(() => checker.getTypeAtPosition(file, positions));
    return types?.map((t) => usable(t, checker, index)) ?? unknown();
  }

  returnTypeOf(file: string, start: number, end: number): CheckedType | undefined {
    const found = this.declaredSignature(file, start, end);
    if (!found) return undefined;
    const { checker, signature } = found;
    const type = unlessPanics(() => checker.getReturnTypeOfSignature(signature));
    return usable(type, checker, this.indexOf(checker));
  }

  parameterTypeOf(
    file: string,
    start: number,
    end: number,
    index: number,
  ): CheckedType | undefined {
    const found = this.declaredSignature(file, start, end);
    if (!found) return undefined;
    const { checker, signature } = found;
    const type = unlessPanics(() => checker.getParameterType(signature, index));
    return usable(type, checker, this.indexOf(checker));
  }

  expectedTypeOf(file: string, start: number, end: number): CheckedType | undefined {
    const project = this.project(file);
    const source = project?.program.getSourceFile(file);
    if (!project || !source) return undefined;
    let node: Node | undefined = getTokenAtPosition(source, start);
    while (node && node.end < end) node = node.parent;
    if (!node || node.end !== end || !isExpression(node)) return undefined;
    const checker = project.checker;
    // `[]` as one side of a choice (`ok ? [x] : []`, `xs ?? []`): the choice's type, which the
    // other side gives, where the context (a callback whose result TypeScript is inferring)
    // may say nothing.
    const choice =
      isArrayLiteralExpression(node) && node.elements.length === 0 ? choiceAround(node) : undefined;
    // What an object literal spreads (`{ ...base, ...(c ? { bonus: x } : {}) }`) is of its own
    // type: its context is the whole literal's.
    const spread = isSpreadAssignment(outsideParentheses(node).parent);
    const type = unlessPanics(
      () =>
        (choice && checker.getTypeAtLocation(choice)) ??
        (spread ? undefined : checker.getContextualType(node)) ??
        checker.getTypeAtLocation(node),
    );
    return usable(type, checker, this.indexOf(checker));
  }

  /** The signature of the function written at [start, end) of `file`. */
  private declaredSignature(file: string, start: number, end: number) {
    const project = this.project(file);
    const source = project?.program.getSourceFile(file);
    if (!project || !source) return undefined;
    // The innermost function-like node ending where nabla's does is the same function.
    let node: Node | undefined = getTokenAtPosition(source, start);
    while (node && !(isFunctionLikeDeclaration(node) && node.end === end)) node = node.parent;
    const signature = node && project.checker.getSignatureFromDeclaration(node);
    return signature && { checker: project.checker, signature };
  }

  callAt(
    file: string,
    start: number,
    end: number,
  ): { params: (CheckedType | undefined)[]; result: CheckedType | undefined } | undefined {
    const project = this.project(file);
    const source = project?.program.getSourceFile(file);
    if (!project || !source) return undefined;
    let node: Node | undefined = getTokenAtPosition(source, start);
    while (node && !(isCallExpression(node) && node.end === end)) node = node.parent;
    const checker = project.checker;
    const signature = node && unlessPanics(() => checker.getResolvedSignature(node));
    if (!signature) return undefined;
    const index = this.indexOf(checker);
    const params = signature.getParameters().map((_, i) =>
      usable(
        unlessPanics(() => checker.getParameterType(signature, i)),
        checker,
        index,
      ),
    );
    const result = usable(
      unlessPanics(() => checker.getReturnTypeOfSignature(signature)),
      checker,
      index,
    );
    return { params, result };
  }

  private readonly checkers: Checker[] = [];

  private indexOf(checker: Checker): number {
    let index = this.checkers.indexOf(checker);
    if (index < 0) index = this.checkers.push(checker) - 1;
    return index;
  }

  callSignature(checked: CheckedType): { params: CheckedType[]; result: CheckedType } | undefined {
    const { checker, type } = held(checked);
    const index = this.indexOf(checker);
    const [signature, ...more] = checker.getSignaturesOfType(type, SignatureKind.Call);
    if (!signature || more.length > 0 || signature.hasRestParameter) return undefined;
    const params = signature.getParameters().map((_, i) => checker.getParameterType(signature, i));
    const result = checker.getReturnTypeOfSignature(signature);
    if (!result || params.some((p) => !p)) return undefined;
    return {
      params: params.map((p) => hold(p!, checker, index)),
      result: hold(result, checker, index),
    };
  }

  literals(checked: CheckedType): (string | number)[] | undefined {
    const { type } = held(checked);
    const members = type.isUnionType() ? type.getTypes() : [type];
    const values: (string | number)[] = [];
    for (const m of members) {
      if (!(m.flags & (TypeFlags.StringLiteral | TypeFlags.NumberLiteral))) return undefined;
      values.push((m as unknown as { value: string | number }).value);
    }
    return values;
  }

  enumValue(checked: CheckedType): string | number | undefined {
    const { type } = held(checked);
    if (!(type.flags & TypeFlags.EnumLiteral)) return undefined;
    if (!(type.flags & (TypeFlags.StringLiteral | TypeFlags.NumberLiteral))) return undefined;
    return (type as unknown as { value: string | number }).value;
  }

  isNumericEnum(checked: CheckedType): boolean {
    const { type } = held(checked);
    // `Kind` is the union of its members' types; `Kind | undefined` too, with undefined.
    const members = (type.isUnionType() ? type.getTypes() : [type]).filter(
      (m) => !(m.flags & (TypeFlags.Undefined | TypeFlags.Null)),
    );
    return (
      members.length > 0 &&
      members.every(
        (m) => (m.flags & TypeFlags.EnumLike) !== 0 && (m.flags & TypeFlags.NumberLike) !== 0,
      )
    );
  }

  text(type: CheckedType): string {
    return held(type).checker.typeToString(held(type).type);
  }

  key(type: CheckedType): string {
    return held(type).key;
  }

  /** A `Map` of the platform's, or an object type that has an index signature and nothing else. */
  private keyed(
    checker: Checker,
    type: TsType,
    wrap: (t: TsType) => CheckedType,
  ): CheckedShape | undefined {
    if (!type.isObjectType()) return undefined;
    const symbol = type.getSymbol();
    if (symbol && (symbol.name === "Set" || symbol.name === "ReadonlySet") && isLibrary(symbol)) {
      const [key] = checker.getTypeArguments(type as never);
      return key ? { kind: "set", key: wrap(key) } : undefined;
    }
    if (symbol && (symbol.name === "Map" || symbol.name === "ReadonlyMap") && isLibrary(symbol)) {
      const [key, value] = checker.getTypeArguments(type as never);
      return key && value
        ? { kind: "keyed", storage: "Map", key: wrap(key), value: wrap(value) }
        : undefined;
    }
    const [index, ...more] = checker.getIndexInfosOfType(type);
    if (!index || more.length > 0 || checker.getPropertiesOfType(type).length > 0) return undefined;
    if (checker.getSignaturesOfType(type, SignatureKind.Call).length > 0) return undefined;
    return {
      kind: "keyed",
      storage: "Record",
      key: wrap(index.keyType),
      value: wrap(index.valueType),
    };
  }

  describe(checked: CheckedType): CheckedShape {
    const { checker, type } = held(checked);
    const index = this.indexOf(checker);
    const wrap = (t: TsType) => hold(t, checker, index);
    const flags = type.flags;
    if (flags & TypeFlags.TypeParameter && (type as { isThisType?: boolean }).isThisType) {
      // `this` as a method's result type (`return this`): the class it stands for.
      const constraint = checker.getBaseConstraintOfType(type);
      if (constraint && constraint !== type) return this.describe(wrap(constraint));
    }
    if (flags & TypeFlags.NumberLike) return { kind: "number" };
    if (flags & TypeFlags.BooleanLike) return { kind: "boolean" };
    if (flags & TypeFlags.StringLike) return { kind: "string" };
    if (flags & TypeFlags.Void) return { kind: "void" };
    if (flags & TypeFlags.Undefined) return { kind: "undefined" };
    if (flags & TypeFlags.Null) return { kind: "null" };
    if (type.isUnionType()) {
      const alias = type.getAliasSymbol()?.name;
      return {
        kind: "union",
        members: type.getTypes().map(wrap),
        ...(alias ? { name: alias } : {}),
      };
    }
    if (checker.isTupleType(type)) {
      const elements = checker.getTypeArguments(type as never);
      const tuple = (
        type as unknown as { getTarget(): { elementFlags?: readonly number[] } }
      ).getTarget();
      const variadic = (tuple.elementFlags ?? []).some((f) => (f & 0b1110) !== 0);
      return { kind: "tuple", elements: elements.map(wrap), variadic };
    }
    if (checker.isArrayType(type)) {
      const [element] = checker.getTypeArguments(type as never);
      return element
        ? { kind: "array", element: wrap(element) }
        : { kind: "other", text: checker.typeToString(type) };
    }
    const symbol = type.getSymbol();
    if (type.isObjectType() && symbol) {
      if (isTypedArrayName(symbol.name)) {
        if (isLibrary(symbol)) return { kind: "typedArray", storage: symbol.name };
      }
    }
    const keyed = this.keyed(checker, type, wrap);
    if (keyed) return keyed;
    if (type.isObjectType() || type.isIntersectionType()) {
      const alias = type.getAliasSymbol();
      const named = alias ?? (symbol && !symbol.name.startsWith("__") ? symbol : undefined);
      const declaration = named?.declarations[0];
      const library = named ? isLibrary(named) : false;
      const properties = checker.getPropertiesOfType(type).map((p) => property(checker, p, wrap));
      const isClass = symbol !== undefined && (symbol.flags & SymbolFlags.Class) !== 0;
      const typeArguments = isClass ? classTypeArguments(checker, type, symbol) : [];
      return {
        kind: "object",
        text: checker.typeToString(type),
        ...(named ? { name: named.name } : {}),
        ...(declaration && !library ? { declaredIn: declaration.path } : {}),
        isClass,
        ...(typeArguments.length > 0 ? { typeArguments: typeArguments.map(wrap) } : {}),
        properties,
        callable: checker.getSignaturesOfType(type, SignatureKind.Call).length > 0,
        keyed: checker.getIndexInfosOfType(type).length > 0,
      };
    }
    return { kind: "other", text: checker.typeToString(type) };
  }
}

/**
 * The type arguments of an instance of a generic class (`Box<number>`: number), as many as
 * the class declares type parameters (a class's reference may carry its `this` type after them).
 */
function classTypeArguments(checker: Checker, type: TsType, symbol: TsSymbol): readonly TsType[] {
  const declared = checker.getDeclaredTypeOfSymbol(symbol) as { typeParameters?: unknown };
  const count = Array.isArray(declared.typeParameters) ? declared.typeParameters.length : 0;
  if (count === 0 || !type.isObjectType()) return [];
  return checker.getTypeArguments(type as never).slice(0, count);
}

/** A property with its type, as an object of the type reads it. */
function property(
  checker: Checker,
  symbol: TsSymbol,
  wrap: (t: TsType) => CheckedType,
): CheckedProperty {
  const type = checker.getTypeOfSymbol(symbol) ?? checker.getUnknownType();
  return {
    name: symbol.name,
    type: wrap(type),
    optional: (symbol.flags & SymbolFlags.Optional) !== 0,
    method: (symbol.flags & (SymbolFlags.Method | SymbolFlags.Accessor)) !== 0,
  };
}

/** Declared by TypeScript's own libraries (`lib.*.d.ts`), not by the user or a package. */
function isLibrary(symbol: TsSymbol): boolean {
  const path = symbol.declarations[0]?.path ?? "";
  return /(^|\/)lib\.[^/]*\.d\.ts$/.test(path) || path.startsWith("bundled:");
}

/**
 * The checker's answer, or undefined where its native side fails on the question: it panics
 * on some types it sends back (the `[]` of `Math.max(...[])`, an empty tuple typed where it
 * stands, in typescript@7.0.2), recovers, and answers the next question as before. Such a
 * type is one nabla does not know, as it does not know `any`.
 */
function unlessPanics<T>(ask: () => T): T | undefined {
  try {
    return ask();
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("panic:")) return undefined;
    throw error;
  }
}

/**
 * The conditional (`c ? a : b`) or `??` / `||` expression `node` is a side of, through
 * parentheses: its value is `node`'s when that side is taken.
 */
/** `node`, or the parentheses around it. */
function outsideParentheses(node: Node): Node {
  let outer = node;
  while (outer.parent && isParenthesizedExpression(outer.parent)) outer = outer.parent;
  return outer;
}

function choiceAround(node: Node): Node | undefined {
  let side = node;
  while (side.parent && isParenthesizedExpression(side.parent)) side = side.parent;
  const parent = side.parent;
  if (!parent) return undefined;
  if (isConditionalExpression(parent) && (parent.whenTrue === side || parent.whenFalse === side))
    return parent;
  if (
    isBinaryExpression(parent) &&
    parent.right === side &&
    (parent.operatorToken.kind === SyntaxKind.QuestionQuestionToken ||
      parent.operatorToken.kind === SyntaxKind.BarBarToken)
  )
    return parent;
  return undefined;
}

/** Undefined for types that say nothing: errors and `any`. */
function usable(
  type: TsType | undefined,
  checker: Checker,
  index: number,
): CheckedType | undefined {
  if (!type || type.isErrorType() || type.flags & TypeFlags.Any) return undefined;
  return hold(type, checker, index);
}
