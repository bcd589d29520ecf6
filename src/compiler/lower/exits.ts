import type { Node, SwitchStatement } from "oxc-parser";
import { walk } from "../parse/module.js";
import type { LowerContext, LoopTarget } from "./context.js";

// Syntactic facts about early exits. `break`, `continue` and `return` are lowered to flags
// (structured exits), so lowering must know in advance which flags a statement may set.

export interface Exits {
  returns: boolean;
  /** Loops outside the statement that it may `break` out of. */
  breaks: Set<LoopTarget>;
  /** Loops outside the statement that it may `continue`. */
  continues: Set<LoopTarget>;
}

const LOOPS = new Set([
  "ForStatement",
  "WhileStatement",
  "DoWhileStatement",
  "ForOfStatement",
  "ForInStatement",
]);
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** Marks the one-pass loop a `switch` becomes (switch.ts). */
export const SWITCH_LOOP = "nablaSwitchLoop";

/** Whether `node` is the one-pass loop a switch became: `continue` passes it by. */
export function isSwitchLoop(node: Node): boolean {
  return (node as unknown as Record<string, unknown>)[SWITCH_LOOP] === true;
}

/** Marks the one-pass loop a labelled block becomes (statements.ts). */
export const LABELED_BLOCK_LOOP = "nablaLabeledBlockLoop";

/** Whether `node` is the one-pass loop a labelled block became: only its label leaves it. */
export function isLabeledBlockLoop(node: Node): boolean {
  return (node as unknown as Record<string, unknown>)[LABELED_BLOCK_LOOP] === true;
}

export function isLoop(node: Node): boolean {
  return LOOPS.has(node.type);
}

/** The exits of `node` that leave it, resolved against the loops being lowered around it. */
export function scanExits(ctx: LowerContext, node: Node): Exits {
  const exits: Exits = { returns: false, breaks: new Set(), continues: new Set() };
  // Loops inside `node`, innermost last, with their labels.
  // A `switch` inside is a target of an unlabeled `break` (not of `continue`).
  const inner: { node: Node; label: string | undefined; switch?: boolean }[] = [];
  const labels = new Map<Node, string>();

  const resolve = (
    label: string | undefined,
    continuing = false,
  ): LoopTarget | "inner" | undefined => {
    for (let i = inner.length - 1; i >= 0; i--) {
      if (continuing && inner[i]!.switch) continue;
      if (label === undefined || inner[i]!.label === label) return "inner";
    }
    for (let i = ctx.loops.length - 1; i >= 0; i--) {
      if (continuing && ctx.loops[i]!.isSwitch) continue;
      if (label === undefined && ctx.loops[i]!.isBlock) continue;
      if (label === undefined || ctx.loops[i]!.label === label) return ctx.loops[i];
    }
    return undefined;
  };

  const visit = (n: Node) => {
    walk(n, (child) => {
      if (FUNCTIONS.has(child.type)) return false;
      if (child.type === "LabeledStatement") labels.set(child.body, child.label.name);
      if (child.type === "ReturnStatement") exits.returns = true;
      // In an inlined generator, a `yield` runs the consumer's body, which may end it.
      if (child.type === "YieldExpression" && ctx.yieldSite)
        for (const stop of ctx.yieldSite.stops) exits.breaks.add(stop);
      if (child.type === "BreakStatement" || child.type === "ContinueStatement") {
        const target = resolve(child.label?.name, child.type === "ContinueStatement");
        if (target && target !== "inner")
          (child.type === "BreakStatement" ? exits.breaks : exits.continues).add(target);
      }
      if (child.type === "SwitchStatement" && child !== n) {
        inner.push({ node: child, label: undefined, switch: true });
        for (const c of child.cases) c.consequent.forEach(visit);
        inner.pop();
        return false;
      }
      if (LOOPS.has(child.type) && child !== n) {
        inner.push({ node: child, label: labels.get(child), switch: isSwitchLoop(child) });
        const body = (child as { body: Node }).body;
        visit(body);
        inner.pop();
        return false;
      }
      return true;
    });
  };
  if (LOOPS.has(node.type)) {
    inner.push({ node, label: labels.get(node), switch: isSwitchLoop(node) });
    visit((node as { body: Node }).body);
  } else if (node.type === "SwitchStatement") {
    inner.push({ node, label: undefined, switch: true });
    for (const c of node.cases) c.consequent.forEach(visit);
  } else {
    visit(node);
  }
  return exits;
}

/**
 * Whether control never reaches the end of `node` (every path leaves by an exit). `complete`
 * gives a switch without `default` the one TypeScript knows cannot run when its cases list
 * every value its discriminant's type allows (`withExhaustiveDefault`, switch.ts), so a switch
 * over `e.op` that returns in every case exits, nested in a case or a branch too.
 */
export function alwaysExits(
  node: Node | null | undefined,
  complete?: (node: SwitchStatement) => SwitchStatement,
): boolean {
  if (!node) return false;
  const exits = (n: Node | null | undefined) => alwaysExits(n, complete);
  switch (node.type) {
    case "ReturnStatement":
    case "BreakStatement":
    case "ContinueStatement":
    case "ThrowStatement":
      return true;
    case "BlockStatement":
      return node.body.some(exits);
    case "IfStatement":
      return exits(node.consequent) && exits(node.alternate);
    case "LabeledStatement":
      return exits(node.body) && !breaksOut(node.body, node.label.name);
    case "WhileStatement":
    case "ForStatement":
    case "DoWhileStatement":
      return isEndless(node) && !breaksOut(node, undefined);
    case "SwitchStatement":
      return switchExits(complete ? complete(node) : node, exits);
    default:
      return false;
  }
}

/**
 * Whether control never leaves a switch at its end: it has a default, every case falls
 * through or ends in an exit, and nothing breaks out of it.
 */
function switchExits(node: SwitchStatement, exits: (n: Node | undefined) => boolean): boolean {
  if (!node.cases.some((c) => !c.test)) return false;
  const last = node.cases[node.cases.length - 1]!;
  if (last.consequent.length === 0) return false;
  for (const c of node.cases) {
    const end = c.consequent[c.consequent.length - 1];
    if (end && !exits(end)) return false;
  }
  let breaks = false;
  walk(node, (child: Node) => {
    if (child !== node && (FUNCTIONS.has(child.type) || LOOPS.has(child.type))) return false;
    if (child !== node && child.type === "SwitchStatement") return false;
    if (child.type === "BreakStatement" && !child.label) breaks = true;
    return true;
  });
  return !breaks;
}

/** `while (true)`, `for (;;)`, `do … while (true)`. */
function isEndless(node: Node): boolean {
  if (
    node.type !== "WhileStatement" &&
    node.type !== "ForStatement" &&
    node.type !== "DoWhileStatement"
  )
    return false;
  const test = node.test;
  return !test || (test.type === "Literal" && test.value === true);
}

/** Whether `loop` contains a `break` that leaves it (unlabeled at its own level, or `label`). */
function breaksOut(loop: Node, label: string | undefined): boolean {
  let found = false;
  const visit = (n: Node, depth: number) => {
    walk(n, (child) => {
      if (FUNCTIONS.has(child.type)) return false;
      if (child.type === "BreakStatement") {
        if ((child.label && child.label.name === label) || (!child.label && depth === 0))
          found = true;
      }
      if (LOOPS.has(child.type) && child !== n) {
        visit((child as { body: Node }).body, depth + 1);
        return false;
      }
      return true;
    });
  };
  visit(LOOPS.has(loop.type) ? (loop as { body: Node }).body : loop, LOOPS.has(loop.type) ? 0 : 1);
  return found;
}
