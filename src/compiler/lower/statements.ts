import { declareHeldOperator } from "./held-operators.js";
import {
  typeMismatch,
  unknownType,
  unsupportedSyntax,
  unsupportedType,
} from "../diagnostics/messages/index.js";
import type {
  BlockStatement,
  DoWhileStatement,
  ForOfStatement,
  ForStatement,
  Function,
  Node,
  Statement,
  SwitchStatement,
  VariableDeclaration,
  WhileStatement,
} from "oxc-parser";
import type { Value } from "../ir/types.js";
import { resolveFunctionArg } from "./function-values.js";
import type { LowerContext, LoopTarget, Slot } from "./context.js";
import { describeNode, syntaxKind } from "./describe.js";
import { destructureDeclarator } from "./destructure.js";
import { declareMadeFunction } from "./factories.js";
import { desugarSwitch, switchAlwaysExits, withExhaustiveDefault } from "./switch.js";
import { lowerThrow } from "./throw.js";
import { forOfSource } from "./for-of-sources.js";
import { containsYield, forOfGenerator, lowerGeneratorLoop } from "./generators.js";
import { lowerAuxReturn } from "./aux.js";
import { logicalStatementAsIf } from "./logical-statements.js";
import { declareFunctionList, forOfFunctionList } from "./function-lists.js";
import { declareObjectList, forOfObjectList } from "./object-lists.js";
import { namesFunction } from "./names-function.js";
import {
  alwaysExits,
  isLabeledBlockLoop,
  isSwitchLoop,
  LABELED_BLOCK_LOOP,
  scanExits,
  type Exits,
} from "./exits.js";
import { lowerCondition, lowerExpression } from "./expressions.js";
import { isAggregate, isObject, sameType, typeText } from "../ir/type-system.js";
import { iterated, iteratedKeys } from "./keyed.js";
import { functionLabel } from "../ir/names.js";
import { lowerIf, lowerLoop } from "./merge.js";
import { annotationType } from "../types/signature.js";
import { lowerValue } from "./members.js";
import { functionTypeOf } from "../types/declared-types.js";
import { assignedNames } from "./assigned-names.js";
import { article } from "./describe.js";
import { expectType } from "./expect-type.js";
import { statementKey } from "./recovery.js";
import { walk } from "../parse/module.js";

// AST statements → IR. Early exits (`return`, `break`, `continue`) set flags; the statements
// after one that may exit run under a guard on those flags. When one branch of an `if` always
// exits, the statements after the `if` move into the other branch instead, which keeps the
// common early-return pattern free of flags.

/** Lowers a statement list; returns true when control never falls off its end. */
export function lowerStatements(ctx: LowerContext, statements: Statement[]): boolean {
  // `function g(…) {…}` in a body: a local function, hoisted as JavaScript hoists it; a call
  // inlines it as it does an arrow's (`function* range(…)`, a generator, where a `for…of`
  // iterates it, generators.ts).
  for (const s of statements) {
    if (s.type === "FunctionDeclaration" && hoisted(s) && s.id && !ctx.scope.names.has(s.id.name))
      ctx.closures.set(ctx.declareFunctionName(s.id.name), { node: s, scope: ctx.scope });
  }
  for (let i = 0; i < statements.length; i++) {
    const statement = statements[i]!;
    const rest = statements.slice(i + 1);
    if (statement.type === "IfStatement" && rest.length > 0 && !isSkipped(ctx, statement)) {
      const complete = (s: SwitchStatement) => withExhaustiveDefault(ctx, s);
      const thenExits = alwaysExits(statement.consequent, complete);
      const elseExits = alwaysExits(statement.alternate, complete);
      if (thenExits !== elseExits) return lowerIfWithRest(ctx, statement, thenExits, rest);
    }
    if (lowerStatement(ctx, statement)) return true;
    const flags = exitFlags(ctx, scanExits(ctx, statement));
    if (flags.length > 0 && rest.length > 0) {
      let restExits = false;
      const stop = anyOf(ctx, flags);
      lowerIf(ctx, ctx.builder.unary("not", stop), [
        () => {
          restExits = lowerStatements(ctx, rest);
          return [];
        },
        () => [],
      ]);
      return restExits;
    }
  }
  return false;
}

