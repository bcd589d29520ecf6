import { classNamed } from "../parse/class-hierarchy.js";
import { isLocalSpecifier } from "../parse/program.js";
import { instanceOf } from "./class-dispatch.js";
import { asksObjectForField, hasKey, lowerFieldPresence } from "./field-presence.js";
import { isAggregate, isArray, isKeyed, isObject, sameType, typeText } from "../ir/type-system.js";
import { asKnownFields, keyedHas, lowerDelete, lowerRecordLiteral } from "./keyed.js";
import {
  closureCapture,
  constAssignment,
  moduleVariableWrite,
  typeMismatch,
  unboundName,
  unknownType,
  unsupportedSyntax,
  unsupportedType,
} from "../diagnostics/messages/index.js";
import type { Expression, Node } from "oxc-parser";
import type { BinaryOpcode, CompareOpcode, Type, Value } from "../ir/types.js";
import { MATH_CONSTANTS } from "../rules/math.js";
import { staticMethodName } from "../ir/names.js";
import { closestMathConstant, isMathFunction, MATH_CONSTANT_NAMES } from "./math-help.js";
import type { LowerContext, Slot } from "./context.js";
import { lowerIf } from "./merge.js";
import { readsOnly } from "./reads-only.js";
import { logicalIf, lowerLogicalMemberAssignment } from "./logical-assignment.js";
import { unfold } from "./destructure.js";
import { describeNode, syntaxKind } from "./describe.js";
import { equalsAbsent, functionValue, holdsFunction, type Presence } from "./function-values.js";
import { moduleVariableAdvice } from "./annotation-advice.js";
import { unboundKind } from "./unbound-name.js";
import { lowerCall, lowerUserCall } from "./calls.js";
import { calleePath, isNamespacePath } from "./user-call.js";
import { mathMember, numberConstant } from "./math-functions.js";
import { constructedName, constructorOf } from "./construct.js";
import { lowerOptionalChain } from "./optional-chain.js";
import { isFunctionList, lengthOfFunctionList } from "./function-lists.js";
import {
  lengthOfObjectList,
  lowerListedElement,
  lowerPickedMember,
  objectListMember,
} from "./object-lists.js";
import { expectType, toBoolean } from "./expect-type.js";
import { absentLiteral } from "./absence.js";
import {
  absentValue,
  lowerArrayLiteral,
  lowerMemberRead,
  memberReader,
  lowerMemberWrite,
  lowerNew,
  lowerObjectLiteral,
  lowerValue,
} from "./members.js";
import type { ModuleConstant } from "../parse/module.js";
import { typeResolver } from "../types/resolver.js";
import { inferType } from "../types/infer-type.js";
import { isPlatformGlobal } from "../types/globals.js";
import { annotationType } from "../types/signature.js";

// AST expressions → IR values. Short-circuit operators and ternaries become `if` ops so that
// their right-hand sides are evaluated only when JavaScript would evaluate them.

const ARITHMETIC: Record<string, BinaryOpcode> = {
  "+": "add",
  "-": "sub",
  "*": "mul",
  "/": "div",
  "%": "rem",
  "**": "pow",
};

const COMPARISON: Record<string, CompareOpcode> = {
  "<": "lt",
  "<=": "le",
  ">": "gt",
  ">=": "ge",
  "===": "eq",
  "==": "eq",
  "!==": "ne",
  "!=": "ne",
};

const BITWISE = new Set(["|", "&", "^", "<<", ">>", ">>>"]);

const GLOBAL_CONSTANTS: Record<string, number> = { NaN: NaN, Infinity: Infinity };

