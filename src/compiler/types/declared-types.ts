import type { Class, Node, TSType } from "oxc-parser";
import type { FieldType, FunctionTypeInfo, ObjectType, Type } from "../ir/types.js";
import { leadingJSDoc, type SourceModule, type TypeDeclaration } from "../parse/module.js";
import type { ProgramGraph } from "../parse/program.js";
import {
  classNamed,
  privateNameClash,
  ancestry,
  descendants,
  extendsUnknown,
  implementersOf,
  type ClassSymbol,
} from "../parse/class-hierarchy.js";
import { isAggregate, isArray, isTypedArrayName, sameType } from "../ir/type-system.js";
import { fixedTuple, tupleMember, varyingTuple } from "./tuple-types.js";
import type { TypeResolver } from "./signature.js";
import { inferType } from "./infer-type.js";
import { checkedTypeAt } from "./checked-type-lookup.js";
import { unionOfClasses } from "./class-unions.js";
import { classInstantiation } from "./generic-classes.js";
import { isPlatformGlobal } from "./globals.js";
import { indexSignatureType, keyedReference } from "./keyed-annotations.js";
import { annotatedEnum, enumOfMember, enumValueType } from "./enum-types.js";

// TypeScript type annotations → IR types, without a type checker: keywords, arrays, tuples,
// typed arrays, inline object types, records and maps (keyed-annotations.ts), and interfaces,
// type aliases and classes declared in the user's files (following imports). Fields whose types nabla cannot use (functions, unions…)
// are kept as opaque, so an object that holds them can still be differentiated.

const KEYWORDS: Record<string, Type> = {
  TSNumberKeyword: "number",
  TSBooleanKeyword: "boolean",
  TSStringKeyword: "string",
  TSVoidKeyword: "void",
};

/**
 * A resolver for annotations written in `mod`, by reading them; without a program, named types
 * are unknown. resolver.ts adds the checker's types to it.
 */
export function annotationResolver(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  typeArguments?: TypeArguments,
): TypeResolver {
  return (node) =>
    resolveIn(program, mod, node, Object.assign(new Map(), typeArguments ? { typeArguments } : {}));
}

/** The types a generic function's type parameters stand for in one specialization. */
export type TypeArguments = ReadonlyMap<string, Type>;

/**
 * Named types resolved so far in one annotation; null while resolving (a cycle) or failed. In
 * a specialization of a generic function, also what its type parameters stand for.
 */
type Resolving = Map<string, Type | null> & {
  typeArguments?: TypeArguments;
  /** Object types met again while being resolved (trees): placeholders their fields point to. */
  pending?: Map<string, { -readonly [K in keyof ObjectType]: ObjectType[K] }>;
};

/** The placeholder for a named type met inside itself, filled in once it is resolved. */
function holdingItself(resolving: Resolving, key: string, name: string): Type {
  resolving.pending ??= new Map();
  let placeholder = resolving.pending.get(key);
  if (!placeholder) {
    placeholder = { kind: "object", name, fields: [] };
    resolving.pending.set(key, placeholder);
  }
  return placeholder;
}

