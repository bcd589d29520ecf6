import { hasField } from "./field-presence.js";
import { hasArrowFields, isArrowField } from "./arrow-fields.js";
import { absentLiteral } from "./absence.js";
import { fieldFunctionType } from "./class-dispatch.js";
import { lowerIf } from "./merge.js";
export { copyInto, countedLoop, forEachIndex } from "./ir-loops.js";
import { constructedName, constructorOf } from "./construct.js";
import { mathMember } from "./math-functions.js";
import { staticPropertyRead } from "./class-members.js";
import { classMember } from "../parse/class-member.js";
import {
  classOfType,
  classesOfInterfaceType,
  findMember,
  lowerClassMethodCall,
} from "./class-dispatch.js";
import { emitUserCall } from "./user-call.js";
import { signatureOf } from "../types/signature.js";
import { typeResolver } from "../types/resolver.js";
import { instantiationOf } from "../types/generic-classes.js";
import { descendants } from "../parse/class-hierarchy.js";
import {
  callArity,
  closureCapture,
  moduleVariableWrite,
  typeMismatch,
  unknownType,
  unsupportedSyntax,
  unsupportedType,
} from "../diagnostics/messages/index.js";
import { readsOnly } from "./reads-only.js";
import { collectGenerator } from "./generators.js";
import type {
  ArrayExpression,
  CallExpression,
  Expression,
  MemberExpression,
  NewExpression,
  Node,
  ObjectExpression,
} from "oxc-parser";
import {
  assignable,
  elementAt,
  fieldOf,
  isArray,
  isKeyed,
  isObject,
  isRecord,
  isTypedArrayName,
  sameType,
  typeText,
} from "../ir/type-system.js";
import { copyInto, countedLoop } from "./ir-loops.js";
import {
  computedFieldReader,
  iterated,
  computedFieldWrite,
  keyedReader,
  keyedWrite,
  lowerNewMap,
  lowerRecordLiteral,
  mapSize,
} from "./keyed.js";
import type {
  ArrayType,
  FieldType,
  FunctionTypeInfo,
  ObjectType,
  Op,
  Type,
  Value,
} from "../ir/types.js";
import { callFunctionArg, fieldFunction } from "./function-values.js";
import { boundField, boundFieldPlaceholder } from "./object-closures.js";
import { isBoundGetter } from "./passed-accessors.js";
import {
  accessorPlaceholder,
  literalAccessor,
  registerAccessors,
  literalGetterRead,
} from "./literal-accessors.js";
import type { FunctionArg, LiteralAccessor } from "./context.js";
import type { LowerContext } from "./context.js";
import { describeNode } from "./describe.js";
import { unboundKind } from "./unbound-name.js";
import { isPlatformGlobal } from "../types/globals.js";
import { valuesIteratorArray } from "./iterator-values.js";
import { expectType } from "./expect-type.js";
import { lowerLengthAssignment } from "./array-length-changes.js";
import { arrayWithLiteralSpreadsInlined } from "./literal-spreads.js";

// Structured data: reading and writing fields and elements, `.length`, object and array
// literals (with spreads), and `new Float64Array(n)` / `new Array(n).fill(x)`.

/** `o.f`, `a[i]`, `a.length`: a `field`, `index` or `length` op. */
export function lowerMemberRead(ctx: LowerContext, node: MemberExpression): Value {
  return memberReader(ctx, node)();
}

/**
 * Lowers the object (and index) of `o.f`, `a[i]` or `a.length` once and returns what emits
 * the read, so it can be read again in a branch (see lowerLogical).
 */
export function memberReader(ctx: LowerContext, node: MemberExpression): () => Value {
  const statik = staticPropertyRead(ctx, node);
  if (statik) return () => statik;
  if (node.object.type === "Super") {
    // `super.yearly`: the base class's getter, run on `this` (calls.ts).
    const call = getterCall(node);
    return once(() => ctx.lowerExpression(call));
  }
  return readerOf(ctx, node, ctx.lowerExpression(node.object as Expression));
}

/** What emits the read of `node` from its already lowered `object`. */
export function readerOf(ctx: LowerContext, node: MemberExpression, object: Value): () => Value {
  ctx.at(node);
  const type = object.type;
  if (type === "string" && memberName(node) === "length") {
    // A text's length: a number without derivative.
    return () => {
      ctx.at(node);
      return ctx.builder.emit("nondiff", [object], ["number"], { callee: ".length" }).results[0]!;
    };
  }
  if (type === "string" && node.computed) return characterReader(ctx, node, object);
  if (isArray(type)) {
    if (!node.computed) {
      const name = node.property.type === "Identifier" ? node.property.name : "";
      if (name === "length") {
        return () => {
          ctx.at(node);
          return ctx.builder.emit("length", [object], ["number"]).results[0]!;
        };
      }
      return ctx.fail(node.property, unsupportedSyntax.ofIsNotSupportedIn(name, typeText(type)));
    }
    const { index, position } = lowerIndex(ctx, node);
    return () => {
      ctx.at(node);
      return ctx.builder.emit("index", [object, index], [elementAt(type, position)], {}, [], "")
        .results[0]!;
    };
  }
  if (isKeyed(type)) {
    if (
      !isRecord(type) &&
      !node.computed &&
      node.property.type === "Identifier" &&
      node.property.name === "size"
    )
      return () => mapSize(ctx, node, object);
    return keyedReader(ctx, node, object);
  }
  if (isObject(type) && isRunTimeKey(node)) return computedFieldReader(ctx, node, object);
  if (isObject(type)) {
    // A getter runs once however often its read is emitted: `s.last || 1` calls it once.
    const getter = getterRead(ctx, node, type);
    if (getter) return once(() => lowerOnReceiver(ctx, getter, object));
    const name = memberName(node);
    const literalGetter =
      name === undefined ? undefined : literalGetterRead(ctx, node, object, name);
    if (literalGetter) return once(literalGetter);
    // `shape.area` in a function given an object literal with that getter (passed-accessors.ts).
    const passedGetter = name === undefined ? undefined : boundField(ctx, object, name);
    if (passedGetter && isBoundGetter(passedGetter))
      return once(() => callFunctionArg(ctx, node, passedGetter, [], name!));
    const field = namedField(ctx, node, type);
    // A field holding a function (`layer.act`, optional or not) is read as a value, which a
    // call tests against the candidates (function-values.ts).
    if (field.type === "opaque" && !field.callable) {
      return ctx.fail(
        node.property,
        field.recursive
          ? unsupportedType.fieldHasRecursiveType(field.name, type.name)
          : isArrowField(ctx, type, field.name)
            ? unsupportedSyntax.arrowFieldReadAsValue(field.name, type.name)
            : unsupportedType.fieldOfHasTypeDifferentiable(field.name, type.name),
      );
    }
    return fieldReader(ctx, node, object, field);
  }
  return ctx.fail(node, unsupportedSyntax.onIsNotSupportedIn(describeNode(node), typeText(type)));
}

