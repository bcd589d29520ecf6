import type { Node } from "oxc-parser";
import type { FunctionLike } from "../parse/module.js";
import {
  ancestorsIn,
  declarationAt,
  findLocalFunction,
  freeNames,
  methodOfThis,
  type Capture,
  type LocalFunction,
} from "./captures.js";
import { THIS_CAPTURE } from "../ir/names.js";

// A function given to an operator that calls (or passes on) a local function of the enclosing
// function, as in `const g = (s) => a * s ** 3; derivative((s) => 2 * g(s))(t)`. The local
// function's code goes with the lambda: what it reads (`a`) becomes more captures of the
// lambda, and lowering gives the lambda `g` as a local function of its own, reading those
// captures (lower/function.ts), so it is called, inlined or passed on as in the enclosing
// function. Captures are passed by name where the lambda is written, so each name a local
// function reads must mean there what it means where the local function is written.

/** What a function reads from enclosing functions: its captures and the local functions it calls. */
export interface Reads {
  /** Variables: the function's own, then those only its local functions read. */
  captures: Capture[];
  localFunctions: LocalFunction[];
}

/**
 * What `fn`, written where `fnAncestors` say, reads when it is differentiated for a call
 * written where `siteAncestors` say: a lambda written at the call, or the local function
 * `localName` named there. `capturesAt` finds a function's captures (operator-call.ts's
 * `capturesOf`).
 */
export function readsOf(
  program: Node,
  fn: FunctionLike,
  fnAncestors: readonly Node[],
  siteAncestors: readonly Node[],
  capturesAt: (fn: FunctionLike, ancestors: readonly Node[]) => Capture[],
  localName?: string,
): Reads {
  const captures: Capture[] = [];
  const localFunctions: LocalFunction[] = [];
  const visit = (
    node: FunctionLike,
    ancestors: readonly Node[],
    reader: string | undefined,
  ): void => {
    for (const capture of capturesAt(node, ancestors)) {
      // A name the caller's site reads as another variable cannot be passed by name.
      // `this` means the same instance where the caller's site reads the same method's.
      const atSite =
        reader === undefined
          ? capture.node
          : capture.name === THIS_CAPTURE
            ? methodOfThis(siteAncestors)
            : declarationAt(capture.name, siteAncestors);
      if (atSite !== capture.node) {
        captures.push({ ...capture, node: atSite ?? capture.node, hiddenFrom: reader });
        continue;
      }
      const local = capture.isFunction ? findLocalFunction(capture.name, ancestors) : undefined;
      if (local?.constant) {
        if (localFunctions.some((f) => f.name === capture.name)) continue;
        localFunctions.push({ name: capture.name, node: local.node });
        visit(local.node, ancestorsIn(program, local.node), capture.name);
        continue;
      }
      if (captures.some((c) => c.name === capture.name)) continue;
      captures.push(capture);
    }
    // A module-level name the local function reads, which a variable hides at the site.
    if (reader === undefined) return;
    for (const name of freeNames(node)) {
      if (declarationAt(name, ancestors) !== undefined) continue;
      const hiding = declarationAt(name, siteAncestors);
      if (hiding !== undefined && !captures.some((c) => c.name === name && c.hiddenFrom))
        captures.push({
          name,
          type: undefined,
          node: hiding,
          isFunction: false,
          hiddenFrom: reader,
        });
    }
  };
  visit(fn, fnAncestors, localName);
  return { captures, localFunctions };
}
