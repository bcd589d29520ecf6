import type { CallExpression, Expression, Node } from "oxc-parser";
import { unsupportedSyntax } from "../diagnostics/messages/index.js";
import { isKeyed, isObject, typeText } from "../ir/type-system.js";
import type { Value } from "../ir/types.js";
import type { LowerContext } from "./context.js";
import { fillFrom } from "./keyed.js";

// `Object.assign(target, ...sources)`, as JavaScript runs it: the target first, then each
// source in order, each copying its fields onto the target, which is the result. Onto a new
// literal (`Object.assign({}, p, { x: 1 })`) it is the literal with the sources spread in
// (`{ ...p, x: 1 }`), a new object; onto an object, each field is assigned as `t.x = s.x`
// would be (setters run); onto a record, each key is set.

/** Names of the hidden bindings the assignments read (not writable by the program). */
const TARGET = "$assign:target";
const SOURCE = "$assign:source";

export function lowerObjectAssign(ctx: LowerContext, node: CallExpression): Value {
  const [first, ...rest] = node.arguments;
  if (!first || node.arguments.some((a) => a.type === "SpreadElement"))
    return ctx.fail(
      node,
      unsupportedSyntax.objectAssignNeeds("here it is given no target or a spread"),
    );
  if (first.type === "ObjectExpression") {
    const spreads = rest.map((a) => ({
      type: "SpreadElement",
      argument: a,
      start: a.start,
      end: a.end,
    }));
    const literal = { ...first, properties: [...first.properties, ...spreads] };
    return ctx.lowerExpression(literal as Expression);
  }
  return ctx.inScope(() => {
    const target = ctx.lowerExpression(first as Expression);
    ctx.declare(TARGET, "const", target.type, target);
    // The sources run before any copying, as arguments do.
    const sources = rest.map((a, k) => {
      // `Object.assign(record, { a: 1 })`: a literal is one of the record's type.
      const source =
        isKeyed(target.type) && a.type === "ObjectExpression"
          ? ctx.lowerValue(a, target.type)
          : ctx.lowerExpression(a as Expression);
      ctx.declare(`${SOURCE}${k}`, "const", source.type, source);
      return source;
    });
    sources.forEach((source, k) => {
      const at = rest[k]!;
      if (isKeyed(target.type)) {
        ctx.at(at);
        fillFrom(ctx, at, target, source);
        return;
      }
      if (!isObject(target.type) || !isObject(source.type))
        ctx.fail(
          at,
          unsupportedSyntax.objectAssignNeeds(
            `here a ${typeText(source.type)} onto a ${typeText(target.type)}`,
          ),
        );
      // Private fields (`#x`) are not properties: JavaScript copies none of them.
      for (const field of source.type.fields.filter((f) => !f.name.startsWith("#"))) {
        // An absent optional field is not copied, which `t.x = s.x` would (as undefined).
        if (field.optional)
          ctx.fail(
            at,
            unsupportedSyntax.objectAssignNeeds(
              `the field '${field.name}' of this ${typeText(source.type)} may be absent, and is then not copied`,
            ),
          );
        ctx.lowerExpression(assignment(field.name, `${SOURCE}${k}`, at) as Expression);
      }
    });
    return target;
  });
}

/** `$assign:target.name = $assign:source<k>.name`, placed at the source. */
function assignment(name: string, source: string, at: Node): unknown {
  const span = { start: at.start, end: at.end };
  const member = (object: string) => ({
    type: "MemberExpression",
    object: { type: "Identifier", name: object, ...span },
    property: { type: "Identifier", name, ...span },
    computed: false,
    optional: false,
    ...span,
  });
  return {
    type: "AssignmentExpression",
    operator: "=",
    left: member(TARGET),
    right: member(source),
    ...span,
  };
}