function resolveIn(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  node: TSType,
  resolving: Resolving,
): Type | undefined {
  const keyword = KEYWORDS[node.type];
  if (keyword) return keyword;
  const inner = (t: TSType) => resolveIn(program, mod, t, resolving);
  switch (node.type) {
    case "TSParenthesizedType":
      return inner(node.typeAnnotation);
    case "TSTypeOperator":
      return node.operator === "readonly" ? inner(node.typeAnnotation) : undefined;
    case "TSArrayType": {
      const element = inner(node.elementType);
      return element && { kind: "array", storage: "Array", element };
    }
    case "TSTupleType": {
      const elements: Type[] = [];
      let varies = false;
      for (const e of node.elementTypes) {
        const member = tupleMember(e);
        const t = inner(member.written);
        if (!t) return undefined;
        if (member.how === "rest") {
          // `...number[]`: elements of its element type, as many as given; `...[a, b]`: those.
          if (!isArray(t)) return undefined;
          if (t.elements) elements.push(...t.elements);
          else elements.push(t.element);
          varies ||= !t.elements;
        } else {
          elements.push(t);
          varies ||= member.how === "optional";
        }
      }
      return varies ? varyingTuple(elements) : fixedTuple(elements);
    }
    case "TSTypeLiteral": {
      const keyed = indexSignatureType(node.members, inner);
      if (keyed) return keyed;
      const fields = fieldsOf(program, mod, node.members, resolving);
      return fields && { kind: "object", name: mod.text.slice(node.start, node.end), fields };
    }
    case "TSLiteralType": {
      // `"fast"`, `2`, `true`: a value of the literal's primitive type.
      const literal = node.literal;
      if (literal.type !== "Literal") return undefined;
      const kind = typeof literal.value;
      return kind === "string" || kind === "number" || kind === "boolean" ? kind : undefined;
    }
    case "TSUnionType": {
      // `T | undefined`, `T | null`: T, which `??` and `||` test at run time.
      const present = node.types.filter((t) => !isNullishType(t));
      if (present.length === 1) return inner(present[0]!);
      // `"forward" | "reverse"`: a union of literals of one primitive type is that type.
      const types = present.map(inner);
      const first = types[0];
      const primitive = first === "string" || first === "number" || first === "boolean";
      if (primitive) return types.every((t) => t === first) ? first : undefined;
      // `Disk | Square`: dispatched on the object's class, as an interface they share.
      return unionOfClasses(types, mod.text.slice(node.start, node.end));
    }
    case "TSTypeReference": {
      const shadowed =
        node.typeName.type === "Identifier" && resolving.typeArguments?.has(node.typeName.name);
      const enumeration = shadowed ? undefined : annotatedEnum(program, mod, node);
      if (enumeration) return enumValueType(enumeration);
      if (node.typeName.type !== "Identifier") return undefined;
      const name = node.typeName.name;
      const args = node.typeArguments?.params ?? [];
      if (isTypedArrayName(name)) return { kind: "array", storage: name, element: "number" };
      if ((name === "Array" || name === "ReadonlyArray") && args.length === 1) {
        const element = inner(args[0]!);
        return element && { kind: "array", storage: "Array", element };
      }
      const generic = args.length > 0 && program && genericClassNamed(program, mod, name);
      if (generic) {
        // `RingBuffer<number>`, `Pair<Vec, number>`: that instantiation of the class.
        const types = args.map(inner);
        return types.every((t): t is Type => t !== undefined)
          ? genericClassType(program, generic, types)
          : undefined;
      }
      if (args.length > 0) {
        const text = mod.text.slice(node.start, node.end);
        return keyedReference(program, mod, name, args, inner, text);
      }
      const argument = resolving.typeArguments?.get(name);
      if (argument) return argument;
      return namedType(program, mod, name, resolving);
    }
    default:
      return undefined;
  }
}

function namedType(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  name: string,
  resolving: Resolving,
): Type | undefined {
  const symbol = program
    ? program.resolveType(mod, name)
    : mod.types.has(name)
      ? { module: mod, name, node: mod.types.get(name)! }
      : undefined;
  if (!symbol) return undefined;
  const key = `${symbol.module.file}#${symbol.name}`;
  if (resolving.has(key)) return resolving.get(key) ?? holdingItself(resolving, key, symbol.name);
  const before = new Set(resolving.keys());
  resolving.set(key, null);
  let type = declarationType(program, symbol.module, symbol.name, symbol.node, key, resolving);
  const pending = resolving.pending?.get(key);
  if (pending) {
    // The type holds itself: the placeholder its fields point to becomes the type.
    if (type && typeof type === "object" && type.kind === "object") {
      type = Object.assign(pending, type);
    } else {
      // Not an object type: what was built pointing to the placeholder is forgotten.
      type = undefined;
      for (const k of [...resolving.keys()]) if (!before.has(k)) resolving.delete(k);
    }
  }
  resolving.set(key, type ?? null);
  return type;
}