/**
 * `name[0]`, `s[i]`: the character at i, text without derivative; undefined past the end, as
 * JavaScript gives (not charAt's "").
 */
function characterReader(ctx: LowerContext, node: MemberExpression, text: Value): () => Value {
  const { index } = lowerIndex(ctx, node);
  return () => {
    ctx.at(node);
    return ctx.builder.emit("nondiff", [text, index], ["string"], { callee: "[]" }).results[0]!;
  };
}

/** `read`, run the first time only: a getter's call, whose value later reads reuse. */
function once(read: () => Value): () => Value {
  let value: Value | undefined;
  return () => (value ??= read());
}

/** A read of `field` of `object`, emitted where it is called and located at `node`. */
function fieldReader(ctx: LowerContext, node: Node, object: Value, field: FieldType): () => Value {
  return () => {
    ctx.at(node);
    return ctx.builder.emit("field", [object], [field.type], { field: field.name }, [], field.name)
      .results[0]!;
  };
}

/** `xs.length` of a plain array (a typed array's or a tuple's length is fixed). */
function isLengthOfPlainArray(node: MemberExpression, type: ArrayType): boolean {
  return (
    !node.computed &&
    node.property.type === "Identifier" &&
    node.property.name === "length" &&
    type.storage === "Array" &&
    !type.elements
  );
}

/**
 * `o.f = v`, `a[i] += v`, `a[i]++`: `compute` gets the current value (read on demand) and
 * returns the value to store; the stored value is the expression's value.
 */
export function lowerMemberWrite(
  ctx: LowerContext,
  node: MemberExpression,
  compute: (current: () => Value, expected: Type, callable?: FunctionTypeInfo) => Value,
): Value {
  // `Circle.created++`: a static property is module-level state.
  const owner = node.object;
  if (
    owner.type === "Identifier" &&
    !ctx.scope.lookup(owner.name) &&
    unboundKind(ctx, owner.name) === "class"
  )
    return ctx.fail(
      node,
      moduleVariableWrite.differentiableCodeCannotChangeStatic(
        ctx.module.text.slice(node.start, node.end),
        owner.name,
      ),
    );
  const object = ctx.lowerExpression(node.object as Expression);
  const type = object.type;
  if (isArray(type)) {
    if (isLengthOfPlainArray(node, type)) {
      // `xs.length = n`, `xs.length -= k`: the array keeps its first n elements.
      const current = () => {
        ctx.at(node);
        return ctx.builder.emit("length", [object], ["number"]).results[0]!;
      };
      const value = compute(current, "number");
      ctx.at(node);
      // A longer length leaves holes.
      if (ctx.builder.constantOf(value) !== 0)
        ctx.lengthWrites.push({ array: object, at: node.start });
      lowerLengthAssignment(ctx, object, value);
      return value;
    }
    if (!node.computed) {
      return ctx.fail(
        node,
        unsupportedSyntax.assigningOfIsNotSupported(describeNode(node), typeText(type)),
      );
    }
    const { index, position } = lowerIndex(ctx, node);
    const expected = elementAt(type, position);
    let read: Op | undefined;
    const current = () => {
      ctx.at(node);
      read = ctx.builder.emit("index", [object, index], [expected]);
      return read.results[0]!;
    };
    const value = compute(current, expected);
    ctx.at(node);
    const store = ctx.builder.emit("setIndex", [object, index, value], []);
    // `a[k] += v` reads a[k] first: outside the array, NaN in JavaScript too.
    if (read) ctx.elementUpdates.push({ read, store });
    else ctx.elementWrites.push(store);
    return value;
  }
  if (isKeyed(type)) return keyedWrite(ctx, node, object, compute);
  if (isObject(type) && isRunTimeKey(node)) return computedFieldWrite(ctx, node, object, compute);
  const setter = isObject(type) ? setterWrite(ctx, node, object, type, compute) : undefined;
  if (setter) return setter;
  if (isObject(type)) {
    const field = namedField(ctx, node, type);
    const current = fieldReader(ctx, node, object, field);
    const value = compute(current, field.type, fieldFunctionType(ctx, type, field));
    ctx.at(node);
    ctx.builder.emit("setField", [object, value], [], { field: field.name });
    return value;
  }
  return ctx.fail(node, unsupportedSyntax.assignmentToOfIsNot(describeNode(node), typeText(type)));
}

