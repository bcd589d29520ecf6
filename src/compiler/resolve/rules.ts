import { notes } from "../diagnostics/messages/index.js";
import { derivativeRule } from "../diagnostics/messages/index.js";
import type { Message } from "../diagnostics/messages/message.js";
import type { Expression, Node } from "oxc-parser";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { assignable, isDifferentiable, typeText } from "../ir/type-system.js";
import { tangentType } from "../ir/tangent-types.js";
import type { Type } from "../ir/types.js";
import { signatureOf } from "../types/signature.js";
import type { FunctionLike, SourceModule } from "../parse/module.js";
import {
  isLocalSpecifier,
  type DerivativeRule,
  type FunctionSymbol,
  type ProgramGraph,
  type RuleTable,
} from "../parse/program.js";
import { findRegistrations } from "../parse/registrations.js";
import { typeResolver } from "../types/resolver.js";
import { symbolKey } from "../ir/function-key.js";

// The derivative rules the program registers, by the key of the function they are for, each
// checked against that function's signature: `forward` takes the arguments and one tangent
// per differentiable parameter; `reverse` takes the arguments.

export function collectRules(
  program: ProgramGraph,
  modules: SourceModule[],
  bag: DiagnosticBag,
): RuleTable {
  const table: RuleTable = new Map();
  for (const mod of modules) {
    const error = (node: Node, message: Message) =>
      bag.add({
        severity: "error",
        ...message,
        loc: { file: mod.file, start: node.start, end: node.end },
        notes: [],
      });
    const { registrations, problems } = findRegistrations(mod);
    problems.forEach((p) => error(p.node, p));
    for (const registration of registrations) {
      const target = registration.target;
      if (target.type !== "Identifier") {
        error(target, derivativeRule.registerDerivativeNeedsFunctionByName());
        continue;
      }
      const symbol = targetSymbol(program, mod, target.name);
      if (!symbol) {
        const binding = mod.imports.get(target.name);
        error(
          target,
          binding && !isLocalSpecifier(mod.file, binding.specifier)
            ? derivativeRule.noTypeDeclarations(target.name, binding.specifier)
            : derivativeRule.notAFunctionNablaCanSee(target.name),
        );
        continue;
      }
      const key = symbolKey(symbol);
      const previous = table.get(key);
      if (previous) {
        const first = previous.registration;
        bag.add({
          severity: "error",
          ...derivativeRule.alreadyHasRegisteredDerivativeFunction(target.name),
          loc: { file: mod.file, start: registration.call.start, end: registration.call.end },
          notes: [
            {
              ...notes.firstRegistrationHere(),
              loc: { file: first.module.file, start: first.call.start, end: first.call.end },
            },
          ],
        });
        continue;
      }
      const resolve = typeResolver(program, symbol.module);
      const signature = signatureOf(symbol.node, resolve);
      const params: { name: string; type: Type }[] = [];
      for (const p of signature.params) {
        const text = mod.text.slice(p.node.start, p.node.end);
        // A rule's adapter passes every argument on: a parameter a call may omit has no place.
        if (p.unsupported || p.omissible) {
          error(target, derivativeRule.parameterOfIsOptionalHas(text, target.name));
          break;
        }
        if (!p.type) {
          error(target, derivativeRule.parameterOfNeedsTypeAnnotation(p.name, target.name));
          break;
        }
        params.push({ name: p.name, type: p.type });
      }
      if (params.length !== signature.params.length) continue;
      const result = signature.result ?? "number";
      const rule: DerivativeRule = {
        key,
        symbol,
        registration,
        constName: `$rule_${target.name}`,
        targetName: target.name,
        params,
        result,
        hasForward: registration.forward !== undefined,
        hasReverse: registration.reverse !== undefined,
      };
      if (checkShapes(program, mod, rule, error)) table.set(key, rule);
    }
  }
  return table;
}

function targetSymbol(
  program: ProgramGraph,
  mod: SourceModule,
  name: string,
): FunctionSymbol | undefined {
  const local = program.resolveLocalFunction(mod, name);
  if (local) return local;
  const binding = mod.imports.get(name);
  if (!binding || isLocalSpecifier(mod.file, binding.specifier) || binding.imported === "*")
    return undefined;
  return program.packageFunction(mod, binding.specifier, binding.imported);
}

/** Checks the parameters of rule functions written in place against what they receive. */
function checkShapes(
  program: ProgramGraph,
  mod: SourceModule,
  rule: DerivativeRule,
  error: (node: Node, message: Message) => void,
): boolean {
  const name = rule.targetName;
  const tangents = rule.params.filter((p) => isDifferentiable(p.type));
  const expected = {
    forward: [
      ...rule.params,
      ...tangents.map((p) => ({ name: `d${p.name}`, type: tangentType(p.type) })),
    ],
    reverse: rule.params,
  };
  let ok = true;
  for (const kind of ["forward", "reverse"] as const) {
    const expression = rule.registration[kind];
    if (!expression) continue;
    const fn = functionOf(program, mod, expression);
    if (!fn) {
      if (expression.type !== "Identifier") {
        error(expression, derivativeRule.ruleOfMustBeFunction(kind, name));
        ok = false;
      }
      continue;
    }
    const want = expected[kind];
    const list = `(${want.map((p) => p.name).join(", ")})`;
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
    if (fn.params.some((p) => p.type === "RestElement")) continue;
    if (fn.params.length !== want.length) {
      error(
        fn,
        kind === "forward"
          ? derivativeRule.forwardRuleParameterCount(
              name,
              count(fn.params.length, "parameter"),
              want.length,
              list,
            )
          : derivativeRule.reverseRuleParameterCount(
              name,
              count(fn.params.length, "parameter"),
              count(want.length, "argument"),
              list,
            ),
      );
      ok = false;
      continue;
    }
    const resolve = typeResolver(program, mod);
    const declared = signatureOf(fn, resolve);
    declared.params.forEach((p, i) => {
      const node = fn.params[i]!;
      const annotated = node.type === "Identifier" && node.typeAnnotation;
      if (!annotated || !p.type) return;
      const w = want[i]!;
      if (!assignable(w.type, p.type)) {
        error(
          node,
          derivativeRule.parameterOfRuleOfIs(
            i + 1,
            kind,
            name,
            i < rule.params.length
              ? `the argument '${w.name}'`
              : `the tangent of '${w.name.slice(1)}'`,
            typeText(w.type),
            typeText(p.type),
          ),
        );
        ok = false;
      }
    });
  }
  return ok;
}

/** The function a rule member denotes: written in place, or a function of this module. */
function functionOf(
  program: ProgramGraph,
  mod: SourceModule,
  expression: Expression,
): FunctionLike | undefined {
  if (expression.type === "ArrowFunctionExpression" || expression.type === "FunctionExpression")
    return expression;
  if (expression.type === "Identifier")
    return program.resolveLocalFunction(mod, expression.name)?.node;
  return undefined;
}