function declarationType(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  name: string,
  node: TypeDeclaration,
  key: string,
  resolving: Resolving,
): Type | undefined {
  if (node.type === "TSTypeAliasDeclaration") {
    if (node.typeParameters) return undefined;
    const t = resolveIn(program, mod, node.typeAnnotation, resolving);
    return t && typeof t === "object" && t.kind === "object" ? { ...t, name } : t;
  }
  if (node.type === "TSInterfaceDeclaration") {
    if (node.typeParameters) return undefined;
    const implemented = program && implementedInterface(program, mod, name, node, key, resolving);
    if (implemented !== undefined) return implemented ?? undefined;
    if (node.extends && node.extends.length > 0) return undefined;
    const fields = fieldsOf(program, mod, node.body.body, resolving);
    return fields && { kind: "object", name, fields };
  }
  if (node.typeParameters) return undefined;
  if (program && privateNameClash(program, { module: mod, name, decl: node })) return undefined;
  if (!node.superClass) {
    const fields = fieldsOf(program, mod, classFieldMembers(node), resolving);
    const more =
      fields &&
      (program
        ? subclassFields(program, { module: mod, name, decl: node }, fields, resolving)
        : []);
    return fields && more && { kind: "object", name, fields: [...fields, ...more], classKey: key };
  }
  if (!program) return undefined;
  // A subclass: its bases' fields first (as JavaScript creates them), then its own.
  const cls: ClassSymbol = { module: mod, name, decl: node };
  if (extendsUnknown(program, cls)) return undefined;
  const fields: FieldType[] = [];
  for (const c of ancestry(program, cls).reverse()) {
    if (c.decl.typeParameters) return undefined;
    const own = fieldsOf(program, c.module, classFieldMembers(c.decl), resolving);
    if (!own) return undefined;
    for (const f of own) {
      const at = fields.findIndex((g) => g.name === f.name);
      if (at >= 0) fields[at] = f;
      else fields.push(f);
    }
  }
  const more = subclassFields(program, cls, fields, resolving);
  return more && { kind: "object", name, fields: [...fields, ...more], classKey: key };
}

/** The generic class `name` denotes in `mod`, if it is one of the program's. */
function genericClassNamed(
  program: ProgramGraph,
  mod: SourceModule,
  name: string,
): ClassSymbol | undefined {
  const cls = classNamed(program, mod, name);
  return cls?.decl.typeParameters ? cls : undefined;
}

/**
 * The instance type of the generic class `cls` with the type arguments `args`
 * (generic-classes.ts): its fields read with its type parameters standing for them. Undefined
 * for a class in a hierarchy (one that extends a class, or that classes extend: a base's type
 * holds its subclasses' fields, and those would need instantiating too) or given as many type
 * arguments as it has no parameters.
 */
export function genericClassType(
  program: ProgramGraph,
  cls: ClassSymbol,
  args: readonly Type[],
): ObjectType | undefined {
  if (args.length !== (cls.decl.typeParameters?.params.length ?? 0)) return undefined;
  if (cls.decl.superClass || descendants(program, cls).length > 0) return undefined;
  const { key, instantiation } = classInstantiation(program, cls, args);
  if (instantiation.type !== undefined) return instantiation.type ?? undefined;
  // A field holding the instantiation itself (`next: ListNode<T> | undefined`).
  if (instantiation.placeholder) return instantiation.placeholder;
  instantiation.placeholder = { kind: "object", name: instantiation.text, fields: [] };
  const scoped: Resolving = Object.assign(new Map(), {
    typeArguments: instantiation.typeArguments,
  });
  const fields = fieldsOf(program, cls.module, classFieldMembers(cls.decl), scoped);
  const type: ObjectType | null = fields
    ? Object.assign(instantiation.placeholder, {
        kind: "object" as const,
        name: instantiation.text,
        fields,
        classKey: key,
      })
    : null;
  instantiation.type = type;
  delete instantiation.placeholder;
  return type ?? undefined;
}

