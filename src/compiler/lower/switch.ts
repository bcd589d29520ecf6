import type { Expression, Node, Statement, SwitchStatement } from "oxc-parser";
import { alwaysExits, SWITCH_LOOP } from "./exits.js";
import type { LowerContext } from "./context.js";

// `switch` as statements lowering already knows, built as AST with the switch's positions:
//
//   do {
//     const $sw = discriminant;
//     const $case = $sw === a ? 0 : $sw === b ? 1 : <default's index, or past the end>;
//     if ($case <= 0) { …case 0 }
//     if ($case <= 1) { …case 1 }   // fall-through: every case from the chosen one on
//   } while (false);
//
// so `break` leaves the switch as it leaves the one-pass loop, `continue` passes that loop by
// to continue the loop around the switch (the loop is marked), and `return` works as anywhere.
// Cases are tested in order with `===`, as JavaScript does.

let switchCount = 0;

/** The statements of the switch, as a one-pass loop. */
export function desugarSwitch(node: SwitchStatement): Statement {
  const k = switchCount++;
  const at = { start: node.start, end: node.end };
  const id = (name: string) => ({ type: "Identifier", name, ...at });
  const literal = (value: number) => ({ type: "Literal", value, raw: String(value), ...at });
  const discriminant = `$sw${k}`;
  const chosen = `$case${k}`;
  const declare = (name: string, init: unknown) => ({
    type: "VariableDeclaration",
    kind: "const",
    declare: false,
    declarations: [{ type: "VariableDeclarator", id: id(name), init, definite: false, ...at }],
    ...at,
  });
  const fallback = node.cases.findIndex((c) => !c.test);
  let choice: unknown = literal(fallback >= 0 ? fallback : node.cases.length);
  for (let i = node.cases.length - 1; i >= 0; i--) {
    const test = node.cases[i]!.test;
    if (!test) continue;
    choice = {
      type: "ConditionalExpression",
      test: {
        type: "BinaryExpression",
        operator: "===",
        left: id(discriminant),
        right: test,
        ...at,
      },
      consequent: literal(i),
      alternate: choice,
      ...at,
    };
  }
  const bodies = node.cases.map((c, i) => ({
    type: "IfStatement",
    test: { type: "BinaryExpression", operator: "<=", left: id(chosen), right: literal(i), ...at },
    consequent: { type: "BlockStatement", body: c.consequent, start: c.start, end: c.end },
    alternate: null,
    start: c.start,
    end: c.end,
  }));
  return {
    type: "DoWhileStatement",
    body: {
      type: "BlockStatement",
      body: [
        declare(discriminant, node.discriminant as Expression),
        declare(chosen, choice),
        ...bodies,
      ],
      ...at,
    },
    test: { type: "Literal", value: false, raw: "false", ...at },
    // An unlabeled `continue` inside continues the loop around the switch (statements.ts).
    [SWITCH_LOOP]: true,
    ...at,
  } as unknown as Statement;
}

/**
 * Whether control never leaves a switch at its end (`alwaysExits`), a switch over every value
 * its discriminant's type allows, here or nested in it, counting as one with a `default`.
 */
export function switchAlwaysExits(ctx: LowerContext, node: SwitchStatement): boolean {
  return alwaysExits(node, (s) => withExhaustiveDefault(ctx, s));
}

/**
 * A switch without `default` whose cases list every value its discriminant's type allows
 * (`switch (e.kind)` over a union told apart by `kind`), with the `default` TypeScript knows
 * cannot run: a throw. So code after it is not taken for reachable (a function that returns in
 * every case returns), and a value outside the type fails loudly rather than falling through.
 */
export function withExhaustiveDefault(ctx: LowerContext, node: SwitchStatement): SwitchStatement {
  const defaultAt = node.cases.findIndex((c) => !c.test);
  // A `default` written last that no case falls into is the checker's dead end too
  // (`const unreachable: never = e`): it becomes the throw.
  if (
    defaultAt >= 0 &&
    !(defaultAt === node.cases.length - 1 && endsInExit(node.cases[defaultAt - 1]))
  )
    return node;
  const cases = defaultAt >= 0 ? node.cases.slice(0, -1) : node.cases;
  // Only a switch over literals or enum members (the tag of a union) asks the checker.
  const values = cases.map((c) => caseValue(ctx, c.test!));
  if (!values.every((v) => v !== undefined)) return node;
  const d = node.discriminant;
  const position =
    d.type === "Identifier"
      ? d.start
      : d.type === "MemberExpression" && !d.computed
        ? d.property.start
        : undefined;
  const allowed = position === undefined ? undefined : ctx.types.inferred?.literalsAt(position);
  const listed = new Set(values);
  if (!allowed || !allowed.every((v) => listed.has(v))) return node;
  const at = { start: node.end, end: node.end };
  const message = `no case of this switch matches its value (TypeScript's type allows only ${allowed.map((v) => JSON.stringify(v)).join(", ")})`;
  const unreachable = {
    type: "ThrowStatement",
    argument: {
      type: "NewExpression",
      callee: { type: "Identifier", name: "TypeError", ...at },
      arguments: [{ type: "Literal", value: message, raw: JSON.stringify(message), ...at }],
      ...at,
    },
    ...at,
  };
  const fallback = { type: "SwitchCase", test: null, consequent: [unreachable], ...at };
  return { ...node, cases: [...cases, fallback] } as unknown as SwitchStatement;
}

/** The value a case tests for: a string or number literal, or an enum's member (`Kind.Call`). */
function caseValue(ctx: LowerContext, test: Node): string | number | undefined {
  if (test.type === "Literal")
    return typeof test.value === "string" || typeof test.value === "number"
      ? test.value
      : undefined;
  if (test.type === "MemberExpression" && !test.computed)
    return ctx.types.inferred?.enumValueAt(test.property.start);
  return undefined;
}

/** Whether a case's statements end in a jump (`return`, `break`, `throw`, `continue`). */
function endsInExit(clause: SwitchStatement["cases"][number] | undefined): boolean {
  let last: Node | undefined = clause?.consequent[clause.consequent.length - 1];
  while (last?.type === "BlockStatement") last = last.body[last.body.length - 1];
  return (
    last !== undefined &&
    ["ReturnStatement", "BreakStatement", "ThrowStatement", "ContinueStatement"].includes(last.type)
  );
}
