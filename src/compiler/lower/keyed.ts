import { typeMismatch, unsupportedSyntax } from "../diagnostics/messages/index.js";
import type {
  CallExpression,
  Expression,
  MemberExpression,
  NewExpression,
  Node,
  ObjectExpression,
  Statement,
} from "oxc-parser";
import {
  assignable,
  isArray,
  isKeyed,
  isMap,
  isObject,
  isRecord,
  isSet,
  sameType,
  typeText,
} from "../ir/type-system.js";
import type { ArrayType, FieldType, KeyedType, ObjectType, Type, Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";
import { expectType } from "./expect-type.js";
import { countedLoop } from "./ir-loops.js";
import { lowerIf } from "./merge.js";

// Records (`Record<string, V>`, index signatures) and maps (`Map<K, V>`) in differentiable code,
// lowered to reads and writes by key (`index`, `setIndex` with the key as index) and to loops
// over the keys, which are text without derivative (`Object.keys`). Also objects of known
// fields read by a key chosen at run time (`weights[f]` with `f: "a" | "b"`), lowered to a
// test of the key per field.

/** `r[k]`: the record's value at key k (undefined when it has none). */
export function keyedReader(ctx: LowerContext, node: MemberExpression, record: Value): () => Value {
  const type = record.type as KeyedType;
  const key = memberKey(ctx, node, type);
  return () => {
    ctx.at(node);
    return ctx.builder.emit("index", [record, key], [type.value], {}, [], "").results[0]!;
  };
}

/** `r[k] = v`, `r[k] += v`: `compute` gets the current value and returns the one to store. */
export function keyedWrite(
  ctx: LowerContext,
  node: MemberExpression,
  record: Value,
  compute: (current: () => Value, expected: Type) => Value,
): Value {
  const type = record.type as KeyedType;
  const key = memberKey(ctx, node, type);
  const current = () => {
    ctx.at(node);
    return ctx.builder.emit("index", [record, key], [type.value]).results[0]!;
  };
  const value = compute(current, type.value);
  ctx.at(node);
  store(ctx, record, key, value);
  return value;
}

/**
 * `m.get(k)`, `m.set(k, v)`, `m.has(k)`, `m.keys()`, `m.values()`, `m.entries()` of a map;
 * `s.has(k)`, `s.add(k)`, `s.keys()`, `s.values()` of a set.
 */
export function lowerMapMethod(
  ctx: LowerContext,
  node: CallExpression,
  map: Value,
  method: string,
): Value {
  const type = map.type as KeyedType;
  const args = node.arguments as Expression[];
  const b = ctx.builder;
  const arity = (n: number) => {
    if (args.length !== n || node.arguments.some((a) => a.type === "SpreadElement"))
      ctx.fail(node, unsupportedSyntax.mapMethodTakes(method, n));
  };
  if (method === "forEach") return lowerForEach(ctx, node, type);
  if (method === "delete") {
    // Whether the key was there, then the key gone (the shadow loses it too).
    arity(1);
    const key = lowerKey(ctx, args[0]!, type);
    ctx.at(node);
    const had = b.emit("nondiff", [map, key], ["boolean"], { callee: ".has" }).results[0]!;
    deleteKey(ctx, map, key);
    return had;
  }
  if (type.storage === "Set" && method !== "has" && method !== "keys") {
    if (method === "values") return lowerMapMethod(ctx, node, map, "keys");
    if (method !== "add") return ctx.fail(node, unsupportedSyntax.setMethodIsNotSupported(method));
    arity(1);
    const key = lowerKey(ctx, args[0]!, type);
    ctx.at(node);
    store(ctx, map, key, b.constant(true));
    return map;
  }
  switch (method) {
    case "get": {
      arity(1);
      const key = lowerKey(ctx, args[0]!, type);
      ctx.at(node);
      return b.emit("index", [map, key], [type.value], {}, [], "").results[0]!;
    }
    case "set": {
      arity(2);
      const key = lowerKey(ctx, args[0]!, type);
      const value = expectType(ctx, args[1]!, ctx.lowerValue(args[1]!, type.value), type.value);
      ctx.at(node);
      store(ctx, map, key, value);
      return map;
    }
    case "has": {
      arity(1);
      const key = lowerKey(ctx, args[0]!, type);
      ctx.at(node);
      return b.emit("nondiff", [map, key], ["boolean"], { callee: ".has" }).results[0]!;
    }
    case "keys":
      arity(0);
      ctx.at(node);
      return keysOf(ctx, map);
    case "values":
      arity(0);
      ctx.at(node);
      return valuesOf(ctx, map);
    case "entries":
      arity(0);
      ctx.at(node);
      return entriesOf(ctx, map);
    default:
      return ctx.fail(node, unsupportedSyntax.mapMethodIsNotSupported(method));
  }
}

let forEachCount = 0;

/**
 * `m.forEach((v, k) => …)`, `s.forEach((k) => …)`: the callback as a local function, called
 * for each entry of a `for…of` over the collection (its calls are inlined, so it may change
 * the variables around it, as JavaScript's callback does).
 */
function lowerForEach(ctx: LowerContext, node: CallExpression, type: KeyedType): Value {
  const callee = node.callee as MemberExpression;
  const [callback, ...more] = node.arguments;
  if (!callback || more.length > 0 || callback.type === "SpreadElement")
    return ctx.fail(node, unsupportedSyntax.mapMethodTakes("forEach", 1));
  // The collection is named again by the loop: only a name, which reads the same twice.
  if (callee.object.type !== "Identifier")
    return ctx.fail(node, unsupportedSyntax.mapMethodIsNotSupported("forEach"));
  const k = forEachCount++;
  const at = { start: node.start, end: node.end };
  const id = (name: string) => ({ type: "Identifier", name, ...at });
  const [fn, key, value] = [`$each${k}`, `$key${k}`, `$value${k}`];
  const declare = (pattern: unknown, init: unknown) => ({
    type: "VariableDeclaration",
    kind: "const",
    declare: false,
    declarations: [{ type: "VariableDeclarator", id: pattern, init, definite: false, ...at }],
    ...at,
  });
  const pair =
    type.storage === "Map"
      ? { type: "ArrayPattern", elements: [id(key), id(value)], ...at }
      : id(key);
  const call = {
    type: "CallExpression",
    callee: id(fn),
    // As JavaScript calls it: (value, key, collection), as many as the callback takes.
    arguments: (type.storage === "Map"
      ? [id(value), id(key), callee.object]
      : [id(key), id(key), callee.object]
    ).slice(0, "params" in callback ? callback.params.length : 2),
    optional: false,
    ...at,
  };
  const block = {
    type: "BlockStatement",
    body: [
      declare(id(fn), callback),
      {
        type: "ForOfStatement",
        await: false,
        left: declare(pair, null),
        right: callee.object,
        body: { type: "ExpressionStatement", expression: call, ...at },
        ...at,
      },
    ],
    ...at,
  } as unknown as Statement;
  ctx.lowerStatements([block]);
  return ctx.builder.newValue("void");
}

/** `m.size`, `s.size`: how many keys the map or set has. */
export function mapSize(ctx: LowerContext, node: Node, map: Value): Value {
  ctx.at(node);
  return ctx.builder.emit("length", [keysOf(ctx, map)], ["number"]).results[0]!;
}

/** `Object.keys(r)`, `Object.values(r)`, `Object.entries(r)` of a record; undefined otherwise. */
export function lowerObjectFunction(
  ctx: LowerContext,
  node: CallExpression,
  name: string,
): Value | undefined {
  if (name !== "keys" && name !== "values" && name !== "entries" && name !== "fromEntries")
    return undefined;
  if (node.arguments.length !== 1 || node.arguments[0]!.type === "SpreadElement") return undefined;
  const record = ctx.lowerExpression(node.arguments[0] as Expression);
  if (name === "fromEntries") return fromEntries(ctx, node, record);
  if (isObject(record.type)) return objectListing(ctx, node, record, name);
  if (!isRecord(record.type)) {
    return ctx.fail(node, unsupportedSyntax.objectFunctionNeedsRecord(name, typeText(record.type)));
  }
  ctx.at(node);
  if (name === "keys") return keysOf(ctx, record);
  return name === "values" ? valuesOf(ctx, record) : entriesOf(ctx, record);
}

/** `Object.fromEntries(pairs)`: a record of the pairs' keys and values. */
function fromEntries(ctx: LowerContext, node: Node, pairs: Value): Value {
  const pair = isArray(pairs.type) ? pairs.type.element : undefined;
  const parts = pair && isArray(pair) ? pair.elements : undefined;
  if (!parts || parts.length !== 2 || (parts[0] !== "string" && parts[0] !== "number"))
    return ctx.fail(node, typeMismatch.entriesExpected("Record<string, …>", typeText(pairs.type)));
  const type: KeyedType = { kind: "keyed", storage: "Record", key: "string", value: parts[1]! };
  ctx.at(node);
  const record = ctx.builder.emit("literal", [], [type], {}, [], "record").results[0]!;
  fillFrom(ctx, node, record, pairs);
  return record;
}

/**
 * `Object.fromEntries(…) as Record<"a" | "b", number>`: the fresh record as an object of those
 * fields, each read by its key (a field the record lacks reads as undefined, as in JavaScript).
 */
export function asKnownFields(ctx: LowerContext, node: Node, record: Value, type: Type): Value {
  const value = (record.type as KeyedType).value;
  if (!isObject(type) || !type.fields.every((f) => sameType(f.type, value) && !f.noDerivative))
    return record;
  const b = ctx.builder;
  ctx.at(node);
  const fields = type.fields.map(
    (f) => b.emit("index", [record, b.constant(f.name)], [value], {}, [], f.name).results[0]!,
  );
  return b.emit("literal", fields, [{ ...type, classKey: undefined }], {}, [], "").results[0]!;
}

/** `k in r`: whether the record has the key. */
export function keyedHas(ctx: LowerContext, node: Node, key: Value, record: Value): Value {
  if (!isRecord(record.type)) return ctx.fail(node, unsupportedSyntax.inOnMap());
  ctx.at(node);
  return ctx.builder.emit("nondiff", [key, record], ["boolean"], { callee: "in" }).results[0]!;
}

/**
 * `new Map()`, `new Map(pairs)`, `new Map(other)`, `new Set(keys)`: a map or set of the type
 * TypeScript gives it.
 */
export function lowerNewMap(ctx: LowerContext, node: NewExpression, expected?: Type): Value {
  const storage = node.callee.type === "Identifier" && node.callee.name === "Set" ? "Set" : "Map";
  const fits = (t: Type | undefined): t is KeyedType =>
    isKeyed(t ?? "void") && (t as KeyedType).storage === storage;
  const type = fits(expected) ? expected : ctx.types.inferred?.expectedTypeOf(node.start, node.end);
  if (!fits(type)) {
    const text = ctx.module.text.slice(node.start, node.end);
    return ctx.fail(node, unsupportedSyntax.mapTypeUnknown(text));
  }
  if (node.arguments.length > 1 || node.arguments[0]?.type === "SpreadElement")
    return ctx.fail(node, unsupportedSyntax.mapMethodTakes("new Map", 1));
  const source = node.arguments[0] && ctx.lowerExpression(node.arguments[0] as Expression);
  ctx.at(node);
  const map = ctx.builder.emit("literal", [], [type], {}, [], "map").results[0]!;
  if (source) fillFrom(ctx, node, map, source);
  return map;
}

/** `{ a: x, [k]: y, ...r }` where a record is expected: an empty record, then its entries. */
export function lowerRecordLiteral(
  ctx: LowerContext,
  node: ObjectExpression,
  type: KeyedType,
  /** The first property's spread value, already lowered. */
  first?: Value,
): Value {
  const b = ctx.builder;
  ctx.at(node);
  const record = b.emit("literal", [], [type], {}, [], "record").results[0]!;
  for (const prop of node.properties) {
    if (prop.type === "SpreadElement") {
      const source =
        first && prop === node.properties[0] ? first : ctx.lowerExpression(prop.argument);
      ctx.at(prop);
      fillFrom(ctx, prop, record, source);
      continue;
    }
    if (prop.kind !== "init" || prop.method)
      return ctx.fail(prop, unsupportedSyntax.onlyPlainKeyValueProperties());
    const key = prop.computed
      ? lowerKey(ctx, prop.key as Expression, type)
      : prop.key.type === "Identifier"
        ? b.constant(prop.key.name)
        : prop.key.type === "Literal"
          ? b.constant(String(prop.key.value))
          : ctx.fail(prop.key, unsupportedSyntax.unsupportedPropertyKey());
    const value = expectType(
      ctx,
      prop.value,
      ctx.lowerValue(prop.value as Expression, type.value),
      type.value,
    );
    ctx.at(prop);
    store(ctx, record, key, value);
  }
  return record;
}

/** The array `for…of` or a spread walks for an iterable value: a map's entries, a set's keys. */
export function iterated(ctx: LowerContext, v: Value, node?: Node): Value {
  if (node && isObject(v.type) && ITERATORS.has(v.type.name))
    return ctx.fail(node, unsupportedSyntax.iteratingAGenerator(v.type.name));
  if (isMap(v.type)) return entriesOf(ctx, v);
  return isSet(v.type) ? keysOf(ctx, v) : v;
}

/** Types of iterators that are not arrays: a generator's values are computed as it runs. */
const ITERATORS = new Set(["Generator", "IterableIterator", "Iterator", "Iterable"]);

/** The keys a `for…in` walks: a record's. */
export function iteratedKeys(ctx: LowerContext, node: Node, v: Value): Value {
  // An object of known fields: its own keys as it has them at run time, as `for…in` walks
  // them (a class's methods live on its prototype, where `for…in` does not see them).
  if (isObject(v.type)) {
    ctx.at(node);
    const keys: ArrayType = { kind: "array", storage: "Array", element: "string" };
    return ctx.builder.emit("nondiff", [v], [keys], { callee: "Object.keys" }, [], "keys")
      .results[0]!;
  }
  if (!isRecord(v.type))
    return ctx.fail(node, unsupportedSyntax.forInNeedsRecord(typeText(v.type)));
  return keysOf(ctx, v);
}

/**
 * `o[k]` of an object whose fields are known, `k` text chosen at run time: the field named k,
 * tested field by field (undefined when none is named so, as in JavaScript).
 */
export function computedFieldReader(
  ctx: LowerContext,
  node: MemberExpression,
  object: Value,
): () => Value {
  const type = object.type as ObjectType;
  const { key, fields, value } = keyAndFields(ctx, node, type);
  return () => {
    ctx.at(node);
    return chooseField(ctx, key, fields, [value], (f) => [
      ctx.builder.emit("field", [object], [value], { field: f }, [], f).results[0]!,
    ])[0]!;
  };
}

/** `o[k] = v` of an object whose fields are known: a store into the field named k. */
export function computedFieldWrite(
  ctx: LowerContext,
  node: MemberExpression,
  object: Value,
  compute: (current: () => Value, expected: Type) => Value,
): Value {
  const type = object.type as ObjectType;
  const { key, fields, value: fieldType } = keyAndFields(ctx, node, type);
  const current = () => {
    ctx.at(node);
    return chooseField(ctx, key, fields, [fieldType], (f) => [
      ctx.builder.emit("field", [object], [fieldType], { field: f }, [], f).results[0]!,
    ])[0]!;
  };
  const value = compute(current, fieldType);
  ctx.at(node);
  chooseField(ctx, key, fields, [], (f) => {
    ctx.builder.emit("setField", [object, value], [], { field: f });
    return [];
  });
  return value;
}

/**
 * `o[k](…)` of an object whose fields hold functions (`functions[e.fn](x)`): the call of the
 * field the key names, tested field by field; `call` calls one field's function.
 */
export function computedFieldCall(
  ctx: LowerContext,
  node: MemberExpression,
  object: Value,
  call: (field: FieldType) => Value,
): Value {
  const type = object.type as ObjectType;
  const key = ctx.lowerExpression(node.property as Expression);
  if (key.type !== "string" && key.type !== "number")
    return ctx.fail(node.property, typeMismatch.objectKeyMustBeText(typeText(key.type)));
  const callable = type.fields.filter((f) => f.callable);
  if (callable.length === 0 || callable.length !== type.fields.length)
    return ctx.fail(node, unsupportedSyntax.computedFieldsOfMixedTypes(type.name));
  let result: Type | undefined;
  const results: Type[] = [];
  const chosen = chooseField(
    ctx,
    key,
    callable.map((f) => f.name),
    results,
    (name) => {
      const v = call(callable.find((f) => f.name === name)!);
      if (result === undefined) {
        result = v.type;
        results.push(v.type);
      } else if (!sameType(v.type, result)) {
        return ctx.fail(node, typeMismatch.callbackMustReturnOneType());
      }
      return [v];
    },
  );
  return chosen[0]!;
}

/** The key of `o[k]` and the fields it may name: every data field, all of one type. */
function keyAndFields(
  ctx: LowerContext,
  node: MemberExpression,
  type: ObjectType,
): { key: Value; fields: string[]; value: Type } {
  const key = ctx.lowerExpression(node.property as Expression);
  if (key.type !== "string" && key.type !== "number")
    return ctx.fail(node.property, typeMismatch.objectKeyMustBeText(typeText(key.type)));
  const data = type.fields.filter((f) => f.type !== "opaque" && !f.callable && !f.optional);
  const value = data[0]?.type;
  // A key that may name a field of another type would read it as this one.
  if (!value || data.length !== type.fields.length || !data.every((f) => sameType(f.type, value)))
    return ctx.fail(node, unsupportedSyntax.computedFieldsOfMixedTypes(type.name));
  return { key, fields: data.map((f) => f.name), value };
}

/**
 * `k === f1 ? at(f1) : k === f2 ? at(f2) : … : undefined`, as nested `if`s. A number key
 * (`rates[kind]` of a `Record<Kind, number>`, a numeric enum) names the field JavaScript's
 * text of it names: it is compared with the fields named by numbers, as numbers.
 */
function chooseField(
  ctx: LowerContext,
  key: Value,
  fields: string[],
  results: Type[],
  at: (field: string) => Value[],
): Value[] {
  const named = key.type === "number" ? fields.filter(isNumberName) : fields;
  const [first, ...rest] = named;
  const b = ctx.builder;
  // No field named so: nothing stored; a read is undefined.
  if (first === undefined) return results.map((t) => b.emit("const", [], [t]).results[0]!);
  const test = b.compare("eq", key, b.constant(key.type === "number" ? Number(first) : first));
  return lowerIf(ctx, test, [() => at(first), () => chooseField(ctx, key, rest, results, at)]);
}

/** Whether a field's name is the text JavaScript makes of some number other than NaN. */
function isNumberName(name: string): boolean {
  const n = Number(name);
  return name !== "" && !Number.isNaN(n) && String(n) === name;
}

/** The key of `r[k]` or `r.name` (a map is read with `get`). */
function memberKey(ctx: LowerContext, node: MemberExpression, type: KeyedType): Value {
  if (type.storage === "Map")
    return ctx.fail(node, unsupportedSyntax.mapReadWithBrackets(typeText(type)));
  if (node.computed) return lowerKey(ctx, node.property as Expression, type);
  if (type.key !== "string" || node.property.type !== "Identifier")
    return ctx.fail(node, unsupportedSyntax.computedPropertyNamesOK());
  return ctx.builder.constant(node.property.name);
}

function lowerKey(ctx: LowerContext, node: Expression, type: KeyedType): Value {
  const key = ctx.lowerExpression(node);
  // JavaScript turns a record's number keys into text; a map keeps them apart.
  const fits = key.type === type.key || (type.storage === "Record" && key.type === "number");
  if (!fits)
    return ctx.fail(node, typeMismatch.keyMustBe(type.key, typeText(key.type), typeText(type)));
  return key;
}

/** `delete r[k]` of a record: true, as JavaScript's `delete` of a property is. */
export function lowerDelete(ctx: LowerContext, node: Node, target: MemberExpression): Value {
  const record = ctx.lowerExpression(target.object as Expression);
  if (!isRecord(record.type))
    return ctx.fail(node, unsupportedSyntax.deleteNeedsRecord(typeText(record.type)));
  const key = target.computed
    ? lowerKey(ctx, target.property as Expression, record.type as KeyedType)
    : ctx.builder.constant((target.property as { name: string }).name);
  ctx.at(node);
  deleteKey(ctx, record, key);
  return ctx.builder.constant(true);
}

/** The key gone from `target`; a read of it then gives undefined, as in JavaScript. */
function deleteKey(ctx: LowerContext, target: Value, key: Value): void {
  const value = (target.type as KeyedType).value;
  const gone = ctx.builder.emit("const", [], [value], {}, [], "deleted").results[0]!;
  ctx.builder.emit("setIndex", [target, key, gone], [], { deletes: true });
}

/** Stores `value` at `key`, which may add the key (so the shadow gains it too). */
function store(ctx: LowerContext, target: Value, key: Value, value: Value): void {
  ctx.builder.emit("setIndex", [target, key, value], [], { value: "grow" });
}

/** The keys, in JavaScript's order, as an array of text (or numbers, for a map's). */
function keysOf(ctx: LowerContext, c: Value): Value {
  const type = c.type as KeyedType;
  const b = ctx.builder;
  const keys: ArrayType = { kind: "array", storage: "Array", element: type.key };
  if (type.storage === "Record")
    return b.emit("nondiff", [c], [keys], { callee: "Object.keys" }, [], "keys").results[0]!;
  if (type.storage === "Set")
    return b.emit("nondiff", [c], [keys], { callee: "Array.from" }, [], "keys").results[0]!;
  const iterator = b.emit("nondiff", [c], ["opaque"], { callee: ".keys" }).results[0]!;
  return b.emit("nondiff", [iterator], [keys], { callee: "Array.from" }, [], "keys").results[0]!;
}

/**
 * `Object.keys/values/entries(o)` of an object of known fields, all of one type: its keys as
 * the object has them at run time (in its order), each value read by its key.
 */
function objectListing(
  ctx: LowerContext,
  node: Node,
  object: Value,
  name: "keys" | "values" | "entries",
): Value {
  const type = object.type as ObjectType;
  const data = type.fields.filter((f) => f.type !== "opaque" && !f.callable && !f.optional);
  const value = data[0]?.type;
  if (!value || data.length !== type.fields.length || !data.every((f) => sameType(f.type, value)))
    return ctx.fail(node, unsupportedSyntax.objectFunctionNeedsRecord(name, typeText(type)));
  const b = ctx.builder;
  ctx.at(node);
  const keys = b.emit(
    "nondiff",
    [object],
    [{ kind: "array", storage: "Array", element: "string" }],
    { callee: "Object.keys" },
    [],
    "keys",
  ).results[0]!;
  if (name === "keys") return keys;
  const read = (key: Value) =>
    chooseField(
      ctx,
      key,
      data.map((f) => f.name),
      [value],
      (f) => [b.emit("field", [object], [value], { field: f }, [], f).results[0]!],
    )[0]!;
  const pair: ArrayType = {
    kind: "array",
    storage: "Array",
    element: value === "string" ? "string" : "opaque",
    elements: ["string", value],
  };
  const n = b.emit("length", [keys], ["number"]).results[0]!;
  const out = b.emit(
    "alloc",
    [n],
    [{ kind: "array", storage: "Array", element: name === "values" ? value : pair }],
    {},
    [],
    name,
  ).results[0]!;
  countedLoop(ctx, n, (i) => {
    const key = b.emit("index", [keys, i], ["string"]).results[0]!;
    const v = read(key);
    const element = name === "values" ? v : b.emit("literal", [key, v], [pair]).results[0]!;
    b.emit("setIndex", [out, i, element], []);
  });
  return out;
}

/** Builds a fresh array with one element per key: `element(key)`. */
function perKey(
  ctx: LowerContext,
  c: Value,
  element: Type,
  make: (key: Value) => Value,
  hint: string,
): Value {
  const b = ctx.builder;
  const keys = keysOf(ctx, c);
  const n = b.emit("length", [keys], ["number"]).results[0]!;
  const type: ArrayType = { kind: "array", storage: "Array", element };
  const out = b.emit("alloc", [n], [type], {}, [], hint).results[0]!;
  countedLoop(ctx, n, (i) => {
    const key = b.emit("index", [keys, i], [(keys.type as ArrayType).element]).results[0]!;
    b.emit("setIndex", [out, i, make(key)], []);
  });
  return out;
}

function valuesOf(ctx: LowerContext, c: Value): Value {
  const type = c.type as KeyedType;
  return perKey(
    ctx,
    c,
    type.value,
    (key) => ctx.builder.emit("index", [c, key], [type.value]).results[0]!,
    "values",
  );
}

/** `[key, value]` pairs, as `Object.entries` and a map's iteration give them. */
function entriesOf(ctx: LowerContext, c: Value): Value {
  const type = c.type as KeyedType;
  const pair: ArrayType = {
    kind: "array",
    storage: "Array",
    element: type.key === type.value ? type.key : "opaque",
    elements: [type.key, type.value],
  };
  return perKey(
    ctx,
    c,
    pair,
    (key) => {
      const value = ctx.builder.emit("index", [c, key], [type.value]).results[0]!;
      return ctx.builder.emit("literal", [key, value], [pair]).results[0]!;
    },
    "entries",
  );
}

/** Copies into a new record or map the entries of another, or of an array of pairs. */
export function fillFrom(ctx: LowerContext, node: Node, target: Value, source: Value): void {
  const type = target.type as KeyedType;
  const b = ctx.builder;
  const st = source.type;
  if (isKeyed(st) && assignable(st.value, type.value) && (st.key === type.key || isRecord(type))) {
    const keys = keysOf(ctx, source);
    countedLoop(ctx, b.emit("length", [keys], ["number"]).results[0]!, (i) => {
      const key = b.emit("index", [keys, i], [st.key]).results[0]!;
      store(ctx, target, key, b.emit("index", [source, key], [st.value]).results[0]!);
    });
    return;
  }
  if (type.storage === "Set" && isArray(st) && st.element === type.key) {
    // `new Set(keys)`.
    countedLoop(ctx, b.emit("length", [source], ["number"]).results[0]!, (i) => {
      store(ctx, target, b.emit("index", [source, i], [type.key]).results[0]!, b.constant(true));
    });
    return;
  }
  const pair = isArray(st) ? st.element : undefined;
  const pairs = pair && isArray(pair) ? pair.elements : undefined;
  if (!isArray(st) || !pairs || pairs.length !== 2 || !assignable(pairs[1]!, type.value)) {
    return ctx.fail(node, typeMismatch.entriesExpected(typeText(type), typeText(st)));
  }
  countedLoop(ctx, b.emit("length", [source], ["number"]).results[0]!, (i) => {
    const entry = b.emit("index", [source, i], [pair!]).results[0]!;
    const key = b.emit("index", [entry, b.constant(0)], [pairs[0]!]).results[0]!;
    const value = b.emit("index", [entry, b.constant(1)], [pairs[1]!]).results[0]!;
    store(ctx, target, key, value);
  });
}