/**
 * An interface with methods that classes of the program implement (`interface Filter {
 * process(x: number): number }`): its value is an instance of one of them, so its type holds
 * its own fields and, optional, every implementing class's (as a base class's type holds its
 * subclasses'). Undefined when no class implements it; null when one cannot be followed (a
 * generic class, a field two classes type differently).
 */
function implementedInterface(
  program: ProgramGraph,
  mod: SourceModule,
  name: string,
  node: Node & { type: "TSInterfaceDeclaration" },
  key: string,
  resolving: Resolving,
): ObjectType | null | undefined {
  const members = interfaceMembers(program, mod, node);
  if (!members) return null;
  if (!members.some((m) => m.member.type === "TSMethodSignature")) return undefined;
  const classes = implementersOf(program, node);
  if (classes.length === 0) return undefined;
  const own: FieldType[] = [];
  for (const { module, member } of members) {
    if (member.type === "TSMethodSignature") continue;
    const fields = fieldsOf(program, module, [member], resolving);
    if (!fields) return null;
    own.push(...fields.filter((f) => !own.some((g) => g.name === f.name)));
  }
  const fields = [...own];
  const lacking = new Set<string>();
  for (const cls of classes) {
    if (extendsUnknown(program, cls)) return null;
    const names = new Set<string>();
    for (const c of ancestry(program, cls)) {
      if (c.decl.typeParameters) return null;
      const theirs = fieldsOf(program, c.module, classFieldMembers(c.decl), resolving);
      if (!theirs) return null;
      for (const f of theirs) {
        names.add(f.name);
        const had = fields.find((g) => g.name === f.name);
        if (!had) fields.push({ ...f, optional: true });
        else if (!sameType(had.type, f.type)) return null;
      }
    }
    for (const f of own) if (!names.has(f.name)) lacking.add(f.name);
  }
  // A field of the interface a class implements by a getter (`get weight()`): the object may
  // lack it as a field; reading it runs the getter where the class has one (lowering).
  return {
    kind: "object",
    name,
    fields: fields.map((f) => (lacking.has(f.name) ? { ...f, optional: true } : f)),
    interfaceKey: key,
  };
}

/**
 * An interface's members with the module each is declared in: its own, then those of the
 * interfaces it extends (`interface Solid extends Shape`); undefined if one cannot be followed.
 */
function interfaceMembers(
  program: ProgramGraph,
  mod: SourceModule,
  node: Node & { type: "TSInterfaceDeclaration" },
  depth = 0,
): { module: SourceModule; member: Node }[] | undefined {
  if (depth > 16) return undefined;
  const found = node.body.body.map((member) => ({ module: mod, member: member as Node }));
  for (const e of node.extends ?? []) {
    if (e.expression.type !== "Identifier" || e.typeArguments) return undefined;
    const base = program.resolveType(mod, e.expression.name);
    if (base?.node.type !== "TSInterfaceDeclaration" || base.node.typeParameters) return undefined;
    const inherited = interfaceMembers(program, base.module, base.node, depth + 1);
    if (!inherited) return undefined;
    found.push(...inherited);
  }
  return found;
}

/** The members of a class that are fields of its instances (parameter properties included). */
function classFieldMembers(node: Class): Node[] {
  const members: Node[] = [];
  for (const m of node.body.body) {
    if (m.type === "PropertyDefinition" && !m.static) members.push(m);
    if (m.type === "MethodDefinition" && m.kind === "constructor") {
      // Parameter properties: `constructor(public w: number)`.
      for (const p of m.value.params) if (p.type === "TSParameterProperty") members.push(p);
    }
  }
  return members;
}

/**
 * The fields the classes extending `cls` add, optional: a value whose type is `cls` may be an
 * instance of any of them, and its tangent must have room for what their methods read.
 */