function lowerIndex(
  ctx: LowerContext,
  node: MemberExpression,
): { index: Value; position: number | undefined } {
  const property = node.property as Expression;
  const index = ctx.lowerExpression(property);
  if (index.type !== "number") {
    return ctx.fail(property, typeMismatch.arrayIndexMustBeNumber(typeText(index.type)));
  }
  const position =
    property.type === "Literal" && typeof property.value === "number" ? property.value : undefined;
  return { index, position };
}

/**
 * `v.lengthSq` where the class declares `get lengthSq()`: a call of the getter on the object
 * (calls.ts lowers it as a method call, marked as a getter's read).
 */
function getterRead(
  ctx: LowerContext,
  node: MemberExpression,
  type: ObjectType,
): Expression | undefined {
  if (node.computed || node.property.type !== "Identifier") return undefined;
  const name = node.property.name;
  // `s.weight` of an interface some class implements with `get weight()`: dispatched, the
  // others' field read where the getter is not theirs (calls.ts).
  if (type.interfaceKey) return implementedByGetter(ctx, type, name) ? getterCall(node) : undefined;
  if (!type.classKey) return undefined;
  if (fieldOf(type, name)) return undefined;
  const cls = classOfType(ctx, type);
  const declared =
    cls &&
    (findMember(ctx, cls, name, "get") ||
      descendants(ctx.program, cls).some((d) => classMember(d.decl, name, "get")));
  if (!declared) return undefined;
  return getterCall(node);
}

/**
 * `t.fahrenheit = f` where the class declares `set fahrenheit(v)`: a call of the setter (of the
 * object's run-time class where subclasses override it), with the value the assignment
 * computes (`+=` reads the getter first). Undefined when the object has such a field.
 */
function setterWrite(
  ctx: LowerContext,
  node: MemberExpression,
  object: Value,
  type: ObjectType,
  compute: (current: () => Value, expected: Type) => Value,
): Value | undefined {
  if (node.computed || node.property.type !== "Identifier" || !type.classKey) return undefined;
  const name = node.property.name;
  const cls = fieldOf(type, name) ? undefined : classOfType(ctx, type);
  const found = cls && findMember(ctx, cls, name, "set");
  if (!found) return undefined;
  // A generic class's setter (`set value(v: T)`) reads T as the instantiation's argument.
  const typeArguments = instantiationOf(ctx.program, type.classKey)?.typeArguments;
  const resolve = typeResolver(ctx.program, found.owner.module, typeArguments);
  const param = signatureOf(found.node, resolve).params[0];
  const value = compute(
    () => lowerOnReceiver(ctx, getterCall(node), object),
    param?.type ?? "number",
  );
  ctx.at(node);
  lowerClassMethodCall(ctx, node as never, object, type, name, "set", (symbol, self) =>
    emitUserCall(ctx, node, symbol, name, [value], self),
  );
  return value;
}

/** Whether some class implementing the interface `type` has a getter `name`. */
export function implementedByGetter(ctx: LowerContext, type: ObjectType, name: string): boolean {
  return classesOfInterfaceType(ctx, { ...type, interfaceKey: type.interfaceKey! }).some((c) =>
    findMember(ctx, c, name, "get"),
  );
}

/** The hidden name the receiver of a getter's call is bound to (not writable by the program). */
const RECEIVER = "$getter:receiver";

/**
 * `call`, a getter's call on `node.object`, lowered with that object as the value `object`
 * already lowered: `a.add(y).value` runs `a.add(y)` once, not again for the getter.
 */
function lowerOnReceiver(ctx: LowerContext, call: Expression, object: Value): Value {
  const member = (call as CallExpression).callee as MemberExpression;
  const written = member.object;
  // A name or `this` reads the same value again (and `this` chooses `super`'s and private names).
  if (written.type === "Identifier" || written.type === "ThisExpression")
    return ctx.lowerExpression(call);
  return ctx.inScope(() => {
    ctx.declare(RECEIVER, "const", object.type, object);
    const receiver = { type: "Identifier", name: RECEIVER, start: written.start, end: written.end };
    const callee = { ...member, object: receiver };
    return ctx.lowerExpression({ ...call, callee } as Expression);
  });
}

/** `o.name` read through a getter: a call of it, marked as a getter's read (calls.ts). */
function getterCall(node: MemberExpression): Expression {
  return {
    type: "CallExpression",
    callee: node,
    arguments: [],
    optional: false,
    getterRead: true,
    start: node.start,
    end: node.end,
  } as unknown as Expression;
}

function namedField(ctx: LowerContext, node: MemberExpression, type: ObjectType): FieldType {
  const name = fieldName(node);
  if (name === undefined) {
    return ctx.fail(node.property, unsupportedSyntax.computedPropertyNamesOK());
  }
  const field = fieldOf(type, name);
  if (!field) {
    const what = type.classKey ? `class '${type.name}'` : `type '${type.name}'`;
    return ctx.fail(node.property, unsupportedSyntax.hasNoFieldThatNabla(what, name));
  }
  return field;
}

/** The field `o.f` or `o["f"]` names. */
function fieldName(node: MemberExpression): string | undefined {
  if (!node.computed) return node.property.type === "Identifier" ? node.property.name : undefined;
  const key = node.property;
  return key.type === "Literal" && typeof key.value === "string" ? key.value : undefined;
}

/** `o.name`'s name. */
function memberName(node: MemberExpression): string | undefined {
  return !node.computed && node.property.type === "Identifier" ? node.property.name : undefined;
}

/** `o[k]` with a key known only at run time. */
function isRunTimeKey(node: MemberExpression): boolean {
  return node.computed && fieldName(node) === undefined;
}

