import type { Node, TSEnumDeclaration, TSType } from "oxc-parser";
import type { SourceModule } from "../parse/module.js";
import type { ProgramGraph } from "../parse/program.js";

// Enums in annotations, read without a type checker: `kind: Kind`, `kind: Kind.Call`,
// `kind?: Kind`, and a field given a member (`act = Act.Tanh`). A value of an enum is a number
// or a string, as its members are; a numeric one is a discrete choice, which has no derivative.

/** What values of an enum are; undefined for a mix of both, or a member nabla cannot read. */
export type EnumValueType = "number" | "string";

/** The enum an annotation written in `mod` names (`Kind`, `Kind.Call`, `Kind | undefined`). */
export function annotatedEnum(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  node: TSType,
): TSEnumDeclaration | undefined {
  switch (node.type) {
    case "TSParenthesizedType":
      return annotatedEnum(program, mod, node.typeAnnotation);
    case "TSUnionType": {
      const present = node.types.filter(
        (t) => t.type !== "TSUndefinedKeyword" && t.type !== "TSNullKeyword",
      );
      const enums = present.map((t) => annotatedEnum(program, mod, t));
      const first = enums[0];
      return first && enums.every((e) => e === first) ? first : undefined;
    }
    case "TSTypeReference": {
      if (node.typeArguments) return undefined;
      const name = node.typeName;
      // `Kind.Call`: the type of that one member, a value of the enum.
      if (name.type === "TSQualifiedName" && name.left.type === "Identifier")
        return enumNamed(program, mod, name.left.name);
      return name.type === "Identifier" ? enumNamed(program, mod, name.name) : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Whether an annotation names a choice among numbers rather than a quantity: an enum
 * (`act: Act`), or number literals (`order: 1 | 2 | 4`). Such a parameter is a setting, which
 * operators do not differentiate by default.
 */
export function isCategoricalAnnotation(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  node: TSType,
): boolean {
  if (annotatedEnum(program, mod, node)) return true;
  const members = node.type === "TSUnionType" ? node.types : [node];
  return members.every(
    (t) =>
      t.type === "TSLiteralType" && typeof (t.literal as { value?: unknown }).value === "number",
  );
}

/** The enum whose member an initializer written in `mod` reads (`Act.Tanh`). */
export function enumOfMember(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  node: Node | null,
): TSEnumDeclaration | undefined {
  if (node?.type !== "MemberExpression" || node.object.type !== "Identifier") return undefined;
  return enumNamed(program, mod, node.object.name);
}

function enumNamed(
  program: ProgramGraph | undefined,
  mod: SourceModule,
  name: string,
): TSEnumDeclaration | undefined {
  return program ? program.resolveEnum(mod, name)?.node : mod.enums.get(name);
}

/** Whether the enum's values are numbers or strings (all of one, as TypeScript reads them). */
export function enumValueType(node: TSEnumDeclaration): EnumValueType | undefined {
  const members = new Map<string, EnumValueType | undefined>();
  for (const m of node.body.members) {
    // A member without an initializer is the one before it plus 1 (0 for the first).
    const type = m.initializer ? valueType(m.initializer, members, node.id.name) : "number";
    const key = m.id.type === "Identifier" ? m.id.name : m.id.type === "Literal" ? m.id.value : "";
    members.set(String(key), type);
  }
  const types = new Set(members.values());
  const [only, ...more] = types;
  return more.length === 0 ? only : undefined;
}

/** The type of a member's initializer: literals, arithmetic, and members declared before it. */
function valueType(
  node: Node,
  before: ReadonlyMap<string, EnumValueType | undefined>,
  enumName: string,
): EnumValueType | undefined {
  const inner = (n: Node) => valueType(n, before, enumName);
  switch (node.type) {
    case "Literal":
      return typeof node.value === "number"
        ? "number"
        : typeof node.value === "string"
          ? "string"
          : undefined;
    case "TemplateLiteral":
      return node.expressions.length === 0 ? "string" : undefined;
    case "ParenthesizedExpression":
      return inner(node.expression);
    case "UnaryExpression":
      return ["-", "+", "~"].includes(node.operator) && inner(node.argument) === "number"
        ? "number"
        : undefined;
    case "BinaryExpression": {
      const left = inner(node.left);
      const right = inner(node.right);
      if (node.operator === "+" && (left === "string" || right === "string"))
        return left && right ? "string" : undefined;
      return left === "number" && right === "number" ? "number" : undefined;
    }
    case "Identifier":
      return before.get(node.name);
    case "MemberExpression":
      // `Kind.A`, inside Kind: a member declared before.
      return node.object.type === "Identifier" &&
        node.object.name === enumName &&
        !node.computed &&
        node.property.type === "Identifier"
        ? before.get(node.property.name)
        : undefined;
    default:
      return undefined;
  }
}