function subclassFields(
  program: ProgramGraph,
  cls: ClassSymbol,
  have: readonly FieldType[],
  resolving: Resolving,
): FieldType[] | undefined {
  const more: FieldType[] = [];
  for (const sub of descendants(program, cls)) {
    const own = fieldsOf(program, sub.module, classFieldMembers(sub.decl), resolving);
    if (!own) return undefined;
    for (const f of own) {
      if (have.some((g) => g.name === f.name) || more.some((g) => g.name === f.name)) continue;
      more.push({ ...f, optional: true });
    }
  }
  return more;
}

/** The fields of an object type's members; undefined when a member is not a plain field. */
function fieldsOf(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  members: readonly Node[],
  resolving: Resolving,
): FieldType[] | undefined {
  const fields: FieldType[] = [];
  for (const m of members) {
    let keyNode: Node;
    let annotation: TSType | undefined;
    let initializer: Node | null = null;
    if (m.type === "TSPropertySignature" || m.type === "PropertyDefinition") {
      if (m.computed) return undefined;
      keyNode = m.key;
      annotation = m.typeAnnotation?.typeAnnotation;
      if (m.type === "PropertyDefinition") initializer = m.value;
    } else if (m.type === "TSParameterProperty") {
      // `public x: number` or `public x = 0`, typed by its initializer like a field.
      const parameter = m.parameter.type === "AssignmentPattern" ? m.parameter.left : m.parameter;
      if (parameter.type !== "Identifier") return undefined;
      keyNode = parameter;
      annotation = parameter.typeAnnotation?.typeAnnotation;
      if (m.parameter.type === "AssignmentPattern") initializer = m.parameter.right;
    } else if (m.type === "TSMethodSignature") {
      continue; // methods of an interface are not data
    } else {
      return undefined;
    }
    if (keyNode.type !== "Identifier") return undefined;
    const resolve = (t: TSType) => resolveIn(program, mod, t, resolving);
    // An enum's value (`kind: Kind`, `act = Act.Tanh`) is a number or a string; a numeric one
    // is a discrete choice, so the field has no derivative.
    const enumeration = annotation
      ? annotatedEnum(program, mod, annotation)
      : enumOfMember(program, mod, initializer);
    const enumType = enumeration && enumValueType(enumeration);
    // A class field without annotation has its initializer's type (`w = 1`, `b = new Float64Array(4)`).
    const type =
      (annotation
        ? (resolve(annotation) ?? checkedAggregate(program, mod, annotation, keyNode))
        : (enumType ??
          inferType(
            initializer,
            () => undefined,
            resolve,
            (n) => isPlatformGlobal(mod, n),
          ) ??
          checkedPrimitive(program, mod, initializer, keyNode))) ?? "opaque";
    const doc = leadingJSDoc(mod, m) ?? "";
    const callable =
      type === "opaque" && annotation && program
        ? functionTypeOf(program, mod, annotation)
        : undefined;
    const optional =
      ("optional" in m && m.optional === true) ||
      (annotation?.type === "TSUnionType" && annotation.types.some(isNullishType));
    fields.push({
      name: keyNode.name,
      type,
      ...(optional ? { optional } : {}),
      noDerivative: /@noDerivative\b/.test(doc) || enumType === "number",
      ...(enumType === "number" ? { enumChoice: true } : {}),
      ...(callable
        ? { callable, declaredAt: { file: mod.file, start: keyNode.start, end: keyNode.end } }
        : {}),
    });
  }
  return fields;
}

/** `undefined` or `null` as a type. */
function isNullishType(node: TSType): boolean {
  return (
    node.type === "TSUndefinedKeyword" ||
    node.type === "TSNullKeyword" ||
    (node.type === "TSLiteralType" &&
      node.literal.type === "Literal" &&
      node.literal.value === null)
  );
}

// Function types written in annotations — `(x: number) => number`, an alias of one, or
// `Differentiable<…>` around one — read into what lowering needs to call a function value:
// its parameter and result types, and whether the type promises the function is differentiable.