/** Whether an array literal's elements are object literals that do not all name the same keys. */
function hasLiteralsOfDifferentKeys(node: ArrayExpression): boolean {
  const keys = node.elements.map((e) =>
    e?.type === "ObjectExpression"
      ? e.properties
          .map((p) =>
            p.type === "Property" && !p.computed && p.key.type === "Identifier" ? p.key.name : "…",
          )
          .sort()
          .join(",")
      : undefined,
  );
  return keys.length > 1 && keys.every((k) => k !== undefined) && new Set(keys).size > 1;
}

function isEmptyArray(e: ArrayExpression["elements"][number]): boolean {
  return e?.type === "ArrayExpression" && e.elements.length === 0;
}

/** `[a, b]`, `[...xs, y]`: a `literal` op, or a loop that copies spread arrays. */
export function lowerArrayLiteral(
  ctx: LowerContext,
  written: ArrayExpression,
  expected: Type | undefined,
): Value {
  const node = arrayWithLiteralSpreadsInlined(written);
  // `[{ x: 1 }, { x: 2, mass: 3 }]`: object literals of different fields, whose element type
  // TypeScript unites (the fields some lack are optional); `[[x], []]`: an empty array, whose
  // elements are its siblings'.
  if (!expected && (hasLiteralsOfDifferentKeys(node) || node.elements.some(isEmptyArray))) {
    const united = ctx.types.inferred?.expectedTypeOf(node.start, node.end);
    if (united && isArray(united) && !united.elements) expected = united;
  }
  const tuple = expected && isArray(expected) && expected.elements ? expected : undefined;
  if (node.elements.some((e) => e?.type === "SpreadElement"))
    return lowerArraySpread(ctx, node, expected && isArray(expected) ? expected : undefined);
  const elements = node.elements.map((e, i) => {
    if (!e) return ctx.fail(node, unsupportedSyntax.arrayHolesAreNotSupported());
    const want = tuple
      ? tuple.elements![i]
      : expected && isArray(expected)
        ? expected.element
        : undefined;
    // Literals inside take the element type (`[{ w, act: tanh }]` as a Layer[]).
    const v =
      e.type === "ObjectExpression" || e.type === "ArrayExpression"
        ? lowerValue(ctx, e, want)
        : ctx.lowerExpression(e as Expression);
    if (want) expectType(ctx, e, v, want);
    return v;
  });
  ctx.at(node);
  let type: ArrayType;
  if (tuple) type = tuple;
  else if (expected && isArray(expected)) type = expected;
  else {
    const first = elements[0];
    // `[]` where TypeScript knows what goes in it (`xs.reduce<number[]>(…, [])`, a return).
    const known = first ? undefined : ctx.types.inferred?.expectedTypeOf(node.start, node.end);
    if (known && isArray(known))
      return ctx.builder.emit("literal", [], [known], {}, [], "").results[0]!;
    if (!first) {
      return ctx.fail(node, unknownType.cannotDetermineElementTypeOf());
    }
    const uniform = elements.every((e) => sameType(e.type, first.type));
    // `[new Shape(x), new Circle(y)]`: TypeScript's type (`Shape[]`), where every element fits
    // it, as if annotated; else a tuple of the elements' types.
    const checked = uniform ? undefined : ctx.types.inferred?.expectedTypeOf(node.start, node.end);
    const united =
      checked &&
      isArray(checked) &&
      !checked.elements &&
      elements.every((e) => assignable(e.type, checked.element))
        ? checked
        : undefined;
    type = uniform
      ? { kind: "array", storage: "Array", element: first.type }
      : (united ?? {
          kind: "array",
          storage: "Array",
          element: "opaque",
          elements: elements.map((e) => e.type),
        });
  }
  return ctx.builder.emit("literal", elements, [type]).results[0]!;
}

/**
 * `[...a, x, ...b]` as a fresh array filled element by element. A tuple spread in gives its
 * elements one by one (its length is in its type); with only tuples spread, the result is a
 * literal, a tuple where the type expected is one or the elements' types differ.
 */
