import type { TSType } from "oxc-parser";
import type { FieldType, Type } from "../ir/types.js";
import type { SourceModule } from "../parse/module.js";
import type { ProgramGraph } from "../parse/program.js";

// Annotations of collections keyed at run time: `Record<string, V>`, `{ [name: string]: V }`,
// `Map<K, V>` (keyed IR types), and `Record<"a" | "b", V>`, whose keys are known, which is an
// object type with those fields. declared-types.ts asks here for these annotations.

/** Reads the IR type of an annotation in the module where it is written. */
type Inner = (node: TSType) => Type | undefined;

/** The IR type of `Record<K, V>`, `Map<K, V>`, `Set<K>` (and readonly ones); undefined for other names. */
export function keyedReference(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  name: string,
  args: readonly TSType[],
  inner: Inner,
  text: string,
): Type | undefined {
  if ((name === "Set" || name === "ReadonlySet") && args.length === 1) {
    const key = inner(args[0]!);
    return key === "string" || key === "number"
      ? { kind: "keyed", storage: "Set", key, value: "boolean" }
      : undefined;
  }
  if (args.length !== 2) return undefined;
  const [keyNode, valueNode] = args as [TSType, TSType];
  if (name === "Map" || name === "ReadonlyMap") {
    const key = inner(keyNode);
    const value = inner(valueNode);
    if ((key !== "string" && key !== "number") || !value || value === "void") return undefined;
    return { kind: "keyed", storage: "Map", key, value };
  }
  if (name !== "Record") return undefined;
  const value = inner(valueNode);
  if (!value || value === "void") return undefined;
  const names = literalKeys(program, mod, keyNode, new Set());
  if (names) {
    const fields: FieldType[] = names.map((n) => ({ name: n, type: value, noDerivative: false }));
    return { kind: "object", name: text, fields };
  }
  // `Record<string, V>`, or keyed by an alias of string (`type NodeId = string`); a
  // `Record<number, V>` is keyed by text too, as JavaScript turns number keys into text.
  const key = inner(keyNode);
  return key === "string" || key === "number"
    ? { kind: "keyed", storage: "Record", key: "string", value }
    : undefined;
}

/** `{ [name: string]: V }` (and nothing else in the type): a record of V. */
export function indexSignatureType(
  members: readonly { type: string }[],
  inner: Inner,
): Type | undefined {
  const [member, ...more] = members;
  if (!member || more.length > 0 || member.type !== "TSIndexSignature") return undefined;
  const signature = member as unknown as {
    parameters: { typeAnnotation: { typeAnnotation: TSType } }[];
    typeAnnotation: { typeAnnotation: TSType };
  };
  const key = signature.parameters[0]?.typeAnnotation.typeAnnotation;
  // `[name: string]`, or an alias of string (`[id: NodeId]`); `[i: number]` too, as text.
  const keyType = key && inner(key);
  if (keyType !== "string" && keyType !== "number") return undefined;
  const value = inner(signature.typeAnnotation.typeAnnotation);
  if (!value || value === "void") return undefined;
  return { kind: "keyed", storage: "Record", key: "string", value };
}

/**
 * The names a key type lists: `"a" | "b"`, an alias of such a union, or a field's type of
 * an interface or alias (`Asset["sector"]`); undefined when it is not a list of names.
 */
function literalKeys(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  node: TSType,
  seen: Set<TSType>,
): string[] | undefined {
  if (seen.has(node)) return undefined;
  seen.add(node);
  switch (node.type) {
    case "TSLiteralType":
      return node.literal.type === "Literal" && typeof node.literal.value === "string"
        ? [node.literal.value]
        : undefined;
    case "TSParenthesizedType":
      return literalKeys(program, mod, node.typeAnnotation, seen);
    case "TSUnionType": {
      const parts = node.types.map((t) => literalKeys(program, mod, t, seen));
      return parts.every((p): p is string[] => p !== undefined)
        ? [...new Set(parts.flat())]
        : undefined;
    }
    case "TSTypeReference": {
      if (node.typeName.type !== "Identifier" || node.typeArguments || !program) return undefined;
      const symbol = program.resolveType(mod, node.typeName.name);
      if (symbol?.node.type !== "TSTypeAliasDeclaration" || symbol.node.typeParameters)
        return undefined;
      return literalKeys(program, symbol.module, symbol.node.typeAnnotation, seen);
    }
    case "TSIndexedAccessType": {
      // `Asset["sector"]`: the type of that field of a declared interface or object alias.
      const field = node.indexType;
      const object = node.objectType;
      if (field.type !== "TSLiteralType" || field.literal.type !== "Literal") return undefined;
      const fieldName = field.literal.value;
      if (object.type !== "TSTypeReference" || object.typeName.type !== "Identifier" || !program)
        return undefined;
      const symbol = program.resolveType(mod, object.typeName.name);
      const body =
        symbol?.node.type === "TSInterfaceDeclaration"
          ? symbol.node.body.body
          : symbol?.node.type === "TSTypeAliasDeclaration" &&
              symbol.node.typeAnnotation.type === "TSTypeLiteral"
            ? symbol.node.typeAnnotation.members
            : undefined;
      const member = body?.find(
        (m) =>
          m.type === "TSPropertySignature" &&
          !m.computed &&
          m.key.type === "Identifier" &&
          m.key.name === fieldName,
      );
      const annotation =
        member?.type === "TSPropertySignature" ? member.typeAnnotation?.typeAnnotation : undefined;
      return annotation && symbol
        ? literalKeys(program, symbol.module, annotation, seen)
        : undefined;
    }
    default:
      return undefined;
  }
}
