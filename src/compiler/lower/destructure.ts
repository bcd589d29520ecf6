import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import type { Expression, Node, Statement, VariableDeclarator } from "oxc-parser";
import type { Value } from "../ir/types.js";
import { isObject, isRecord } from "../ir/type-system.js";
import type { LowerContext } from "./context.js";

// Destructuring (`const [a, b, c] = tri`, `const { x, y } = p`, `[a, b] = [b, a]`) as plain
// reads: the value goes to a hidden constant once, and each target reads its element or field
// from it (`const $d0 = tri; const a = $d0[0]; …`). Nested patterns unfold the same way. Every
// synthetic node carries the pattern's position, so diagnostics and source maps point at the
// user's code.

let destructureCount = 0;

/** What to do with the pieces of an unfolded pattern. */
interface Unfolding {
  /** Binds the whole value of a (sub)pattern to a hidden constant, once. */
  hidden(id: Node, init: Expression): void;
  /** Binds or assigns one target (a name, or in an assignment also `a[i]` or `p.x`). */
  target(target: Node, init: Expression): void;
}

/**
 * The plain declarators equivalent to a destructuring declarator, in evaluation order; the
 * hidden constants are `const` whatever the declaration's kind.
 */
export function destructureDeclarator(
  ctx: LowerContext,
  decl: VariableDeclarator,
): { declarator: VariableDeclarator; hidden: boolean }[] {
  const out: { declarator: VariableDeclarator; hidden: boolean }[] = [];
  const declarator = (id: Node, init: Expression) =>
    ({
      type: "VariableDeclarator",
      id,
      init,
      definite: false,
      start: id.start,
      end: id.end,
    }) as never;
  if (!decl.init) {
    ctx.fail(decl.id, unsupportedSyntax.destructuringDeclarationNeedsInitializer());
  }
  unfold(ctx, decl.id, decl.init, {
    hidden: (id, init) => out.push({ declarator: declarator(id, init), hidden: true }),
    target: (id, init) => out.push({ declarator: declarator(id, init), hidden: false }),
  });
  return out;
}

/** Unfolds `pattern = init` into calls of `use`, outermost value first. */
export function unfold(ctx: LowerContext, pattern: Node, init: Expression, use: Unfolding): void {
  const at = { start: pattern.start, end: pattern.end };
  if (pattern.type === "AssignmentPattern") {
    // `{ dt = 0.01 } = options`: the default when the value read is undefined.
    unfold(ctx, pattern.left, orDefault(init, pattern.right as Expression), use);
    return;
  }
  if (pattern.type === "RestElement") {
    ctx.fail(pattern, unsupportedSyntax.restElementRestInDestructuring());
  }
  if (pattern.type !== "ArrayPattern" && pattern.type !== "ObjectPattern") {
    use.target(pattern, init);
    return;
  }
  const hidden = `$d${destructureCount++}`;
  const annotation = pattern.typeAnnotation ?? null;
  use.hidden(
    { type: "Identifier", name: hidden, typeAnnotation: annotation, ...at } as never,
    init,
  );
  const read = (property: Node, computed: boolean) =>
    ({
      type: "MemberExpression",
      object: { type: "Identifier", name: hidden, ...at },
      property,
      computed,
      optional: false,
      ...at,
    }) as never;
  if (pattern.type === "ArrayPattern") {
    pattern.elements.forEach((element, i) => {
      if (!element) return; // a hole: `const [, b] = …`
      const index = { type: "Literal", value: i, raw: String(i), ...at };
      // `[first, ...rest]`: the rest is `slice(i)` of the value, a new array.
      if (element.type === "RestElement") {
        const slice = { type: "Identifier", name: "slice", ...at };
        const call = {
          type: "CallExpression",
          callee: read(slice as never, false),
          arguments: [index],
          optional: false,
          ...at,
        };
        unfold(ctx, element.argument, call as never, use);
        return;
      }
      unfold(ctx, element, read(index as never, true), use);
    });
    return;
  }
  for (const property of pattern.properties) {
    if (property.type === "RestElement")
      unfold(
        ctx,
        property.argument,
        restOfObject(ctx, property, pattern.properties, hidden, read),
        use,
      );
    else
      unfold(
        ctx,
        property.value,
        // `{ "fee-eu": fee }` reads `v["fee-eu"]`.
        read(property.key, property.computed || property.key.type === "Literal"),
        use,
      );
  }
}

/**
 * `{ a, ...rest }`: the rest is a new object of the other fields, those of its type as
 * TypeScript's checker gives it (`Omit<T, "a">`), each read from the value; of a record, a new
 * record of its other keys (restOfRecord).
 */
function restOfObject(
  ctx: LowerContext,
  rest: Node & { argument: Node },
  siblings: readonly Node[],
  hidden: string,
  read: (property: Node, computed: boolean) => Expression,
): Expression {
  const at = { start: rest.start, end: rest.end };
  const type =
    rest.argument.type === "Identifier"
      ? ctx.types.inferred?.typeAt(rest.argument.start)
      : undefined;
  if (type && isRecord(type)) return restOfRecord(ctx, rest, siblings, hidden);
  if (!type || !isObject(type)) ctx.fail(rest, unsupportedSyntax.objectRestOfUnknownType());
  const properties = type.fields.map((f) => {
    const plain = /^[A-Za-z_$][\w$]*$/.test(f.name);
    const key = plain
      ? { type: "Identifier", name: f.name, ...at }
      : { type: "Literal", value: f.name, raw: JSON.stringify(f.name), ...at };
    return {
      type: "Property",
      kind: "init",
      key,
      value: read(key as never, !plain),
      computed: false,
      method: false,
      shorthand: false,
      ...at,
    };
  });
  return { type: "ObjectExpression", properties, ...at } as never;
}