function lowerIfWithRest(
  ctx: LowerContext,
  statement: Extract<Statement, { type: "IfStatement" }>,
  thenExits: boolean,
  rest: Statement[],
): boolean {
  ctx.at(statement.test);
  const cond = lowerCondition(ctx, statement.test);
  const branch = (node: Statement | null, withRest: boolean) => () => {
    const body = node ? [node] : [];
    exited[withRest ? 1 : 0] = lowerStatements(ctx, withRest ? [...body, ...rest] : body);
    return [];
  };
  const exited = [false, false];
  lowerIf(ctx, cond, [
    branch(statement.consequent, !thenExits),
    branch(statement.alternate, thenExits),
  ]);
  return exited[0]! && exited[1]!;
}

function isSkipped(ctx: LowerContext, node: Statement): boolean {
  return ctx.skipped.size > 0 && ctx.skipped.has(statementKey(node));
}

/** Lowers one statement; returns true when control never reaches its end. */
export function lowerStatement(ctx: LowerContext, node: Statement): boolean {
  // Left out after its error was reported, to find the function's other errors (recovery.ts).
  if (isSkipped(ctx, node)) return false;
  ctx.at(node);
  switch (node.type) {
    case "ExpressionStatement":
      // `yield v;` in a generator inlined at its `for…of` (generators.ts).
      if (node.expression.type === "YieldExpression" && ctx.yieldSite) {
        ctx.yieldSite.lower(node.expression);
        return false;
      }
      // `v > 0 && log.push(v);`: an `if` (logical-statements.ts).
      if (node.expression.type === "LogicalExpression" && logicalStatementAsIf(node))
        return lowerStatement(ctx, logicalStatementAsIf(node)!);
      // `void promise;`, `void unused;`: the expression, its value dropped as any statement's.
      lowerExpression(
        ctx,
        node.expression.type === "UnaryExpression" && node.expression.operator === "void"
          ? node.expression.argument
          : node.expression,
      );
      return false;
    case "VariableDeclaration":
      lowerDeclaration(ctx, node);
      return false;
    case "BlockStatement":
      return ctx.inScope(() => lowerStatements(ctx, node.body));
    case "EmptyStatement":
      return false;
    case "IfStatement": {
      const cond = lowerCondition(ctx, node.test);
      const exited = [false, false];
      lowerIf(ctx, cond, [
        () => {
          exited[0] = lowerStatement(ctx, node.consequent);
          return [];
        },
        () => {
          exited[1] = node.alternate ? lowerStatement(ctx, node.alternate) : false;
          return [];
        },
      ]);
      return exited[0]! && exited[1]!;
    }
    case "ReturnStatement": {
      if (ctx.resultType === "void") {
        if (node.argument)
          return ctx.fail(node.argument, typeMismatch.thisFunctionReturnsNothingVoid());
        ctx.at(node);
        ctx.assign(ctx.returnedFlag!, ctx.builder.constant(true));
        return true;
      }
      if (!node.argument)
        return ctx.fail(node, typeMismatch.returnNeedsValueHere(article(ctx.resultType)));
      if (ctx.auxReturn) {
        const loss = lowerAuxReturn(ctx, node.argument, ctx.auxReturn.declared);
        ctx.at(node);
        ctx.assign(ctx.resultSlot!, loss);
        ctx.assign(ctx.returnedFlag!, ctx.builder.constant(true));
        return true;
      }
      if (ctx.resultDefaulted) {
        // No return type: nabla took it to be a number, and an array here says otherwise.
        const returned = lowerValue(ctx, node.argument, undefined);
        if (isAggregate(returned.type)) {
          return ctx.fail(
            node.argument,
            typeMismatch.hasNoReturnTypeSo(
              functionLabel(ctx.functionName),
              article(returned.type),
              typeText(returned.type),
            ),
          );
        }
        expectType(ctx, node.argument, returned, ctx.resultType);
        ctx.at(node);
        ctx.assign(ctx.resultSlot!, returned);
        ctx.assign(ctx.returnedFlag!, ctx.builder.constant(true));
        return true;
      }
      const value = lowerValue(ctx, node.argument, ctx.resultType);
      ctx.at(node);
      ctx.assign(ctx.resultSlot!, value);
      ctx.assign(ctx.returnedFlag!, ctx.builder.constant(true));
      return true;
    }
    case "ThrowStatement":
      lowerThrow(ctx, node);
      return true;
    case "BreakStatement":
    case "ContinueStatement": {
      const target = findTarget(ctx, node.label?.name, node, node.type === "ContinueStatement");
      const flag = node.type === "BreakStatement" ? target.breakFlag : target.continueFlag;
      ctx.assign(flag!, ctx.builder.constant(true));
      return true;
    }
    case "LabeledStatement":
      if (node.body.type === "ForOfStatement") {
        // Over a list of functions: a loop over its index, under the same label.
        const overFunctions = forOfFunctionList(ctx, node.body);
        if (overFunctions) return lowerStatement(ctx, { ...node, body: overFunctions });
        const overObjects = forOfObjectList(ctx, node.body, node.label.name);
        if (overObjects) return lowerStatement(ctx, overObjects);
        const source = forOfGenerator(ctx, node.body);
        if ("generator" in source) {
          lowerGeneratorLoop(ctx, node.body, source.generator, node.label.name);
          return false;
        }
        return lowerLabeledForOf(ctx, source.loop, node.label.name);
      }
      if (
        node.body.type === "ForStatement" ||
        node.body.type === "WhileStatement" ||
        node.body.type === "DoWhileStatement"
      ) {
        lowerLoopStatement(ctx, node.body, node.label.name);
        return alwaysExits(node);
      }
      if (node.body.type === "BlockStatement") {
        // `found: { … break found; … }`: a loop that runs once, which `break found` leaves.
        const at = { start: node.body.start, end: node.body.end };
        const once = {
          type: "DoWhileStatement",
          body: node.body,
          test: { type: "Literal", value: false, raw: "false", ...at },
          [LABELED_BLOCK_LOOP]: true,
          ...at,
        } as unknown as LoopStatement;
        lowerLoopStatement(ctx, once, node.label.name);
        return alwaysExits(node);
      }
      return ctx.fail(node, unsupportedSyntax.labelsAreSupportedOnLoops(node.label.name));
    case "ForStatement":
    case "WhileStatement":
    case "DoWhileStatement":
      lowerLoopStatement(ctx, node, undefined);
      return alwaysExits(node);
    case "ForOfStatement": {
      const overList = forOfFunctionList(ctx, node) ?? forOfObjectList(ctx, node);
      if (overList) return lowerStatement(ctx, overList);
      const source = forOfGenerator(ctx, node);
      if ("generator" in source) {
        lowerGeneratorLoop(ctx, node, source.generator, undefined);
        return false;
      }
      return lowerStatement(ctx, desugarForOf(ctx, source.loop));
    }
    case "ForInStatement": {
      // `for (const k in r)`: a `for…of` over the record's keys.
      KEYS_ITERATED.add(node.right);
      const walk = { ...node, type: "ForOfStatement", await: false } as unknown as ForOfStatement;
      return lowerStatement(ctx, desugarForOf(ctx, walk));
    }
    case "SwitchStatement": {
      const complete = withExhaustiveDefault(ctx, node);
      return lowerStatement(ctx, desugarSwitch(complete)) || switchAlwaysExits(ctx, node);
    }
    case "TSTypeAliasDeclaration":
    case "TSInterfaceDeclaration":
      return false;
    case "FunctionDeclaration":
      if (hoisted(node)) return false; // by lowerStatements
      return ctx.fail(
        node,
        unsupportedSyntax.isNotSupportedInDifferentiable(
          describeNode(node),
          syntaxKind(node),
          ctx.codeContext,
        ),
      );
    default:
      return ctx.fail(
        node,
        unsupportedSyntax.isNotSupportedInDifferentiable(
          describeNode(node),
          syntaxKind(node),
          ctx.codeContext,
        ),
      );
  }
}