function lowerArraySpread(
  ctx: LowerContext,
  node: ArrayExpression,
  expected: ArrayType | undefined,
): Value {
  const tuple = expected?.elements ? expected : undefined;
  const expectedElement = expected && (() => expected.element);
  const parts = node.elements.flatMap((e, k) => {
    if (!e) return ctx.fail(node, unsupportedSyntax.arrayHolesAreNotSupported());
    if (e.type === "SpreadElement") {
      // `[...set]`, `[...map]`: its keys, its entries; `[...gen()]`: the values it yields.
      const v =
        collectGenerator(ctx, e.argument, node, tuple ? undefined : expectedElement) ??
        valuesIteratorArray(ctx, e.argument) ??
        iterated(ctx, ctx.lowerExpression(e.argument));
      if (isArray(v.type) && v.type.elements) {
        ctx.at(e);
        return v.type.elements.map((t, i) => {
          const at = ctx.builder.constant(i);
          return { spread: false, value: ctx.builder.emit("index", [v, at], [t]).results[0]! };
        });
      }
      if (!isArray(v.type)) {
        return ctx.fail(e, unsupportedSyntax.spreadingIsNotSupported(typeText(v.type)));
      }
      // JavaScript copies a spread where it stands: an element after it that may change the
      // array (`[...xs, xs.push(x), ...xs]`) must not change what it gave, so it is copied now.
      const later = node.elements.slice(k + 1);
      if (later.some((l) => l !== null && !readsOnly(l)))
        return [{ spread: true, value: copyArray(ctx, v, v.type) }];
      return [{ spread: true, value: v }];
    }
    return [{ spread: false, value: ctx.lowerExpression(e as Expression) }];
  });
  if (parts.every((p) => !p.spread)) {
    const values = parts.map((p) => p.value);
    ctx.at(node);
    const types = values.map((v) => v.type);
    const uniform = types.length > 0 && types.every((t) => sameType(t, types[0]!));
    const type: ArrayType =
      tuple &&
      tuple.elements!.length === types.length &&
      tuple.elements!.every((t, i) => sameType(t, types[i]!))
        ? tuple
        : uniform
          ? { kind: "array", storage: "Array", element: types[0]! }
          : { kind: "array", storage: "Array", element: "opaque", elements: types };
    return ctx.builder.emit("literal", values, [type]).results[0]!;
  }
  // `const shapes: Shape[] = [new Dot(), ...disks]`: the elements of the type expected, each
  // as a store into such an array takes it (a class's instance where its base is expected).
  const wide = expected && expected.storage === "Array" && !expected.elements;
  const element = wide
    ? expected.element
    : parts[0]!.spread
      ? (parts[0]!.value.type as ArrayType).element
      : parts[0]!.value.type;
  const type: ArrayType = { kind: "array", storage: "Array", element };
  ctx.at(node);
  const b = ctx.builder;
  const empty = b.emit("literal", [], [type]).results[0]!;
  for (const part of parts) {
    const want = part.spread ? (part.value.type as ArrayType).element : part.value.type;
    if (wide ? !assignable(want, element) : !sameType(want, element))
      ctx.fail(node, typeMismatch.arrayElementsMustAllBe(typeText(element)));
    if (!part.spread) {
      const at = b.emit("length", [empty], ["number"]).results[0]!;
      b.emit("setIndex", [empty, at, part.value], [], { value: "grow" });
      continue;
    }
    copyInto(ctx, empty, part.value);
  }
  return empty;
}

/** A fresh array of `type` (plain or typed) with the elements of `source`. */
export function copyArray(ctx: LowerContext, source: Value, type: ArrayType): Value {
  const b = ctx.builder;
  const n = b.emit("length", [source], ["number"]).results[0]!;
  const out = b.emit("alloc", [n], [type]).results[0]!;
  countedLoop(ctx, n, (i) => {
    const e = b.emit("index", [source, i], [type.element]).results[0]!;
    b.emit("setIndex", [out, i, e], []);
  });
  return out;
}