export function lowerExpression(ctx: LowerContext, node: Expression): Value {
  ctx.at(node);
  switch (node.type) {
    case "Literal":
      if (
        typeof node.value === "number" ||
        typeof node.value === "boolean" ||
        typeof node.value === "string"
      ) {
        return ctx.builder.constant(node.value);
      }
      return ctx.fail(
        node,
        unsupportedSyntax.isNotSupportedInDifferentiable(
          describeNode(node),
          syntaxKind(node),
          ctx.codeContext,
        ),
      );
    case "Identifier":
      return lowerIdentifier(ctx, node, node.name);
    case "TSAsExpression": {
      const literal = assertedLiteral(ctx, node);
      if (literal) return literal;
      const v = lowerExpression(ctx, node.expression);
      // A record just made, asserted to have known fields: an object of those fields.
      if (isKeyed(v.type) && node.expression.type === "CallExpression") {
        const asserted =
          ctx.types(node.typeAnnotation) ??
          ctx.types.inferred?.expectedTypeOf(node.start, node.end);
        if (asserted) return asKnownFields(ctx, node, v, asserted);
      }
      return v;
    }
    case "TSTypeAssertion":
      return assertedLiteral(ctx, node) ?? lowerExpression(ctx, node.expression);
    case "TSSatisfiesExpression":
    case "TSNonNullExpression":
      return lowerExpression(ctx, node.expression);
    case "SequenceExpression": {
      // `i++, k += 2`: each in turn, for its effects; the value is the last one's.
      let last: Value | undefined;
      for (const expression of node.expressions) last = lowerExpression(ctx, expression);
      return last!;
    }
    case "BinaryExpression": {
      const settled = functionTest(ctx, node);
      if (settled !== undefined) return settled;
      // `s instanceof Disk`, Disk a class of the program: the test class dispatch makes.
      const classPath =
        node.operator === "instanceof" &&
        (node.right.type === "Identifier"
          ? !ctx.scope.lookup(node.right.name)
          : node.right.type === "MemberExpression" && isNamespacePath(ctx, node.right.object))
          ? calleePath(node.right)
          : undefined;
      if (classPath) {
        const cls = classNamed(ctx.program, ctx.module, classPath);
        if (cls) return instanceOf(ctx, lowerExpression(ctx, node.left as Expression), cls, node);
      }
      return lowerBinary(ctx, node.operator, node.left as Expression, node.right, node);
    }
    case "LogicalExpression":
      return lowerLogical(ctx, node.operator, node.left, node.right);
    case "ConditionalExpression": {
      // `c ? circle : new Square(a)`: the type TypeScript gives the whole (an interface both
      // implement) is what each side is built as.
      // (Asked only where a side builds an instance: a question starts TypeScript's checker.)
      const builds = [node.consequent, node.alternate].some((n) => n.type === "NewExpression");
      const whole = builds ? ctx.types.inferred?.expectedTypeOf(node.start, node.end) : undefined;
      if (whole !== undefined && isObject(whole) && (whole.interfaceKey || whole.classKey))
        return lowerValue(ctx, node, whole);
      const cond = lowerCondition(ctx, node.test);
      let type: Type = "number";
      const [value] = lowerIf(ctx, cond, [
        () => {
          const v = lowerExpression(ctx, node.consequent);
          type = v.type;
          return [v];
        },
        () => {
          const alternate = isObject(type)
            ? lowerValue(ctx, node.alternate, type)
            : lowerExpression(ctx, node.alternate);
          return [expectType(ctx, node.alternate, alternate, type)];
        },
      ]);
      return value!;
    }
    case "UnaryExpression": {
      const settled = functionTest(ctx, node);
      if (settled !== undefined) return settled;
      return lowerUnary(ctx, node.operator, node.argument, node);
    }
    case "UpdateExpression": {
      const target = unwrapNonNull(node.argument);
      if (target.type === "MemberExpression") {
        let old: Value | undefined;
        const updated = lowerMemberWrite(ctx, target, (current) => {
          old = current();
          requireNumbers(ctx, node, node.operator, old);
          ctx.at(node);
          return ctx.builder.binary(
            node.operator === "++" ? "add" : "sub",
            old,
            ctx.builder.constant(1),
          );
        });
        return node.prefix ? updated : old!;
      }
      const slot = assignableSlot(ctx, target);
      const old = ctx.value(slot);
      requireNumbers(ctx, node, node.operator, old);
      ctx.at(node);
      const updated = ctx.builder.binary(
        node.operator === "++" ? "add" : "sub",
        old,
        ctx.builder.constant(1),
        slot.name,
      );
      ctx.assign(slot, updated);
      return node.prefix ? updated : old;
    }
    case "AssignmentExpression":
      return lowerAssignment(ctx, node.operator, node.left, node.right, node);
    case "MemberExpression": {
      const listLength =
        lengthOfFunctionList(ctx, node) ??
        lengthOfObjectList(ctx, node) ??
        lowerPickedMember(ctx, node, node) ??
        lowerListedElement(ctx, node);
      if (listLength) return listLength;
      const imported = namespaceConstant(ctx, node);
      if (imported) return imported;
      const member = enumMember(ctx, node);
      if (member) return member;
      const number = numberConstant(ctx, node);
      if (number !== undefined)
        return ctx.builder.constant(number, (node.property as { name: string }).name);
      const math = mathMember(ctx, node);
      if (math !== undefined && MATH_CONSTANTS.has(math))
        return ctx.builder.constant(MATH_CONSTANTS.get(math)!, math);
      if (math !== undefined) {
        return ctx.fail(
          node,
          unsupportedSyntax.mathIsNotMathConstant(math, {
            isFunction: isMathFunction(math),
            closest: closestMathConstant(math),
            constants: MATH_CONSTANT_NAMES,
          }),
        );
      }
      if (node.optional) return ctx.fail(node, unsupportedSyntax.optionalChainingIsNotSupported());
      return lowerMemberRead(ctx, node);
    }
    case "ArrayExpression":
      return lowerArrayLiteral(ctx, node, undefined);
    case "ObjectExpression":
      return lowerObjectLiteral(ctx, node, undefined);
    case "NewExpression": {
      // `new Vec3(…)` of a class of the program: a call of its constructor (construct.ts).
      const name = constructedName(ctx, node);
      const at = `${node.start}:${node.end}`;
      const as = ctx.newAs ?? ctx.widened.get(at);
      ctx.newAs = undefined;
      const ctor = name ? constructorOf(ctx, name, node, as) : undefined;
      if (!ctor) return lowerNew(ctx, node);
      const instance = lowerUserCall(ctx, node as never, ctor, name!);
      ctx.constructedAt.set(instance.id, at);
      return instance;
    }
    case "TemplateLiteral": {
      // `good${i}`: text, which has no derivative, joined as JavaScript joins it.
      let text = ctx.builder.constant(node.quasis[0]!.value.cooked ?? node.quasis[0]!.value.raw);
      node.expressions.forEach((expression, i) => {
        const quasi = node.quasis[i + 1]!;
        const value = lowerExpression(ctx, expression as Expression);
        if (!TEXT_PARTS.has(value.type as string))
          ctx.fail(expression, unsupportedType.interpolatedInTemplate(typeText(value.type)));
        text = concat(ctx, text, value, node);
        text = concat(ctx, text, ctx.builder.constant(quasi.value.cooked ?? quasi.value.raw), node);
      });
      return text;
    }
    case "ThisExpression": {
      const slot = ctx.scope.lookup("this");
      if (!slot) {
        // A static method's `this` is its class, which nabla does not model as a value.
        const member = staticMethodName(ctx.functionName);
        return ctx.fail(
          node,
          member
            ? unsupportedSyntax.thisInStaticMethod(member.className)
            : unsupportedSyntax.thisIsOnlySupportedIn(),
        );
      }
      return ctx.value(slot);
    }
    case "CallExpression":
      return lowerCall(ctx, node);
    case "ChainExpression":
      return lowerOptionalChain(ctx, node.expression as Expression);
    case "YieldExpression":
      // `yield v;` is a statement of an inlined generator (statements.ts); its value is not.
      if (ctx.yieldSite) return ctx.fail(node, unsupportedSyntax.yieldAsValue());
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

/** A value used as a condition: booleans as they are, numbers by JavaScript truthiness. */
export function lowerCondition(ctx: LowerContext, node: Expression): Value {
  const settled = functionTest(ctx, node);
  if (settled !== undefined) return settled;
  // `a && b`, `a || b` tested: each side a condition (`if (ok && item.note)`), short-circuited,
  // so the sides need not be of one type as the value of `a && b` must.
  if (node.type === "LogicalExpression" && (node.operator === "&&" || node.operator === "||")) {
    const left = lowerCondition(ctx, node.left);
    const right = () => [lowerCondition(ctx, node.right)];
    ctx.at(node);
    const decided = () => [ctx.builder.constant(node.operator === "||")];
    return lowerIf(ctx, left, node.operator === "&&" ? [right, decided] : [decided, right])[0]!;
  }
  const v = lowerExpression(ctx, node);
  return toBoolean(ctx, v, node);
}

/** `Mode.Fast`, a member of an enum (declared or imported): its value, which the checker knows. */
function enumMember(ctx: LowerContext, node: Node): Value | undefined {
  if (node.type !== "MemberExpression" || node.computed) return undefined;
  // `Kind.B`, or `C.Kind.B` of a module imported as a namespace.
  const owner = node.object;
  const named =
    owner.type === "Identifier"
      ? owner
      : owner.type === "MemberExpression" && !owner.computed && owner.object.type === "Identifier"
        ? owner.object
        : undefined;
  if (!named || ctx.scope.lookup(named.name)) return undefined;
  if (named !== owner && !ctx.program.namespaceModule(ctx.module, named.name)) return undefined;
  const value = ctx.types.inferred?.enumValueAt(node.property.start);
  if (value === undefined) return undefined;
  const name = (node.property as { name: string }).name;
  if (typeof value === "number") return ctx.builder.constant(value, name);
  return ctx.builder.emit("const", [], ["string"], { value }, [], name).results[0]!;
}

/** `ns.K`, a constant of a module imported as a namespace. */
function namespaceConstant(ctx: LowerContext, node: Node): Value | undefined {
  const constant = namespaceConstantNode(ctx, node);
  if (node.type !== "MemberExpression" || !constant) return undefined;
  const type = constant.type ?? moduleConstantType(ctx, constant)!;
  const object = node.object as { name: string };
  const property = node.property as { name: string };
  const path = `${object.name}.${property.name}`;
  ctx.readsModuleName(node, object.name);
  return ctx.builder.emit("global", [], [type], { callee: path }, [], property.name).results[0]!;
}

/** The module constant `ns.K` names, if `node` is such a member expression. */
function namespaceConstantNode(ctx: LowerContext, node: Node): ModuleConstant | undefined {
  if (node.type !== "MemberExpression" || node.computed) return undefined;
  if (node.object.type !== "Identifier" || node.property.type !== "Identifier") return undefined;
  if (ctx.scope.lookup(node.object.name)) return undefined;
  const target = ctx.program.namespaceModule(ctx.module, node.object.name);
  const binding = ctx.module.imports.get(node.object.name);
  // `import * as C from "some-package"`: its constants, from the package's declarations.
  const ofPackage =
    !target &&
    binding?.imported === "*" &&
    !binding.typeOnly &&
    !isLocalSpecifier(ctx.module.file, binding.specifier)
      ? ctx.program.packageConstant(ctx.module, binding.specifier, node.property.name)
      : undefined;
  const constant =
    ofPackage ?? (target && ctx.program.resolveExportedConstant(target, node.property.name));
  // `C.ORIGIN`, `C.W` of an object or array: typed as a named import of it is.
  return constant && (constant.type ?? moduleConstantType(ctx, constant)) ? constant : undefined;
}

function lowerIdentifier(ctx: LowerContext, node: Node, name: string): Value {
  const slot = ctx.scope.lookup(name);
  if (slot && (ctx.closures.has(slot) || ctx.bound.has(slot))) {
    return ctx.fail(node, closureCapture.isFunctionDifferentiableCodeCan(name, name));
  }
  if (slot && isFunctionList(slot)) return ctx.fail(node, closureCapture.isListOfFunctions(name));
  const member = slot && objectListMember(slot);
  if (member) return ctx.fail(node, closureCapture.isListOfObjectsHoldingFunctions(name, member));
  if (slot) return ctx.value(slot);
  if (name in GLOBAL_CONSTANTS && isPlatformGlobal(ctx.module, name))
    return ctx.builder.constant(GLOBAL_CONSTANTS[name]!, name);
  const constant = ctx.module.constants.get(name);
  // A numeric `const` of another module's code run here (a base class's constructor, a
  // factory): its value, which needs no name the derivative code's module may not have.
  if (constant?.kind === "const" && constant.value !== undefined && ctx.module !== ctx.home)
    return ctx.builder.constant(constant.value, name);
  if (constant) {
    const type = constant.type ?? moduleConstantType(ctx, constant);
    if (type === undefined) {
      return ctx.fail(
        node,
        unknownType.cannotDetermineTypeOfModule(
          name,
          constant.kind,
          moduleVariableAdvice(ctx.module, constant.node, name),
        ),
      );
    }
    ctx.readsModuleName(node, name);
    return ctx.builder.emit("global", [], [type], { callee: name }, [], name).results[0]!;
  }
  const binding = ctx.module.imports.get(name);
  if (binding) {
    const imported =
      ctx.program.resolveLocalConstant(ctx.module, name) ??
      (isLocalSpecifier(ctx.module.file, binding.specifier)
        ? undefined
        : ctx.program.packageConstant(ctx.module, binding.specifier, binding.imported));
    const type = imported && (imported.type ?? moduleConstantType(ctx, imported));
    if (type) {
      ctx.readsModuleName(node, name);
      return ctx.builder.emit("global", [], [type], { callee: name }, [], name).results[0]!;
    }
    return ctx.fail(node, unknownType.cannotDetermineTypeOfImported(name, binding.specifier));
  }
  if (name === "undefined") {
    return ctx.fail(node, unsupportedSyntax.undefinedIsNotSupportedIn());
  }
  if (ctx.module.functions.has(name)) {
    return ctx.fail(node, unsupportedSyntax.functionUsedAsValueHere(name, name));
  }
  return ctx.fail(node, unboundName.cannotFindInDifferentiableCode(name, unboundKind(ctx, name)));
}

/**
 * The type of a module-level variable whose type needs the program to know: an annotation
 * naming an interface or class, a typed array, an array literal, `new Linear(…)`.
 */
function moduleConstantType(ctx: LowerContext, constant: ModuleConstant): Type | undefined {
  const decl = constant.node;
  if (decl.type !== "VariableDeclarator" || decl.id.type !== "Identifier") return undefined;
  const mod = ctx.program.loadedModules().find((m) => m.constants.get(constant.name) === constant);
  const resolve = mod ? typeResolver(ctx.program, mod) : ctx.types;
  return (
    annotationType(decl.id.typeAnnotation, resolve) ??
    inferType(
      decl.init,
      (n) => mod?.constants.get(n)?.type,
      resolve,
      (n) => !mod || isPlatformGlobal(mod, n),
    ) ??
    resolve.inferred?.typeAt(decl.id.start)
  );
}

/**
 * `v == null` and `v != null` (either absence, the `nullish` test `??` makes), and `v ===
 * undefined`, `v !== null` (one absence, compared as JavaScript compares): whether an optional
 * field or parameter is there.
 */
function absenceTest(
  ctx: LowerContext,
  operator: string,
  left: Expression,
  right: Expression,
  node: Node,
): Value | undefined {
  if (!["===", "!==", "==", "!="].includes(operator)) return undefined;
  const [probed, absent] = absentLiteral(ctx, right)
    ? [left, right]
    : absentLiteral(ctx, left)
      ? [right, left]
      : [undefined, undefined];
  if (!probed || !absent) return undefined;
  const v = lowerExpression(ctx, probed);
  ctx.at(node);
  let test: Value;
  if (operator.length === 2) {
    test = ctx.builder.unary("nullish", v);
  } else {
    const which = absentValue(ctx, absent, v.type)!;
    test = ctx.builder.emit("nondiff", [v, which], ["boolean"], { callee: "===" }).results[0]!;
  }
  return operator.startsWith("!") ? ctx.builder.unary("not", test) : test;
}

function lowerBinary(
  ctx: LowerContext,
  operator: string,
  left: Expression,
  right: Expression,
  node: Node,
): Value {
  const absence = absenceTest(ctx, operator, left, right, node);
  if (absence) return absence;
  const a = lowerExpression(ctx, left);
  const b = lowerExpression(ctx, right);
  ctx.at(node);
  if (operator === "in" && isKeyed(b.type)) return keyedHas(ctx, node, a, b);
  const arithmetic = ARITHMETIC[operator];
  if (operator === "+" && (a.type === "string" || b.type === "string"))
    return concat(ctx, a, b, node);
  if (arithmetic) {
    requireNumbers(ctx, node, operator, a, b);
    return ctx.builder.binary(arithmetic, a, b);
  }
  const comparison = COMPARISON[operator];
  if (comparison) {
    if (a.type !== b.type) {
      // Two arrays or objects of alike types: `===` asks whether they are one and the same.
      if (isAggregate(a.type) && sameType(a.type, b.type))
        return ctx.fail(node, typeMismatch.cannotCompareByIdentity(typeText(a.type)));
      return ctx.fail(node, typeMismatch.cannotCompareWith(typeText(a.type), typeText(b.type)));
    }
    // Strings are ordered too (by UTF-16 code units, as JavaScript does): `name < "m"`, an
    // operation without a derivative (the IR's orderings take numbers).
    if (a.type === "string" && comparison !== "eq" && comparison !== "ne")
      return ctx.builder.emit("nondiff", [a, b], ["boolean"], { callee: operator }).results[0]!;
    if (a.type !== "number" && comparison !== "eq" && comparison !== "ne") {
      return ctx.fail(node, typeMismatch.needsNumbersGot(operator, typeText(a.type)));
    }
    return ctx.builder.compare(comparison, a, b);
  }
  if (BITWISE.has(operator)) {
    requireNumbers(ctx, node, operator, a, b);
    return ctx.builder.emit("nondiff", [a, b], ["number"], { callee: operator }).results[0]!;
  }
  // `"radius" in s` of a union of classes: the object's class answers.
  const presence =
    operator === "in" &&
    left.type === "Literal" &&
    typeof left.value === "string" &&
    isObject(b.type) &&
    b.type.interfaceKey !== undefined
      ? lowerFieldPresence(
          ctx,
          node,
          b,
          { ...b.type, interfaceKey: b.type.interfaceKey },
          left.value,
        )
      : undefined;
  if (presence) return presence;
  if (operator === "in" && a.type === "string" && asksObjectForField(b.type))
    return hasKey(
      ctx,
      node,
      a,
      b,
      left.type === "Literal" && typeof left.value === "string" ? left.value : undefined,
    );
  // `"y" in p`: the help names the field to test.
  const field =
    operator === "in" &&
    left.type === "Literal" &&
    typeof left.value === "string" &&
    right.type === "Identifier"
      ? `${right.name}.${left.value}`
      : undefined;
  if (operator === "in" && isObject(b.type))
    return ctx.fail(node, unsupportedSyntax.inOnClassInstance(b.type.name, field));
  return ctx.fail(node, unsupportedSyntax.operatorIsNotSupportedIn(operator, field));
}

/** `a + b` with text on a side: a string, as JavaScript's `+` makes it (no derivative). */
/** The types JavaScript joins into text as nabla can: `+` of a string, `${…}`. */
const TEXT_PARTS: ReadonlySet<string> = new Set(["string", "number", "boolean"]);

function concat(ctx: LowerContext, a: Value, b: Value, node: Node): Value {
  for (const v of [a, b]) {
    if (!TEXT_PARTS.has(v.type as string))
      return ctx.fail(
        node,
        unsupportedType.isNotSupportedInDifferentiable(`'+' on a ${typeText(v.type)}`, "+"),
      );
  }
  ctx.at(node);
  return ctx.builder.emit("nondiff", [a, b], ["string"], { callee: "+" }).results[0]!;
}

function requireNumbers(ctx: LowerContext, node: Node, operator: string, ...values: Value[]): void {
  for (const v of values) {
    if (v.type !== "number") {
      const what =
        v.type === "string" && operator === "+"
          ? "string concatenation"
          : `'${operator}' on a ${typeText(v.type)}`;
      ctx.fail(node, unsupportedType.isNotSupportedInDifferentiable(what, operator));
    }
  }
}

/**
 * `a ?? b`, `a || b`, `a && b` as an `if` on a test of `a`, with JavaScript's semantics: `??`
 * takes `b` only when `a` is null or undefined (an optional field, an element out of range),
 * `||` and `&&` test truthiness (0 and NaN are falsy). A member read on the left is read
 * again in the branch that yields it, so its derivative — in reverse mode, an adjoint added
 * into the array or object — exists only where JavaScript yields it (a getter runs once).
 */
function lowerLogical(
  ctx: LowerContext,
  operator: string,
  left: Expression,
  right: Expression,
): Value {
  return logical(ctx, operator, leftReader(ctx, left), left, right);
}

/**
 * `{} as Point`, `<Point>{}`, `{ x: a } as Point`: an object literal of the asserted type, the
 * fields it leaves out to be written later (`p.y = b`), as TypeScript reads it. undefined: not
 * an object literal asserted to an object type.
 */
function assertedLiteral(
  ctx: LowerContext,
  node: Expression & { expression: Expression; typeAnnotation: Node },
): Value | undefined {
  let inner = node.expression;
  // `{ x } as unknown as Point`: the outermost type is the literal's.
  while (
    inner.type === "ParenthesizedExpression" ||
    inner.type === "TSAsExpression" ||
    inner.type === "TSTypeAssertion" ||
    inner.type === "TSSatisfiesExpression"
  )
    inner = inner.expression;
  if (inner.type === "ArrayExpression") {
    // `[...gen()] as number[]`: the elements are what the assertion says.
    const asserted = ctx.types(node.typeAnnotation as never);
    return asserted && isArray(asserted) ? ctx.lowerValue(inner, asserted) : undefined;
  }
  if (inner.type !== "ObjectExpression") return undefined;
  const asserted = ctx.types(node.typeAnnotation as never);
  // `{} as Record<string, number>`: a record, its entries those written.
  if (asserted && isKeyed(asserted)) return lowerRecordLiteral(ctx, inner, asserted);
  if (!asserted || !isObject(asserted)) return undefined;
  return lowerObjectLiteral(ctx, inner, asserted, true);
}

/** `a op b` where `read` reads `a` (again in the branch that yields it). */
function logical(
  ctx: LowerContext,
  operator: string,
  read: () => Value,
  left: Node,
  right: Expression,
): Value {
  const probe = read();
  // `opts ?? {}` of an object holding functions written in it (object-closures.ts): the object,
  // never absent nor falsy, itself rather than a join, which could not say what it holds.
  if (ctx.boundObjects.has(probe))
    return operator === "&&" ? lowerValue(ctx, right, undefined) : probe;
  const type = probe.type;
  const evaluateRight = () => expectType(ctx, right, lowerValue(ctx, right, type), type);
  return logicalIf(ctx, operator, probe, left, evaluateRight, read);
}

/** What reads the left side of a logical operator: a member read again, anything else once. */
function leftReader(ctx: LowerContext, node: Expression): () => Value {
  let inner: Expression = node;
  while (
    inner.type === "TSAsExpression" ||
    inner.type === "TSSatisfiesExpression" ||
    inner.type === "TSNonNullExpression" ||
    inner.type === "TSTypeAssertion"
  ) {
    inner = inner.expression;
  }
  if (
    inner.type === "MemberExpression" &&
    !inner.optional &&
    mathMember(ctx, inner) === undefined
  ) {
    ctx.at(inner);
    if (!namespaceConstantNode(ctx, inner)) return memberReader(ctx, inner);
  }
  // `opts?.scale ?? 1`: the chain is read again in the branch that yields it, as a member is;
  // one that calls (`make(x)?.a ?? 5`) runs once.
  if (inner.type === "ChainExpression" && readsOnly(inner)) return () => lowerExpression(ctx, node);
  const v = lowerExpression(ctx, node);
  return () => v;
}

function lowerUnary(ctx: LowerContext, operator: string, argument: Expression, node: Node): Value {
  if (operator === "delete" && argument.type === "MemberExpression")
    return lowerDelete(ctx, node, argument);
  const v = lowerExpression(ctx, argument);
  ctx.at(node);
  switch (operator) {
    case "-":
      requireNumbers(ctx, node, "-", v);
      return ctx.builder.unary("neg", v);
    case "+":
      // `+text`, `+flag`: JavaScript's Number(…), without a derivative (a number's text read
      // back, `+x.toFixed(2)`, is then NABLA104 where it reaches the result).
      if (v.type === "string" || v.type === "boolean")
        return ctx.builder.emit("nondiff", [v], ["number"], { callee: "Number" }).results[0]!;
      requireNumbers(ctx, node, "+", v);
      return v;
    case "!":
      return ctx.builder.unary("not", toBoolean(ctx, v, argument));
    case "~":
      requireNumbers(ctx, node, "~", v);
      return ctx.builder.emit("nondiff", [v], ["number"], { callee: "~" }).results[0]!;
    case "typeof":
      // `typeof scale === "number"`: the value's kind, as text, without a derivative.
      return ctx.builder.emit("nondiff", [v], ["string"], { callee: "typeof" }).results[0]!;
    default:
      return ctx.fail(node, unsupportedSyntax.operatorIsNotSupportedIn(operator));
  }
}

const COMPOUND: Record<string, BinaryOpcode> = {
  "+=": "add",
  "-=": "sub",
  "*=": "mul",
  "/=": "div",
  "%=": "rem",
  "**=": "pow",
};

/** `a ??= b`, `a ||= b`, `a &&= b`: the operator deciding whether `b` is assigned. */
const LOGICAL_ASSIGNMENT: Record<string, string> = { "??=": "??", "||=": "||", "&&=": "&&" };

/** `[a, b] = [b, a]`, `({ x, y } = p)`: the right side once, then each target in order. */
function lowerDestructuringAssignment(
  ctx: LowerContext,
  pattern: Node,
  right: Expression,
  node: Node,
): Value {
  let whole: Value | undefined;
  unfold(ctx, pattern, right, {
    hidden: (id, init) => {
      const value = lowerValue(ctx, init, undefined);
      whole ??= value;
      ctx.declare((id as { name: string }).name, "const", value.type, value);
    },
    target: (target, init) => {
      lowerAssignment(ctx, "=", target, init, node);
    },
  });
  return whole!;
}

function lowerAssignment(
  ctx: LowerContext,
  operator: string,
  left: Node,
  right: Expression,
  node: Node,
): Value {
  left = unwrapNonNull(left);
  if (left.type === "ArrayPattern" || left.type === "ObjectPattern") {
    if (operator !== "=") {
      return ctx.fail(node, unsupportedSyntax.cannotAssignToPattern(operator));
    }
    return lowerDestructuringAssignment(ctx, left, right, node);
  }
  const logicalOperator = LOGICAL_ASSIGNMENT[operator];
  if (left.type === "MemberExpression" && logicalOperator)
    return lowerLogicalMemberAssignment(ctx, logicalOperator, left, right, node);
  if (left.type === "MemberExpression") {
    return lowerMemberWrite(ctx, left, (current, expected, callable) => {
      // `this.act = Math.tanh`: a field holding a function gets a function value.
      if (operator === "=" && callable)
        return functionValue(ctx, right, callable, `'${describeNode(left)}'`);
      if (operator === "=") return lowerValue(ctx, right, expected);
      const opcode = COMPOUND[operator];
      if (!opcode) {
        return ctx.fail(node, unsupportedSyntax.assignmentIsNotSupportedIn(operator));
      }
      const old = current();
      const rhs = lowerExpression(ctx, right);
      requireNumbers(ctx, node, operator, old, rhs);
      ctx.at(node);
      return ctx.builder.binary(opcode, old, rhs);
    });
  }
  const slot = assignableSlot(ctx, left);
  if (logicalOperator) {
    // `x ??= v` is `x = x ?? v`: assigning a local its own value changes nothing.
    const current = ctx.value(slot);
    const value = logical(ctx, logicalOperator, () => current, left, right);
    ctx.assign(slot, value);
    return value;
  }
  // `t += g()` reads t before g runs, as JavaScript does: g may assign t (a closure writing
  // the captured variable, `t += (t = 2)`), and the sum adds to the value t had.
  const old = operator === "=" ? undefined : ctx.value(slot);
  const rhs = lowerValue(ctx, right, slot.type);
  ctx.at(node);
  let value: Value;
  if (old === undefined) {
    value = rhs;
  } else if (COMPOUND[operator]) {
    requireNumbers(ctx, node, operator, old, rhs);
    value = ctx.builder.binary(COMPOUND[operator]!, old, rhs, slot.name);
  } else if (BITWISE.has(operator.slice(0, -1))) {
    // `t ^= …`, `h >>>= 1`: integer bit operations (a PRNG's state), with no derivative.
    const bitwise = operator.slice(0, -1);
    requireNumbers(ctx, node, bitwise, old, rhs);
    value = ctx.builder.emit("nondiff", [old, rhs], ["number"], { callee: bitwise }).results[0]!;
  } else {
    return ctx.fail(node, unsupportedSyntax.assignmentIsNotSupportedIn(operator));
  }
  expectType(ctx, right, value, slot.type);
  ctx.assign(slot, value);
  return value;
}

/** The local variable an assignment or `++` writes, or a diagnostic saying why it cannot. */
/**
 * `xs[i]! += v`, `(o[k] as number) *= f`, `(x satisfies number) = v`: the variable, element
 * or field written; the marks around it are TypeScript's only.
 */
function unwrapNonNull(target: Node): Node {
  let inner = target;
  while (
    inner.type === "TSNonNullExpression" ||
    inner.type === "TSAsExpression" ||
    inner.type === "TSSatisfiesExpression" ||
    inner.type === "TSTypeAssertion" ||
    inner.type === "ParenthesizedExpression"
  )
    inner = inner.expression;
  return inner.type === "MemberExpression" || inner.type === "Identifier" ? inner : target;
}

function assignableSlot(ctx: LowerContext, target: Node): Slot {
  if (target.type !== "Identifier") {
    return ctx.fail(target, unsupportedSyntax.assignmentToIsNotSupported(describeNode(target)));
  }
  const slot = ctx.scope.lookup(target.name);
  if (slot) {
    if (slot.kind === "const")
      return ctx.fail(target, constAssignment.cannotAssignToBecauseIt(target.name));
    if (slot.kind === "captured" && !ctx.cells.has(slot)) {
      return ctx.fail(target, closureCapture.cannotAssignToVariableOf(target.name));
    }
    return slot;
  }
  if (ctx.module.constants.has(target.name) || ctx.module.imports.has(target.name)) {
    return ctx.fail(target, moduleVariableWrite.differentiableCodeCannotWriteModule(target.name));
  }
  return ctx.fail(
    target,
    unboundName.cannotFindInDifferentiableCode(target.name, unboundKind(ctx, target.name)),
  );
}

/**
 * A test of whether a function parameter (or local) holds a function: settled where the
 * specialization is compiled when that is known, made at run time otherwise (function-values.ts'
 * Presence). `onStep` and `!onStep` as conditions, `onStep !== undefined`, `onStep == null`,
 * `typeof onStep === "function"`. undefined: not such a test.
 */
function functionTest(ctx: LowerContext, node: Node): Value | undefined {
  while (node.type === "ParenthesizedExpression") node = node.expression;
  const b = ctx.builder;
  const value = (p: Presence | undefined) =>
    p === undefined ? undefined : typeof p === "boolean" ? b.constant(p) : p;
  // `onStep`, or `opts.onStep` of a function written in an object literal (object-closures.ts).
  if (node.type === "Identifier" || node.type === "MemberExpression")
    return value(holdsFunction(ctx, node));
  if (node.type === "UnaryExpression" && node.operator === "!") {
    const inner = functionTest(ctx, node.argument);
    return inner && b.unary("not", inner);
  }
  if (node.type !== "BinaryExpression") return undefined;
  const { operator } = node;
  if (!["===", "!==", "==", "!="].includes(operator)) return undefined;
  const negated = operator === "!==" || operator === "!=";
  const sides: [Node, Node][] = [
    [node.left, node.right],
    [node.right, node.left],
  ];
  for (const [fn, other] of sides) {
    let test: Value | undefined;
    // `typeof f === "function"`
    if (
      fn.type === "UnaryExpression" &&
      fn.operator === "typeof" &&
      other.type === "Literal" &&
      other.value === "function"
    )
      test = value(holdsFunction(ctx, fn.argument));
    const literal = absentLiteral(ctx, other);
    if (!test && literal !== undefined) {
      ctx.at(node);
      test = value(
        equalsAbsent(
          ctx,
          fn,
          literal,
          operator.length === 2,
          (v) =>
            b.emit("nondiff", [v, absentValue(ctx, other, "opaque")!], ["boolean"], {
              callee: "===",
            }).results[0]!,
        ),
      );
    }
    if (test) return negated ? b.unary("not", test) : test;
  }
  return undefined;
}
