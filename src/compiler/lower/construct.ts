import type { Class, Node, Statement } from "oxc-parser";
import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import { keyFile } from "../ir/function-key.js";
import type { ObjectType, Value } from "../ir/types.js";
import type { FunctionLike } from "../parse/module.js";
import type { FunctionSymbol } from "../parse/program.js";
import { typeResolver } from "../types/resolver.js";
import type { LowerContext } from "./context.js";

// `new Vec3(x, y, z)` of a class of the program: a call of its constructor, made a function
// that builds the instance and returns it (`Vec3.constructor`). Its body runs as JavaScript
// runs a constructor: the fields' initializers in declaration order, then the parameter
// properties (`constructor(public x = 0)`), then the body, with `this` the new instance. In
// differentiated code the instance is a plain object of the class's fields: its methods are
// called as nabla calls methods, by the class nabla knows it to be. A class that extends
// another is not constructed yet (its `super(…)` call).

/** The constructor of the class `name` (as seen from the module being lowered), if it is one. */
export function constructorOf(
  ctx: LowerContext,
  name: string,
  at: Node,
): FunctionSymbol | undefined {
  const found = ctx.program.resolveType(ctx.module, name);
  const decl = found?.node;
  if (!found || !decl || (decl.type !== "ClassDeclaration" && decl.type !== "ClassExpression"))
    return undefined;
  if (decl.superClass) {
    return ctx.fail(
      at,
      unsupportedSyntax.constructNotSupported(
        `'new ${name}' of a class that extends another`,
        `inheritance is not supported yet: declare the fields and methods in '${name}' itself`,
      ),
    );
  }
  const reference = {
    type: "TSTypeReference",
    typeName: { type: "Identifier", name: found.name, start: 0, end: 0 },
    start: 0,
    end: 0,
  } as never;
  const type = typeResolver(ctx.program, found.module)(reference);
  if (!type || typeof type !== "object" || type.kind !== "object" || !type.classKey)
    return undefined;
  const ctor = decl.body.body.find(
    (m) => m.type === "MethodDefinition" && m.kind === "constructor",
  ) as { value: FunctionLike } | undefined;
  // A class without a constructor has an empty one.
  const node =
    ctor?.value ??
    ({
      type: "FunctionExpression",
      id: null,
      params: [],
      body: { type: "FunctionBody", body: [], start: decl.start, end: decl.end },
      async: false,
      generator: false,
      start: decl.start,
      end: decl.end,
    } as unknown as FunctionLike);
  return { module: found.module, name: `${found.name}.constructor`, node, constructs: type };
}

/** The instance a constructor starts from: the class's fields, none written yet. */
export function newInstance(ctx: LowerContext, type: ObjectType): Value {
  const absent = type.fields.map(
    (f) => ctx.builder.emit("const", [], [f.type], {}, [], f.name).results[0]!,
  );
  return ctx.builder.emit("literal", absent, [type], { instanceOf: type.name }, [], "self")
    .results[0]!;
}

/**
 * What a constructor runs before its body: `this.f = init` for each field with an initializer,
 * then `this.p = p` for each parameter property; and after it, `return this`.
 */
export function constructorStatements(
  ctx: LowerContext,
  type: ObjectType,
  fn: FunctionLike,
  body: Statement[],
): Statement[] {
  const decl = ctx.program.load(keyFile(type.classKey!)).types.get(type.name) as Class | undefined;
  const at = (n: Node) => ({ start: n.start, end: n.end });
  const assign = (field: string, value: Node, where: Node) =>
    ({
      type: "ExpressionStatement",
      expression: {
        type: "AssignmentExpression",
        operator: "=",
        left: {
          type: "MemberExpression",
          object: { type: "ThisExpression", ...at(where) },
          property: { type: "Identifier", name: field, ...at(where) },
          computed: false,
          optional: false,
          ...at(where),
        },
        right: value,
        ...at(where),
      },
      ...at(where),
    }) as unknown as Statement;
  const initializers = (decl?.body.body ?? []).flatMap((m) =>
    m.type === "PropertyDefinition" && !m.static && m.value && m.key.type === "Identifier"
      ? [assign(m.key.name, m.value, m)]
      : [],
  );
  const properties = fn.params.flatMap((p) => {
    if (p.type !== "TSParameterProperty") return [];
    const param = p.parameter.type === "AssignmentPattern" ? p.parameter.left : p.parameter;
    if (param.type !== "Identifier") return [];
    return [assign(param.name, { type: "Identifier", name: param.name, ...at(param) } as Node, p)];
  });
  const end = { start: fn.end - 1, end: fn.end };
  const returnThis = {
    type: "ReturnStatement",
    argument: { type: "ThisExpression", ...end },
    ...end,
  } as unknown as Statement;
  return [...initializers, ...properties, ...body, returnThis];
}