/** `{ x: a, y }`, `{ ...p, x: 1 }`: a `literal` op of an object type. */
export function lowerObjectLiteral(
  ctx: LowerContext,
  node: ObjectExpression,
  expected: Type | undefined,
  /**
   * `{} as Point`, `{ x } as Point`: asserted to be of `expected`, whose fields the literal
   * leaves out read as undefined until written, as in JavaScript.
   */
  asserted = false,
): Value {
  // `const ops = { f: square, g: Math.sin }`, `{ f: (x: number) => x * k }`: a field holding
  // a function needs its function type, which TypeScript's checker gives the literal.
  if (
    !expected &&
    node.properties.some(
      (p) =>
        p.type === "Property" && (namesAFunction(ctx, p.value) || isLocalFunction(ctx, p.value)),
    )
  )
    expected = ctx.types.inferred?.expectedTypeOf(node.start, node.end);
  // `{ base: v, bonus: i % 2 ? x : undefined }` returned from a callback: the field may be
  // absent, which only its type can say (optional, or `number | undefined`): TypeScript's.
  if (!expected && node.properties.some((p) => p.type === "Property" && mayBeAbsent(ctx, p.value)))
    expected = ctx.types.inferred?.expectedTypeOf(node.start, node.end);
  const values = new Map<string, Value>();
  // Fields holding a function written here or another local function (object-closures.ts).
  const bound = new Map<string, FunctionArg>();
  const accessors = new Map<string, LiteralAccessor>();
  // Fields copied from a spread object that may lack them, and when the object made has them:
  // where none has it, the object lacks it too (as JavaScript copies own keys only), so that a
  // later spread of this object keeps the value before it.
  const presence = new Map<string, Value>();
  for (const prop of node.properties) {
    if (prop.type === "SpreadElement") {
      const spread = lowerSpreadObject(ctx, prop.argument);
      const from = ctx.boundObjects.get(spread);
      // `...options` of `options?: Options`: JavaScript spreads nothing where it is absent.
      const mayBeAbsent = spreadMayBeAbsent(ctx, prop.argument);
      // `{ ...record, k: v }`: a copy of the record, with more entries.
      if (isRecord(spread.type) && values.size === 0)
        if (!expected || !isObject(expected))
          return lowerRecordLiteral(ctx, node, spread.type, spread);
      if (!isObject(spread.type)) {
        return ctx.fail(prop, unsupportedSyntax.spreadingIntoObjectIsNot(typeText(spread.type)));
      }
      // The copy would lack them: an instance built in differentiated code gets its arrows
      // only where its object is made (see newInstance).
      if (hasArrowFields(ctx, spread.type))
        return ctx.fail(prop, unsupportedSyntax.spreadingArrowFields(spread.type.name));
      ctx.at(prop);
      const there = mayBeAbsent
        ? ctx.builder.unary("not", ctx.builder.unary("nullish", spread))
        : undefined;
      const refuse = (why: string) =>
        ctx.fail(
          prop,
          unsupportedSyntax.spreadOfMaybeAbsent(
            ctx.module.text.slice(prop.argument.start, prop.argument.end),
            why,
          ),
        );
      for (const f of spread.type.fields) {
        if (there && ((f.type === "opaque" && !f.callable) || from))
          return refuse("its fields hold functions or values of no type nabla knows");
        if (f.type === "opaque" && !f.callable) {
          // A value nabla has no type for (`bonus: undefined`, the type TypeScript gives a
          // key written undefined) replaces the one before it, which is no longer the object's.
          if (!f.optional) for (const m of [values, bound, accessors, presence]) m.delete(f.name);
          continue;
        }
        // `{ ...opts, steps: 10 }` of an object holding a function written in a literal.
        const function_ = from?.fields.get(f.name);
        accessors.delete(f.name);
        // `{ ...box }` of an object with a getter: its value now, as JavaScript copies it.
        const getter = literalGetterRead(ctx, prop, spread, f.name);
        if (getter && there) return refuse("it has getters");
        if (getter) {
          bound.delete(f.name);
          values.set(f.name, getter());
          continue;
        }
        // A getter of a literal passed in (passed-accessors.ts): its value now, as above.
        if (function_ && isBoundGetter(function_)) {
          bound.delete(f.name);
          values.set(f.name, callFunctionArg(ctx, prop, function_, [], f.name));
          continue;
        }
        if (function_) {
          bound.set(f.name, function_);
          values.set(f.name, boundFieldPlaceholder(ctx, f.name));
          continue;
        }
        // A field the spread object may or may not have cannot replace a bound function.
        if (bound.has(f.name) && f.optional)
          return ctx.fail(
            prop,
            closureCapture.objectHoldingFunctionUsed(
              f.name,
              `spread over it an object that may or may not replace its function '${f.name}'`,
            ),
          );
        bound.delete(f.name);
        const read = () =>
          ctx.builder.emit("field", [spread], [f.type], { field: f.name }, [], f.name).results[0]!;
        const before = values.get(f.name);
        // An optional field the spread object lacks leaves the value before it (`{ ...defaults,
        // ...options }`), as in JavaScript: the object is asked whether it has the field. With
        // no value before it, the object made lacks it as well.
        if ((f.optional || there) && (!before || sameType(before.type, f.type))) {
          // Where the object may be absent, it is asked only where it is there.
          const has = !there
            ? hasField(ctx, spread, f.name)
            : f.optional
              ? lowerIf(ctx, there, [
                  () => [hasField(ctx, spread, f.name)],
                  () => [ctx.builder.constant(false)],
                ])[0]!
              : there;
          const absent = () => ctx.builder.emit("const", [], [f.type], {}, [], f.name).results[0]!;
          const otherwise = before ?? absent();
          values.set(f.name, lowerIf(ctx, has, [() => [read()], () => [otherwise]])[0]!);
          // Had before: by a key written (always), or by an earlier spread object (maybe).
          const earlier = presence.get(f.name);
          if (!before) presence.set(f.name, has);
          else if (earlier) presence.set(f.name, ctx.builder.logical("or", has, earlier));
          continue;
        }
        if (there) return refuse(`the field '${f.name}' before it is of another type`);
        // A key written again keeps its place, as in JavaScript (`{ ...s, v }`: s's order).
        values.set(f.name, read());
        presence.delete(f.name);
      }
      continue;
    }
    const key = prop.computed
      ? (constantKey(ctx, prop.key) ??
        ctx.fail(prop, unsupportedSyntax.onlyPlainKeyValueProperties()))
      : prop.key.type === "Identifier"
        ? prop.key.name
        : prop.key.type === "Literal"
          ? String(prop.key.value)
          : undefined;
    if (key === undefined) return ctx.fail(prop.key, unsupportedSyntax.unsupportedPropertyKey());
    presence.delete(key);
    const wanted = expected && isObject(expected) ? expected : undefined;
    const field = wanted && fieldOf(wanted, key);
    // `get area() { return this.w * this.h; }`, `norm() {…}`: bound once the object exists.
    const accessor = literalAccessor(ctx, prop, key);
    if (accessor) {
      bound.delete(key);
      accessors.set(key, accessor);
      // A method of an interface is no field of its type (`predict(x: number): number`): the
      // object is of that type exactly, with no placeholder for it.
      if (wanted && !field && !accessor.getter) values.delete(key);
      else values.set(key, accessorPlaceholder(ctx, accessor, field?.type));
      continue;
    }
    if (field?.recursive)
      return ctx.fail(
        prop,
        unsupportedType.fieldHasRecursiveType(key, (expected as ObjectType).name),
      );
    bound.delete(key);
    accessors.delete(key);
    // `eval: (x) => k * x` where the object's interface declares the method `eval(x): number`:
    // the function the method's type gives, as an arrow field's (`eval: (x: number) => number`).
    const callable =
      field?.callable ??
      (wanted && !field && isLocalFunction(ctx, prop.value)
        ? ctx.types.inferred?.functionTypeAt(prop.key.start)
        : undefined);
    if (callable) {
      const held = fieldFunction(ctx, prop.value, callable, `field '${key}'`);
      if ("bound" in held) bound.set(key, held.bound);
      // A method of an interface is no field of its type: no placeholder for it.
      if (field || !("bound" in held))
        values.set(key, "bound" in held ? boundFieldPlaceholder(ctx, key) : held.value);
      continue;
    }
    values.set(key, lowerValue(ctx, prop.value as Expression, field?.type));
  }
  ctx.at(node);
  const declared = expected && isObject(expected) ? expected : undefined;
  const fields: FieldType[] = [...values].map(([name, v]) => {
    const d = declared && fieldOf(declared, name);
    // A field copied from a spread object that may lack it: the object made may lack it too.
    const optional = presence.has(name) ? { optional: true } : {};
    return d ? { ...d } : { name, type: v.type, noDerivative: false, ...optional };
  });
  const type: ObjectType = declared
    ? { ...declared, fields, classKey: undefined }
    : { kind: "object", name: ctx.module.text.slice(node.start, node.end), fields };
  const leftOut: string[] = [];
  if (declared) {
    for (const f of declared.fields) {
      if (values.has(f.name) || (f.type === "opaque" && !f.optional)) continue;
      if (!f.optional && !asserted)
        ctx.fail(node, typeMismatch.fieldOfIsMissing(f.name, declared.name));
      // An optional field left out reads as undefined, as in JavaScript.
      const absent = ctx.builder.emit("const", [], [f.type], {}, [], f.name).results[0]!;
      values.set(f.name, absent);
      leftOut.push(f.name);
      fields.push({ ...f });
    }
  }
  // A field that may be absent is made absent, then written where some spread object had it.
  const operands = [...values].map(([name, v]) =>
    presence.has(name) ? ctx.builder.emit("const", [], [v.type], {}, [], name).results[0]! : v,
  );
  // A key written is the object's even when its value is undefined (`{ bonus: undefined }`,
  // `{ rate }` of a parameter left out): only the fields above may be left out.
  const omittable = [...leftOut, ...presence.keys()];
  const literal = ctx.builder.emit("literal", operands, [type], { omittable }, [], "").results[0]!;
  for (const [name, has] of presence) {
    lowerIf(ctx, has, [
      () => {
        ctx.builder.emit("setField", [literal, values.get(name)!], [], { field: name });
        return [];
      },
      () => [],
    ]);
  }
  registerAccessors(ctx, literal, accessors, node);
  if (bound.size > 0) ctx.boundObjects.set(literal, { fields: bound, origin: ctx.loc(node) });
  return literal;
}