/**
 * Whether a nested function declaration is a local function, as an arrow is: not when it
 * reads its own `this`, which inlining it would take from the enclosing function.
 */
function hoisted(node: Function): boolean {
  let readsThis = false;
  walk(node.body!, (n) => {
    if (n.type === "ThisExpression") readsThis = true;
    return !readsThis && n.type !== "FunctionDeclaration" && n.type !== "FunctionExpression";
  });
  return node.generator || !readsThis;
}

function lowerLabeledForOf(ctx: LowerContext, node: ForOfStatement, label: string): boolean {
  const [source, loop] = desugarForOf(ctx, node).body;
  ctx.inScope(() => {
    lowerDeclaration(ctx, source);
    lowerLoopStatement(ctx, loop, label);
  });
  return false;
}

function lowerDeclaration(ctx: LowerContext, node: VariableDeclaration): void {
  if (node.kind === "var") {
    ctx.fail(node, unsupportedSyntax.varDeclarationsAreNotSupported());
  }
  if (node.kind !== "const" && node.kind !== "let") {
    ctx.fail(node, unsupportedSyntax.declarationsAreNotSupportedIn(node.kind));
  }
  const declarators = node.declarations.flatMap((decl) =>
    decl.id.type === "Identifier"
      ? [{ declarator: decl, hidden: false }]
      : destructureDeclarator(ctx, decl),
  );
  for (const { declarator: decl, hidden } of declarators) {
    const kind = hidden ? "const" : node.kind;
    if (decl.id.type !== "Identifier") {
      ctx.fail(
        decl.id,
        unsupportedSyntax.isNotSupportedInDifferentiable(
          describeNode(decl.id),
          syntaxKind(decl.id),
          ctx.codeContext,
        ),
      );
    }
    const name = decl.id.name;
    const annotation = decl.id.typeAnnotation;
    const init = decl.init;
    // `const layers = [(v) => v * a, Math.tanh]`: each element a local function (function-lists.ts).
    if (kind === "const" && declareFunctionList(ctx, name, init, (d) => lowerDeclaration(ctx, d)))
      continue;
    // `const terms: Term[] = [{ eval: (x) => … }, …]`: each element a local object (object-lists.ts).
    if (kind === "const" && declareObjectList(ctx, name, init, (d) => lowerDeclaration(ctx, d)))
      continue;
    // `(v: number) => number`, or a name for such a type (`const square: Fn = (v) => …`).
    const functionAnnotation =
      !annotation ||
      annotation.typeAnnotation.type === "TSFunctionType" ||
      functionTypeOf(ctx.program, ctx.module, annotation.typeAnnotation) !== undefined;
    if (
      kind === "const" &&
      functionAnnotation &&
      (init?.type === "ArrowFunctionExpression" || init?.type === "FunctionExpression")
    ) {
      // A local function: no value, its calls are inlined (see lowerClosureCall).
      ctx.closures.set(ctx.declareFunctionName(name), { node: init, scope: ctx.scope });
      continue;
    }
    // `const g = gradient(f)`: each `g(x)` is the operator's call (held-operators.ts).
    if (kind === "const" && declareHeldOperator(ctx, name, init)) continue;
    if (
      kind === "const" &&
      (!annotation || annotation.typeAnnotation.type === "TSFunctionType") &&
      declareMadeFunction(ctx, name, init)
    )
      continue; // `const rand = mulberry32(42)`: the function a factory makes (factories.ts)
    const callable =
      annotation && functionTypeOf(ctx.program, ctx.module, annotation.typeAnnotation);
    const aliased = init?.type === "Identifier" ? ctx.scope.lookup(init.name) : undefined;
    const closure = aliased && ctx.closures.get(aliased);
    if (closure && kind === "const") {
      // `const g2 = g`: another name for the local function, read where it is called.
      ctx.closures.set(ctx.declareFunctionName(name), closure);
      continue;
    }
    if (init && kind === "const" && (callable || namesFunction(ctx, init))) {
      // `const act = useRelu ? relu : tanh`: a name for a function value.
      const value = resolveFunctionArg(
        ctx,
        init,
        callable ?? ctx.types.inferred?.functionTypeAt(decl.id.start),
        `'${name}'`,
      );
      ctx.bound.set(ctx.declareFunctionName(name), value);
      continue;
    }
    // An annotation nabla cannot read itself (`Pick<…>`, `NonNullable<…>`) is read by the
    // checker: the declared variable's type.
    const declared =
      annotationType(annotation, ctx.types) ??
      (annotation ? ctx.types.inferred?.typeAt(decl.id.start) : undefined);
    if (annotation && (!declared || declared === "opaque" || declared === "void")) {
      const text = ctx.module.text.slice(
        annotation.typeAnnotation.start,
        annotation.typeAnnotation.end,
      );
      ctx.fail(annotation, unsupportedType.hasTypeWhichDifferentiableCode(name, text));
    }
    let value: Value;
    if (decl.init) {
      value = lowerValue(ctx, decl.init, declared);
      // What a `for…of` walks: a map's entries.
      if (KEYS_ITERATED.has(decl.init)) value = iteratedKeys(ctx, decl.init, value);
      else if (ITERATED.has(decl.init)) value = iterated(ctx, value, decl.init);
    } else if (declared) {
      // Declared without a value, it is undefined, as `= undefined` makes it, whatever its type
      // says (`let best: number;` read as `best! === undefined` in a search). Where every path
      // assigns it before reading, that undefined is never read, and SSA drops it.
      value = ctx.builder.emit("const", [], [declared], {}, [], name).results[0]!;
    } else {
      return ctx.fail(decl.id, unknownType.cannotDetermineTypeOfAdd(name));
    }
    if (kind === "const") {
      ctx.declare(name, "const", value.type, value);
      continue;
    }
    // `let chosen: Body = box`: of the value's class, until another class is assigned (Slot).
    const wider =
      declared && isObject(declared) && isObject(value.type) && !sameType(declared, value.type)
        ? { type: declared, at: `${decl.id.start}:${decl.id.end}` }
        : undefined;
    if (wider && ctx.widened.has(wider.at)) ctx.declare(name, "let", wider.type, value);
    else ctx.declare(name, "let", value.type, value, wider);
  }
}