/**
 * `{ a, ...rest }` of a record: `Object.fromEntries(Object.entries(value).filter((e) => e[0]
 * !== "a"))`, a new record of the keys the pattern does not name (written as keys, not
 * computed: a computed key would run twice).
 */
function restOfRecord(
  ctx: LowerContext,
  rest: Node,
  siblings: readonly Node[],
  hidden: string,
): Expression {
  const at = { start: rest.start, end: rest.end };
  const names = siblings.flatMap((p) => {
    if (p === rest || p.type !== "Property") return [];
    if (p.computed) return ctx.fail(p, unsupportedSyntax.objectRestAfterComputedKey());
    const key = p.key as Node;
    if (key.type === "Identifier") return [key.name];
    if (key.type === "Literal") return [String(key.value)];
    return ctx.fail(p, unsupportedSyntax.objectRestAfterComputedKey());
  });
  const id = (name: string) => ({ type: "Identifier", name, ...at });
  const member = (object: unknown, name: string) => ({
    type: "MemberExpression",
    object,
    property: id(name),
    computed: false,
    optional: false,
    ...at,
  });
  const call = (callee: unknown, args: unknown[]) => ({
    type: "CallExpression",
    callee,
    arguments: args,
    optional: false,
    ...at,
  });
  const entry = `$entry${destructureCount++}`;
  const keyOf = {
    type: "MemberExpression",
    object: id(entry),
    property: { type: "Literal", value: 0, raw: "0", ...at },
    computed: true,
    optional: false,
    ...at,
  };
  const kept = names
    .map((name) => ({
      type: "BinaryExpression",
      operator: "!==",
      left: keyOf,
      right: { type: "Literal", value: name, raw: JSON.stringify(name), ...at },
      ...at,
    }))
    .reduce<unknown>(
      (all, test) =>
        all === undefined
          ? test
          : { type: "LogicalExpression", operator: "&&", left: all, right: test, ...at },
      undefined,
    ) ?? { type: "Literal", value: true, raw: "true", ...at };
  const filter = {
    type: "ArrowFunctionExpression",
    params: [id(entry)],
    body: kept,
    expression: true,
    async: false,
    generator: false,
    ...at,
  };
  const entries = call(member(id("Object"), "entries"), [id(hidden)]);
  return call(member(id("Object"), "fromEntries"), [
    call(member(entries, "filter"), [filter]),
  ]) as never;
}

let patternParamCount = 0;

/**
 * A destructured parameter (`function d1({ S, K }: Option)`, `([a, b]) => …`) bound to the
 * value the call gives it: a hidden constant holds the value, and the pattern is declared
 * from it as `const { S, K } = $param` would be.
 */
export function bindPattern(ctx: LowerContext, pattern: Node, value: Value, hidden?: string): void {
  const name = hidden ?? `$param${patternParamCount++}`;
  if (!hidden) ctx.declare(name, "const", value.type, value);
  const at = { start: pattern.start, end: pattern.end };
  const declaration = {
    type: "VariableDeclaration",
    kind: "const",
    declare: false,
    declarations: [
      {
        type: "VariableDeclarator",
        // The value has its type already (from the parameter's annotation or TypeScript).
        id: { ...pattern, typeAnnotation: null },
        init: { type: "Identifier", name, ...at },
        definite: false,
        ...at,
      },
    ],
    ...at,
  } as unknown as Statement;
  ctx.lowerStatements([declaration]);
}

/** `x = d`: x takes d when its argument is undefined (or omitted), not when it is null. */
export function lowerParameterDefault(ctx: LowerContext, name: string, value: Node): void {
  const at = { start: value.start, end: value.end };
  const id = { type: "Identifier", name, ...at };
  const statement = {
    type: "ExpressionStatement",
    expression: {
      type: "AssignmentExpression",
      operator: "=",
      left: id,
      right: orDefault(id as Expression, value as Expression),
      ...at,
    },
    ...at,
  } as unknown as Statement;
  ctx.lowerStatements([statement]);
}

/**
 * The operator of the logical expressions orDefault builds: `a ?? b`, but taking `b` only where
 * `a` is undefined, as a default does (not where it is null); expressions.ts lowers it.
 */
export const DEFAULT_OPERATOR = "?? (undefined)";

/**
 * `value` or, where it is undefined, `fallback`: what a default (of a parameter or in a
 * pattern) gives, as JavaScript gives it (not for null, which `??` would replace too). The
 * fallback takes the value's type (`options = {}` is an `Options`).
 */
export function orDefault(value: Expression, fallback: Expression): Expression {
  return {
    type: "LogicalExpression",
    operator: DEFAULT_OPERATOR,
    left: value,
    right: fallback,
    start: fallback.start,
    end: fallback.end,
  } as unknown as Expression;
}