/** Whether what `{ ...node }` spreads may be undefined or null there (TypeScript's type). */
/**
 * The key of a computed property that is one constant (`[Act.Relu]: x` of an enum, `["w1"]`,
 * `[KEY]` of a `const` the checker types as one literal): JavaScript's text of it.
 */
function constantKey(ctx: LowerContext, key: Node): string | undefined {
  if (key.type === "Literal")
    return typeof key.value === "string" || typeof key.value === "number"
      ? String(key.value)
      : undefined;
  const types = ctx.types.inferred;
  if (key.type === "MemberExpression" && !key.computed) {
    const value = types?.enumValueAt(key.property.start);
    return value === undefined ? undefined : String(value);
  }
  if (key.type !== "Identifier") return undefined;
  const values = types?.literalsAt(key.start);
  return values?.length === 1 ? String(values[0]) : undefined;
}

function spreadMayBeAbsent(ctx: LowerContext, node: Expression): boolean {
  const inner = unparenthesized(node);
  return ctx.types.inferred?.mayBeAbsentIn(inner.start, inner.end) ?? false;
}

function unparenthesized(node: Node): Node {
  while (node.type === "ParenthesizedExpression") node = node.expression;
  return node;
}

/**
 * What `{ ...o }` spreads. `...(c ? { bonus: x } : {})` is of TypeScript's type for the choice,
 * in which a field one side leaves out is optional; each side is made of that type.
 */
function lowerSpreadObject(ctx: LowerContext, node: Expression): Value {
  const inner = unparenthesized(node);
  const choice =
    inner.type === "ConditionalExpression" &&
    inner.consequent.type === "ObjectExpression" &&
    inner.alternate.type === "ObjectExpression";
  const type = choice ? ctx.types.inferred?.expectedTypeOf(inner.start, inner.end) : undefined;
  if (type && isObject(type)) return lowerValue(ctx, inner as Expression, type);
  if (
    inner.type === "LogicalExpression" &&
    inner.operator === "&&" &&
    inner.right.type === "ObjectExpression"
  )
    return lowerSpreadIf(ctx, inner.left, inner.right);
  return ctx.lowerExpression(node);
}

/**
 * `...(big && { depth: x })`: JavaScript spreads nothing from `false` (or `0`, `""`), so this is
 * `...(big ? { depth: x } : {})`: the object's fields, each optional, there where `big` is.
 */
function lowerSpreadIf(ctx: LowerContext, test: Expression, object: ObjectExpression): Value {
  const shown = ctx.types.inferred?.expectedTypeOf(object.start, object.end);
  if (!shown || !isObject(shown)) return ctx.lowerExpression(object);
  const type: ObjectType = {
    ...shown,
    fields: shown.fields.map((f) => ({ ...f, optional: true })),
  };
  const empty: ObjectExpression = { ...object, properties: [] };
  return lowerIf(ctx, ctx.lowerCondition(test), [
    () => [lowerObjectLiteral(ctx, object, type)],
    () => [lowerObjectLiteral(ctx, empty, type)],
  ])[0]!;
}

/** Whether `node` writes `undefined` or `null`, itself or as a side of a `?:`. */
function mayBeAbsent(ctx: LowerContext, node: Node): boolean {
  if (node.type === "ParenthesizedExpression") return mayBeAbsent(ctx, node.expression);
  if (node.type === "ConditionalExpression")
    return mayBeAbsent(ctx, node.consequent) || mayBeAbsent(ctx, node.alternate);
  return absentLiteral(ctx, node) !== undefined;
}