function findTarget(
  ctx: LowerContext,
  label: string | undefined,
  node: Node,
  continuing: boolean,
): LoopTarget {
  for (let i = ctx.loops.length - 1; i >= 0; i--) {
    const loop = ctx.loops[i]!;
    // `continue` in a switch continues the loop around it.
    if (continuing && loop.isSwitch) continue;
    // A labelled block is left by its label only.
    if (loop.isBlock && (label === undefined || continuing)) continue;
    if (label === undefined || loop.label === label) return loop;
  }
  return ctx.fail(
    node,
    label ? unsupportedSyntax.noLoopLabeled(label) : unsupportedSyntax.breakOutsideLoop(),
  );
}

/** The flags whose being set means the statements after one with these exits must not run. */
function exitFlags(ctx: LowerContext, exits: Exits): Slot[] {
  const flags: Slot[] = [];
  if (exits.returns) flags.push(ctx.returnedFlag!);
  for (const t of exits.breaks) flags.push(t.breakFlag!);
  for (const t of exits.continues) flags.push(t.continueFlag!);
  return flags;
}

function anyOf(ctx: LowerContext, flags: Slot[]): Value {
  return flags.map((f) => ctx.value(f)).reduce((a, b) => ctx.builder.logical("or", a, b));
}

let forOfCount = 0;
/** The iterated expressions of desugared `for…of` loops. */
const ITERATED = new WeakSet<Node>();
/** The objects of desugared `for…in` loops, whose keys are walked. */
const KEYS_ITERATED = new WeakSet<Node>();

