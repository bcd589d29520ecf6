import type { Message } from "../diagnostics/messages/message.js";
import { derivativeRule } from "../diagnostics/messages/index.js";
import type { CallExpression, Expression, Node } from "oxc-parser";
import { walk, type SourceModule } from "./module.js";

// Finds `registerDerivative(f, { forward, reverse })` calls: the way a user teaches nabla a
// derivative. They must be statements at the top level of a module, where the compiler can
// see them whatever runs first.

export interface Registration {
  module: SourceModule;
  call: CallExpression;
  /** The function whose derivative is registered, as written (an identifier). */
  target: Expression;
  /** The rule's `forward` and `reverse` members, as written. */
  forward?: Expression;
  reverse?: Expression;
  /** The rule argument, for diagnostics about its shape. */
  rule: Node;
}

/** A registration nabla cannot use (NABLA115), and where it is. */
export interface RegistrationProblem extends Message {
  node: Node;
}

const NABLA_SPECIFIERS = new Set(["nabla", "nabla/runtime"]);

/** Whether `callee` names nabla's `registerDerivative` in `mod`. */
function isRegisterCall(mod: SourceModule, callee: Node): boolean {
  if (callee.type === "Identifier") {
    const binding = mod.imports.get(callee.name);
    return (
      !!binding &&
      NABLA_SPECIFIERS.has(binding.specifier) &&
      binding.imported === "registerDerivative"
    );
  }
  if (
    callee.type === "MemberExpression" &&
    !callee.computed &&
    callee.object.type === "Identifier" &&
    callee.property.type === "Identifier" &&
    callee.property.name === "registerDerivative"
  ) {
    const binding = mod.imports.get(callee.object.name);
    return !!binding && NABLA_SPECIFIERS.has(binding.specifier) && binding.imported === "*";
  }
  return false;
}

export function findRegistrations(mod: SourceModule): {
  registrations: Registration[];
  problems: RegistrationProblem[];
} {
  const registrations: Registration[] = [];
  const problems: RegistrationProblem[] = [];
  const topLevel = new Set<Node>();
  for (const statement of mod.program.body) {
    if (statement.type === "ExpressionStatement" && statement.expression.type === "CallExpression")
      topLevel.add(statement.expression);
  }
  walk(mod.program, (node) => {
    if (node.type !== "CallExpression" || !isRegisterCall(mod, node.callee)) return true;
    if (!topLevel.has(node)) {
      problems.push({
        node,
        ...derivativeRule.registerDerivativeMustBeStatementAt(),
      });
      return false;
    }
    const [target, rule, ...extra] = node.arguments;
    if (!target || !rule || extra.length > 0 || target.type === "SpreadElement") {
      problems.push({
        node,
        ...derivativeRule.registerDerivativeTakesTwoArgumentsFunction(),
      });
      return false;
    }
    if (rule.type !== "ObjectExpression") {
      problems.push({
        node: rule,
        ...derivativeRule.ruleGivenToRegisterDerivativeMust(),
      });
      return false;
    }
    const registration: Registration = {
      module: mod,
      call: node,
      target: target as Expression,
      rule,
    };
    for (const p of rule.properties) {
      const key =
        p.type === "Property" && !p.computed && p.key.type === "Identifier"
          ? p.key.name
          : undefined;
      if (p.type !== "Property" || (key !== "forward" && key !== "reverse")) {
        problems.push({
          node: p,
          ...derivativeRule.derivativeRuleHasOnlyMembers(),
        });
        continue;
      }
      const value = p.value as Expression;
      if (value.type === "Identifier" && value.name === "undefined") continue;
      registration[key] = value;
    }
    if (!registration.forward && !registration.reverse) {
      problems.push({
        node: rule,
        ...derivativeRule.derivativeRuleNeedsForwardReverse(),
      });
      return false;
    }
    registrations.push(registration);
    return false;
  });
  return { registrations, problems };
}
