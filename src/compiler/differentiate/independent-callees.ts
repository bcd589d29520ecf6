import { parameterFunctionTypeOf } from "../types/resolver.js";
import type { Node } from "oxc-parser";
import { analyzeActivity, type CallVaried } from "../analysis/activity.js";
import type { EffectsOf } from "../analysis/effects.js";
import { symbolKey } from "../ir/function-key.js";
import { parseDerivedPrimalKey } from "../ir/names.js";
import { isDifferentiable } from "../ir/type-system.js";
import type { FunctionKey, IRFunction, SourceLoc } from "../ir/types.js";
import { forEachOp } from "../ir/walk.js";
import { walk, type FunctionLike } from "../parse/module.js";
import type { ProgramGraph } from "../parse/program.js";
import { namedTarget } from "../resolve/operator-call.js";
import { isLiteralWithFunctions, returnedLiteral } from "../lower/literal-factories.js";
import type { DifferentiationTarget } from "../resolve/targets.js";

// The callees a function that cannot be differentiated would have differentiated, so that their
// errors are reported in the same run (issue 21: one error per compile-and-fix round is slow).
// Only calls a derivative would flow through count: a helper called with constants, or only to
// print, is never differentiated, and its code is none of the derivative's business.

/** A callee to differentiate for the errors it would report, and the call that reaches it. */
export interface IndependentCallee {
  key: FunctionKey;
  /** Its parameters the derivative flows into. */
  wrt: number[];
  /** The call, and the callee's name as written, for the call-chain note. */
  loc: SourceLoc;
  name: string | undefined;
  /** Set when the callee was found in the source, not in lowered code. */
  target?: DifferentiationTarget;
}

/**
 * The callees of `primal` (lowered, but not differentiable for another reason) whose
 * arguments activity analysis finds active for `wrt`.
 */
export function activeCallees(
  primal: IRFunction,
  wrt: number[],
  known: (key: FunctionKey) => boolean,
  effects: EffectsOf,
  variedEffects: CallVaried,
): IndependentCallee[] {
  let activity;
  try {
    activity = analyzeActivity(primal, wrt, effects, variedEffects);
  } catch {
    return [];
  }
  const found: IndependentCallee[] = [];
  forEachOp(primal.body, (op) => {
    const key = op.attrs.callee;
    if (op.opcode !== "call" || !key || op.attrs.checkpoint || parseDerivedPrimalKey(key)) return;
    // A function chosen at run time: its candidates are optional demands of their own.
    if (op.attrs.via) return;
    if (!known(key)) return;
    const active = op.operands.flatMap((v, i) =>
      isDifferentiable(v.type) && activity.isActive(v) ? [i] : [],
    );
    if (active.length > 0) found.push({ key, wrt: active, loc: op.loc, name: op.attrs.calleeName });
  });
  return found;
}

/** The names an expression reads. */
function namesIn(node: Node): Set<string> {
  const names = new Set<string>();
  walk(node, (n, ancestors) => {
    const parent = ancestors[ancestors.length - 1];
    if (parent?.type === "MemberExpression" && parent.property === n && !parent.computed) return;
    if (n.type === "Identifier") names.add(n.name);
  });
  return names;
}

/**
 * The callees of a function whose lowering stopped at an error, found in its source: calls by
 * name of top-level functions of the program, with the arguments that read the differentiated
 * parameters or variables computed from them (a syntactic activity analysis: lowering, which
 * the real one needs, did not finish). Calls passing functions are left out: nabla compiles
 * those callees per function passed, which needs the lowered caller.
 */
export function writtenCallees(
  program: ProgramGraph,
  target: DifferentiationTarget,
  wrt: number[],
): IndependentCallee[] {
  const fn = target.node;
  const offset = target.thisType ? 1 : 0;
  const varied = new Set<string>();
  const local = new Set<string>();
  fn.params.forEach((p, i) => {
    if (p.type !== "Identifier") return;
    local.add(p.name);
    if (wrt.includes(i + offset)) varied.add(p.name);
  });
  // Variables computed from varied ones are varied, to a fixed point (loops assign backwards).
  const assignments: [string, Node][] = [];
  // Names holding an object with methods or functions written in its literal (or made by a
  // factory of one): a call passing it is specialized for them, never compiled on its own.
  const withFunctions = new Set<string>();
  const holdsFunctions = (n: Node): boolean => {
    if (isLiteralWithFunctions(n)) return true;
    if (n.type === "Identifier") return withFunctions.has(n.name);
    if (n.type !== "CallExpression" || n.callee.type !== "Identifier") return false;
    const made = program.resolveLocalFunction(target.module, n.callee.name);
    return made !== undefined && returnedLiteral(made.node) !== undefined;
  };
  walk(fn, (n) => {
    if (n.type === "VariableDeclarator" && n.id.type === "Identifier") {
      local.add(n.id.name);
      if (n.init) assignments.push([n.id.name, n.init]);
      if (n.init && holdsFunctions(n.init)) withFunctions.add(n.id.name);
    }
    if (n.type === "AssignmentExpression" && n.left.type === "Identifier")
      assignments.push([n.left.name, n.right]);
    if (n.type === "FunctionDeclaration" && n.id && n !== fn) local.add(n.id.name);
  });
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, value] of assignments) {
      if (varied.has(name)) continue;
      if ([...namesIn(value)].some((n) => varied.has(n))) {
        varied.add(name);
        changed = true;
      }
    }
  }
  const found: IndependentCallee[] = [];
  walk(fn, (n) => {
    if (n.type !== "CallExpression" || n.callee.type !== "Identifier") return;
    const name = n.callee.name;
    if (local.has(name)) return;
    const symbol = program.resolveLocalFunction(target.module, name);
    if (
      !symbol ||
      symbol.thisType ||
      ("typeParameters" in symbol.node && symbol.node.typeParameters)
    )
      return;
    // A function-typed parameter makes the callee compiled per function passed (see above).
    const takesFunction = symbol.node.params.some((p) =>
      parameterFunctionTypeOf(program, symbol.module, p),
    );
    if (takesFunction) return;
    // A factory (it returns a function, or an object with methods): its body runs inlined
    // where it is called (lower/literal-factories.ts); so does a generator, at the `for…of`
    // iterating it (lower/generators.ts).
    if (returnsFunction(symbol.node) || returnedLiteral(symbol.node) || symbol.node.generator)
      return;
    if (n.arguments.some((a) => holdsFunctions(a))) return;
    const active = n.arguments.flatMap((a, i) =>
      [...namesIn(a)].some((v) => varied.has(v)) ? [i] : [],
    );
    if (active.length === 0) return;
    found.push({
      key: symbolKey(symbol),
      wrt: active,
      loc: { file: target.module.file, start: n.start, end: n.end },
      name,
      target: namedTarget(symbol),
    });
  });
  return found;
}

/** Whether a function returns a function it writes (`return (x: number) => …`). */
function returnsFunction(fn: FunctionLike): boolean {
  if (fn.type === "ArrowFunctionExpression" && fn.expression)
    return isFunctionNode(fn.body as Node);
  let found = false;
  walk(fn.body as Node, (n) => {
    if (n.type === "ReturnStatement" && n.argument && isFunctionNode(n.argument)) found = true;
    return !found && (n === fn.body || !isFunctionNode(n));
  });
  return found;
}

function isFunctionNode(n: Node): boolean {
  return n.type === "ArrowFunctionExpression" || n.type === "FunctionExpression";
}