/** The function type `node` (written in `mod`) denotes, or undefined if it is not one. */
export function functionTypeOf(
  program: ProgramGraph,
  mod: SourceModule,
  node: TSType,
  seen: Set<TSType> = new Set(),
): FunctionTypeInfo | undefined {
  if (seen.has(node)) return undefined;
  seen.add(node);
  const text = mod.text.slice(node.start, node.end);
  switch (node.type) {
    case "TSParenthesizedType":
      return functionTypeOf(program, mod, node.typeAnnotation, seen);
    case "TSUnionType": {
      // `act: Activation | undefined`: the function it may hold.
      const present = node.types.filter((t) => !isNullishType(t));
      return present.length === 1 ? functionTypeOf(program, mod, present[0]!, seen) : undefined;
    }
    case "TSFunctionType": {
      const resolve = annotationResolver(program, mod);
      const params = node.params.map((p) => {
        const annotation = "typeAnnotation" in p ? p.typeAnnotation : undefined;
        return annotation ? resolve(annotation.typeAnnotation) : undefined;
      });
      const result = resolve(node.returnType.typeAnnotation);
      return { params, result, text };
    }
    case "TSTypeReference": {
      if (node.typeName.type !== "Identifier") return undefined;
      const name = node.typeName.name;
      const argument = node.typeArguments?.params[0];
      if (isDifferentiableMarker(mod, name) && argument) {
        const inner = functionTypeOf(program, mod, argument, seen);
        return inner && { ...inner, text };
      }
      const declared = program.resolveType(mod, name);
      if (declared?.node.type !== "TSTypeAliasDeclaration") return undefined;
      const aliased = functionTypeOf(program, declared.module, declared.node.typeAnnotation, seen);
      return aliased && { ...aliased, text };
    }
    default:
      return undefined;
  }
}

/**
 * A field without annotation whose initializer nabla's own inference cannot type
 * (`public rest = Spring.defaults.rest`, `scale = DEFAULTS.scale`): the number, boolean or
 * string the TypeScript checker gives it. Only primitives: they need nothing more to be known.
 */
function checkedPrimitive(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  initializer: Node | null,
  key: Node,
): Type | undefined {
  if (!program || !initializer) return undefined;
  const type = checkedTypeAt(program, mod.file, key.start);
  return type === "number" || type === "boolean" || type === "string" ? type : undefined;
}

/**
 * A field whose annotation nabla cannot read itself (`overrides?: Partial<Physics>`, a mapped
 * or utility type): the object or array type TypeScript's checker gives it. Not a function
 * type: those are read from the annotation (functionTypeOf).
 */
function checkedAggregate(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  annotation: TSType,
  key: Node,
): Type | undefined {
  if (!program || annotation.type === "TSFunctionType") return undefined;
  const type = checkedTypeAt(program, mod.file, key.start);
  return type !== undefined && isAggregate(type) ? type : undefined;
}

/** The function type of a parameter (`f: (x: number) => number`) written in `mod`, if it has one. */
export function parameterFunctionType(
  program: ProgramGraph,
  mod: SourceModule,
  param: Node,
): FunctionTypeInfo | undefined {
  // `private act: (x: number) => number` in a constructor: the parameter it declares.
  let inner = param.type === "TSParameterProperty" ? param.parameter : param;
  // `act: (x: number) => number = Math.tanh`: the parameter a default is given to.
  if (inner.type === "AssignmentPattern") inner = inner.left;
  const annotation = inner.type === "Identifier" ? inner.typeAnnotation : undefined;
  return annotation ? functionTypeOf(program, mod, annotation.typeAnnotation) : undefined;
}

/** Whether `name` in `mod` is nabla's `Differentiable` type. */
function isDifferentiableMarker(mod: SourceModule, name: string): boolean {
  const binding = mod.imports.get(name);
  if (!binding) return false;
  const fromNabla = binding.specifier === "nabla" || binding.specifier.startsWith("nabla/");
  return fromNabla && binding.imported === "Differentiable";
}