/**
 * `for (const x of xs) body` as `{ const $xs = xs; for (let $i = 0; $i < $xs.length; $i++)
 * { const x = $xs[$i]; body } }`, built as AST so break, continue and labels work as for any
 * loop. Every synthetic node points at the `for…of`, so diagnostics and source maps do too.
 */
function desugarForOf(
  ctx: LowerContext,
  node: ForOfStatement,
): BlockStatement & { body: [VariableDeclaration, ForStatement] } {
  if (node.await) ctx.fail(node, unsupportedSyntax.forAwaitIsNotSupported());
  const left = node.left;
  if (left.type !== "VariableDeclaration" || left.declarations.length !== 1) {
    return ctx.fail(left, unsupportedSyntax.forOfLoopMustDeclare());
  }
  const at = { start: node.start, end: node.end };
  const k = forOfCount++;
  const id = (name: string) => ({ type: "Identifier", name, ...at }) as never;
  const array = `$of${k}`;
  const index = `$i${k}`;
  const declare = (kind: "const" | "let", name: string, init: unknown, typed?: unknown) =>
    ({
      type: "VariableDeclaration",
      kind,
      declarations: [
        {
          type: "VariableDeclarator",
          id: typed ?? id(name),
          init,
          ...at,
        },
      ],
      ...at,
    }) as never;
  // `xs.entries()`, `.keys()`, `.values()` of an array: read by index (for-of-sources.ts).
  const source = forOfSource(ctx, node.right);
  const element = source.element?.(id(array), id(index)) ?? {
    type: "MemberExpression",
    object: id(array),
    property: id(index),
    computed: true,
    optional: false,
    ...at,
  };
  const first = left.declarations[0]!;
  const body = node.body.type === "BlockStatement" ? node.body.body : [node.body];
  const loop = {
    type: "ForStatement",
    init: declare("let", index, { type: "Literal", value: 0, raw: "0", ...at }),
    test: {
      type: "BinaryExpression",
      operator: "<",
      left: id(index),
      right: {
        type: "MemberExpression",
        object: id(array),
        property: id("length"),
        computed: false,
        optional: false,
        ...at,
      },
      ...at,
    },
    update: { type: "UpdateExpression", operator: "++", prefix: false, argument: id(index), ...at },
    body: {
      type: "BlockStatement",
      body: [declare(left.kind === "const" ? "const" : "let", "", element, first.id), ...body],
      ...at,
    },
    ...at,
  } as unknown as ForStatement;
  ITERATED.add(node.right);
  return {
    type: "BlockStatement",
    body: [declare("const", array, source.iterated), loop],
    ...at,
  } as unknown as BlockStatement & { body: [VariableDeclaration, ForStatement] };
}