/** `(t) => …`, or the name of a local function: a function with no run-time value. */
function isLocalFunction(ctx: LowerContext, node: Node): boolean {
  if (node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression") return true;
  const slot = node.type === "Identifier" ? ctx.scope.lookup(node.name) : undefined;
  return slot !== undefined && (ctx.closures.has(slot) || ctx.bound.has(slot));
}

/** Lowers an expression where a value of type `expected` is wanted (literals take it). */
export function lowerValue(ctx: LowerContext, node: Expression, expected: Type | undefined): Value {
  let v: Value;
  // `undefined` or `null` where a type is expected (an optional argument or field).
  const absent = expected && absentValue(ctx, node, expected);
  if (absent) return absent;
  if (node.type === "ArrayExpression") v = lowerArrayLiteral(ctx, node, expected);
  else if (node.type === "ObjectExpression" && expected && isKeyed(expected))
    v = lowerRecordLiteral(ctx, node, expected);
  else if (node.type === "ObjectExpression") v = lowerObjectLiteral(ctx, node, expected);
  // `new Array(n)` and `Array(n)` take their element type from where they go (`number[][]`).
  else if (node.type === "NewExpression" && expected && isObject(expected)) {
    // `new Circle(r)` where a `Shape` goes: the instance is built as a Shape (construct.ts).
    ctx.newAs = expected;
    try {
      v = ctx.lowerExpression(node);
    } finally {
      ctx.newAs = undefined;
    }
  } else if (node.type === "NewExpression" || isArrayCall(ctx, node))
    v = lowerNew(ctx, node, expected);
  // `c ? present : {}`: each side takes the type wanted, as a literal does.
  else if (node.type === "ConditionalExpression" && expected) {
    const cond = ctx.lowerCondition(node.test);
    v = lowerIf(ctx, cond, [
      () => [lowerValue(ctx, node.consequent, expected)],
      () => [lowerValue(ctx, node.alternate, expected)],
    ])[0]!;
  } else v = ctx.lowerExpression(node);
  if (expected) expectType(ctx, node, v, expected);
  return v;
}

/** Whether `node` names a top-level function or a Math function (`square`, `Math.sin`). */
function namesAFunction(ctx: LowerContext, node: Node): boolean {
  if (mathMember(ctx, node) !== undefined) return true;
  return (
    node.type === "Identifier" &&
    !ctx.scope.lookup(node.name) &&
    ctx.program.resolveLocalFunction(ctx.module, node.name) !== undefined
  );
}

/**
 * `undefined` (the platform's, not a variable of the program named so) or `null` as a value of
 * `type`: a constant that is that absence, kept apart (`??` takes both, `=== null` one).
 */
export function absentValue(ctx: LowerContext, node: Node, type: Type): Value | undefined {
  const literal = absentLiteral(ctx, node);
  if (!literal) return undefined;
  const attrs = literal === "null" ? { isNull: true } : {};
  return ctx.builder.emit("const", [], [type], attrs, [], "").results[0]!;
}

/** Whether `node` is a call of the global `Array` (`Array(n)`, which is `new Array(n)`). */
export function isArrayCall(ctx: LowerContext, node: Node): node is CallExpression {
  return (
    node.type === "CallExpression" &&
    node.callee.type === "Identifier" &&
    node.callee.name === "Array" &&
    isPlatformGlobal(ctx.module, "Array", ctx.scope)
  );
}

/**
 * `new Float64Array(n)`, `new Array(n)` or `Array(n)` (filled by a following `.fill` or by
 * index), `new Float64Array(xs)`.
 */
export function lowerNew(
  ctx: LowerContext,
  node: NewExpression | CallExpression,
  expected?: Type,
): Value {
  const callee = node.callee;
  const name = callee.type === "Identifier" ? callee.name : "";
  if (
    (name === "Map" || name === "Set") &&
    node.type === "NewExpression" &&
    isPlatformGlobal(ctx.module, name, ctx.scope)
  )
    return lowerNewMap(ctx, node, expected);
  if (
    name &&
    isPlatformGlobal(ctx.module, name, ctx.scope) &&
    (isTypedArrayName(name) || name === "Array")
  ) {
    if (node.arguments.length !== 1 || node.arguments[0]!.type === "SpreadElement") {
      return ctx.fail(node, callArity.newTakesOneArgumentLength(name));
    }
    const arg = ctx.lowerExpression(node.arguments[0] as Expression);
    ctx.at(node);
    if (name === "Array") {
      if (arg.type !== "number") return ctx.fail(node, typeMismatch.newArrayNeedsLength());
      // Its element type from where it goes (`const rows: number[][] = new Array(n)`), else
      // from TypeScript (`new Array<number[]>(n).fill(row)`), else numbers.
      const wanted =
        expected ?? ctx.types.inferred?.expectedTypeOf(node.start, node.end) ?? undefined;
      const plain = wanted && isArray(wanted) && wanted.storage === "Array";
      const element = plain && !wanted.elements ? wanted.element : "number";
      const type: ArrayType = { kind: "array", storage: "Array", element };
      const alloc = ctx.builder.emit("alloc", [arg], [type], {}, [], "");
      if (element === "number") {
        const text = ctx.module.text.slice(node.start, node.end);
        ctx.newArrays.push({ alloc, at: node.start, text });
      }
      return alloc.results[0]!;
    }
    const type: ArrayType = {
      kind: "array",
      storage: name as ArrayType["storage"],
      element: "number",
    };
    if (arg.type === "number") return ctx.builder.emit("alloc", [arg], [type]).results[0]!;
    // A typed copy of an array of numbers.
    if (isArray(arg.type) && arg.type.element === "number") return copyArray(ctx, arg, type);
    return ctx.fail(node, typeMismatch.newNeedsLengthOrArray(name));
  }
  // `new Vec3(…)` of a class of the program is an expression of its own (expressions.ts).
  const named = node.type === "NewExpression" ? constructedName(ctx, node) : undefined;
  if (named && constructorOf(ctx, named, node)) return ctx.lowerExpression(node);
  return ctx.fail(node, unsupportedSyntax.newIsNotSupportedIn(name || named || "…"));
}
