import { notes } from "../diagnostics/messages/index.js";
import type { Message } from "../diagnostics/messages/message.js";
import { closureCapture, nestedDifferentiation } from "../diagnostics/messages/index.js";
import type { DifferentiationTarget } from "./targets.js";
import type { CallExpression, Node } from "oxc-parser";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { leadingJSDoc, walk, type SourceModule } from "../parse/module.js";
import { type ProgramGraph } from "../parse/program.js";
import { declaredLocally } from "./captures.js";
import {
  attachments,
  calledParameters,
  functionTypedParameter,
  lambdaAt,
  needKey,
  type Forwarding,
} from "./attachments.js";
import { isOperator } from "../../api/operators.js";
import {
  analyzeCall,
  lambdaReads,
  declarationOf,
  NABLA_SPECIFIERS,
  type OperatorCall,
} from "./operator-call.js";

import type { Backend } from "../../api/wasm-entry.js";

// Finds what the user asks to differentiate: calls of nabla's operators (`derivative(f)`) and
// functions tagged `/** @differentiable */`. These are the roots of differentiation; the
// functions they call are found later, while lowering.

/**
 * `gradient(loss)` where `loss` is a function-typed parameter: the derivative comes with the
 * function value at run time (see attachDerivatives in the runtime).
 */
export interface ValueOperatorUse {
  call: CallExpression;
  /** The parameter holding the function value. */
  fn: string;
  /** What the derivative is attached under (see resolve/attachments.ts). */
  key: string;
  /** For a lambda calling the parameter: its other captures, which the attached factory takes. */
  captures?: string[];
}

export interface Requests {
  calls: OperatorCall[];
  valueOperators: ValueOperatorUse[];
  /** Lambdas passed on that call a parameter: they carry what was attached for them. */
  forwards: Forwarding[];
  /** Functions tagged `@differentiable`: derivative emitted and checked even if unused. */
  declared: DifferentiationTarget[];
  /** Functions tagged `@backend wasm` or `@backend auto`: they run as WebAssembly themselves. */
  backends: { target: DifferentiationTarget; backend: Exclude<Backend, "js"> }[];
  diagnostics: Diagnostic[];
}

export function findRequests(program: ProgramGraph, module: SourceModule): Requests {
  const result: Requests = {
    calls: [],
    valueOperators: [],
    forwards: [],
    declared: [],
    backends: [],
    diagnostics: [],
  };
  const operatorNames = new Map<string, string>();
  const namespaces = new Set<string>();
  for (const [local, binding] of module.imports) {
    if (!NABLA_SPECIFIERS.has(binding.specifier)) continue;
    if (binding.imported === "*") namespaces.add(local);
    else operatorNames.set(local, binding.imported);
  }
  const reporter =
    (severity: "error" | "warning", notes: Diagnostic["notes"]) => (node: Node, message: Message) =>
      result.diagnostics.push({
        severity,
        ...message,
        loc: { file: module.file, start: node.start, end: node.end },
        notes,
      });
  const error = reporter("error", []);
  // A derivative to attach that cannot be compiled only matters to a plain run that needs it.
  const attachmentWarning = reporter("warning", [notes.attachedForPlainRuns()]);

  const operatorOf = (callee: Node): string | undefined => {
    if (callee.type === "Identifier") return operatorNames.get(callee.name);
    if (
      callee.type === "MemberExpression" &&
      !callee.computed &&
      callee.object.type === "Identifier" &&
      namespaces.has(callee.object.name) &&
      callee.property.type === "Identifier"
    ) {
      return callee.property.name;
    }
    return undefined;
  };

  walk(module.program, (node, ancestors) => {
    // `new Solver(loss)`, whose constructor takes `gradient(loss)`: as a call is.
    if (node.type === "NewExpression") {
      const found = attachments(program, module, node, ancestors, attachmentWarning);
      result.calls.push(...found.calls);
      result.forwards.push(...found.forwards);
      return true;
    }
    if (node.type !== "CallExpression") return true;
    const head =
      node.callee.type === "Identifier"
        ? node.callee
        : node.callee.type === "MemberExpression"
          ? node.callee.object
          : undefined;
    const shadowed = head?.type === "Identifier" && declaredLocally(head.name, ancestors);
    const operator = shadowed ? undefined : operatorOf(node.callee);
    if (!operator) {
      const found = attachments(program, module, node, ancestors, attachmentWarning);
      result.calls.push(...found.calls);
      result.forwards.push(...found.forwards);
      return true;
    }
    if (operator === "withoutDerivative" || !isOperator(operator)) return true;
    const fnArg = node.arguments[0];
    // `gradient(curve!)` of an optional one: the parameter.
    const named = fnArg?.type === "TSNonNullExpression" ? fnArg.expression : fnArg;
    if (
      isOperator(operator) &&
      node.arguments.length === 1 &&
      named?.type === "Identifier" &&
      functionTypedParameter(program, module, named.name, ancestors)
    ) {
      result.valueOperators.push({ call: node, fn: named.name, key: operator });
      return false;
    }
    // `hessian(f, { wrt: 1 })` of a parameter: its derivative is compiled where `f` is passed,
    // with respect to every parameter (was NABLA108 "cannot follow a variable holding a
    // function", which the same call without options could).
    if (
      node.arguments.length > 1 &&
      named?.type === "Identifier" &&
      functionTypedParameter(program, module, named.name, ancestors)
    ) {
      error(node.arguments[1]!, nestedDifferentiation.ofFunctionValueTakesNo(operator));
      return false;
    }
    // A lambda calling a function-typed parameter: differentiated where the function is known.
    const lambda = fnArg && lambdaAt(fnArg, ancestors);
    const called = lambda ? calledParameters(program, module, lambda, ancestors) : [];
    if (lambda && called.length > 0) {
      if (called.length > 1) {
        error(
          fnArg,
          closureCapture.thisFunctionCallsFunctionParameters(called.length, called.join("', '")),
        );
        return false;
      }
      const call = analyzeCall(program, module, node, ancestors, operator, error);
      if (!call) return false;
      if (call.hasAux) {
        error(node.arguments[1]!, closureCapture.hasAuxIsNotSupportedFor(called[0]));
        return false;
      }
      const captures = lambdaReads(program, module, lambda, ancestors)
        .captures.filter((c) => c.name !== called[0])
        .map((c) => c.name);
      const target = { module, node: lambda, ancestors: [], param: called[0]! };
      const key = needKey({ operator, via: [], target, wrt: call.wrt });
      result.valueOperators.push({ call: node, fn: called[0]!, key, captures });
      return false;
    }
    const call = analyzeCall(program, module, node, ancestors, operator, error);
    if (call) result.calls.push(call);
    return false;
  });

  for (const [name, node] of module.functions) {
    const doc = leadingJSDoc(
      module,
      node.type === "FunctionDeclaration" ? node : declarationOf(module, node),
    );
    if (doc && /@differentiable\b/.test(doc)) {
      result.declared.push({ module, name, node, contextualNumberParams: false, captures: [] });
    }
    const backend = doc ? /@backend\s+(wasm|auto)\b/.exec(doc)?.[1] : undefined;
    if (backend === "wasm" || backend === "auto")
      result.backends.push({
        target: { module, name, node, contextualNumberParams: false, captures: [] },
        backend,
      });
  }
  return result;
}