type LoopStatement = ForStatement | WhileStatement | DoWhileStatement;

function lowerLoopStatement(
  ctx: LowerContext,
  node: LoopStatement,
  label: string | undefined,
): void {
  ctx.inScope(() => {
    if (node.type === "ForStatement" && node.init) {
      if (node.init.type === "VariableDeclaration") lowerDeclaration(ctx, node.init);
      else lowerExpression(ctx, node.init);
    }
    const target: LoopTarget = {
      label,
      node,
      breakFlag: undefined,
      continueFlag: undefined,
      ...(isSwitchLoop(node) ? { isSwitch: true } : {}),
      ...(isLabeledBlockLoop(node) ? { isBlock: true } : {}),
    };
    ctx.loops.push(target);
    try {
      const inside = scanExits(ctx, node.body);
      if (inside.breaks.has(target)) target.breakFlag = ctx.hiddenSlot("break", "boolean", false);
      const continues = inside.continues.has(target);
      inside.breaks.delete(target);
      inside.continues.delete(target);
      // Flags that end the loop: its own break, exits to outer loops, and return.
      const stopFlags = [
        ...(target.breakFlag ? [target.breakFlag] : []),
        ...exitFlags(ctx, inside),
      ];
      const update = node.type === "ForStatement" ? node.update : null;
      const assigned = [...assignedNames([node.test, update, node.body], true)]
        .map((name) => ctx.scope.lookup(name))
        .filter((slot): slot is Slot => slot !== undefined && ctx.env.has(slot))
        .concat(ctx.closureWrites([node.test, update, node.body]))
        // A `yield` in an inlined generator's loop runs its consumer's body (generators.ts).
        .concat(
          ctx.yieldSite && containsYield(node.test, update, node.body) ? ctx.yieldSite.writes : [],
        );
      const carried = [
        ...new Set([
          ...assigned,
          ...stopFlags,
          ...(inside.returns && ctx.resultSlot ? [ctx.resultSlot] : []),
        ]),
      ];

      const stopped = () => (stopFlags.length ? anyOf(ctx, stopFlags) : undefined);
      const test = () => (node.test ? lowerCondition(ctx, node.test) : ctx.builder.constant(true));
      const guardedTest = () => {
        const stop = stopped();
        return stop
          ? lowerIf(ctx, stop, [() => [ctx.builder.constant(false)], () => [test()]])[0]!
          : test();
      };
      const body = () => {
        if (continues) target.continueFlag = ctx.hiddenSlot("continue", "boolean", false);
        lowerStatement(ctx, node.body);
      };

      if (node.type === "DoWhileStatement") {
        // `continue` in a do…while jumps to the test, so only the stop flags skip it.
        lowerLoop(
          ctx,
          carried,
          () => {
            body();
            return guardedTest();
          },
          () => {},
        );
      } else {
        lowerLoop(ctx, carried, guardedTest, () => {
          body();
          // The update runs after `continue` too, but not after a stop.
          if (update) {
            const stop = stopped();
            if (stop) {
              lowerIf(ctx, ctx.builder.unary("not", stop), [
                () => (lowerExpression(ctx, update), []),
                () => [],
              ]);
            } else {
              lowerExpression(ctx, update);
            }
          }
        });
      }
    } finally {
      ctx.loops.pop();
    }
  });
}
