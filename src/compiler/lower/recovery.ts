import type { Node } from "oxc-parser";
import { CompileAbort, type Diagnostic } from "../diagnostics/diagnostic.js";
import { walk } from "../parse/module.js";

// Every independent error of one function in one run. Lowering stops at the first error (a
// CompileAbort). To find the next, the function is lowered again with the statement holding
// that error left out, until it lowers, or an error is not inside one of its statements (a
// missing return, a parameter), or the same statement fails again. An error in a statement
// that reads a name a left-out statement declares may only follow from leaving it out: it is
// not reported, and its statement is left out too.

/** How many errors of one function are reported at most. */
const MAX_ERRORS = 20;

/** Where a statement is: lowering may see copies of the parsed nodes (desugaring). */
export function statementKey(node: { start: number; end: number }): string {
  return `${node.start}:${node.end}`;
}

/** Lowers with `lower`, retrying without each failing statement; throws every error found. */
export function withRecovery<T>(
  file: string,
  root: Node,
  lower: (skipped: ReadonlySet<string>) => T,
): T {
  const skipped = new Set<string>();
  const unreliable = new Set<string>();
  const found: Diagnostic[] = [];
  for (;;) {
    try {
      const result = lower(skipped);
      if (found.length === 0) return result;
      break;
    } catch (error) {
      if (!(error instanceof CompileAbort) || found.length >= MAX_ERRORS) {
        if (found.length === 0) throw error;
        break;
      }
      const loc = error.diagnostic.loc;
      const statement =
        loc.file === file ? innermostStatement(root, loc.start, loc.end) : undefined;
      if (!statement || skipped.has(statementKey(statement))) {
        if (found.length === 0) throw error;
        break;
      }
      if (!reads(statement, unreliable)) found.push(error.diagnostic, ...error.more);
      skipped.add(statementKey(statement));
      for (const name of declaredBy(statement)) unreliable.add(name);
    }
  }
  throw new CompileAbort(found[0]!, found.slice(1));
}

/** The innermost statement of `root` (not `root` itself) holding [start, end). */
function innermostStatement(root: Node, start: number, end: number): Node | undefined {
  let found: Node | undefined;
  walk(root, (n) => {
    if (n.start > start || n.end < end) return false;
    if (n !== root && isStatement(n)) found = n;
    return true;
  });
  return found;
}

function isStatement(n: Node): boolean {
  return (
    (n.type.endsWith("Statement") && n.type !== "BlockStatement") ||
    n.type === "VariableDeclaration" ||
    n.type === "FunctionDeclaration"
  );
}

/** Whether `statement` reads one of `names`. */
function reads(statement: Node, names: ReadonlySet<string>): boolean {
  if (names.size === 0) return false;
  let found = false;
  walk(statement, (n) => {
    if (n.type === "Identifier" && names.has(n.name)) found = true;
    return !found;
  });
  return found;
}

/** The names a statement declares for the statements after it. */
function declaredBy(statement: Node): string[] {
  if (statement.type === "FunctionDeclaration") return statement.id ? [statement.id.name] : [];
  if (statement.type !== "VariableDeclaration") return [];
  const names: string[] = [];
  for (const d of statement.declarations)
    walk(d.id, (n) => {
      if (n.type === "Identifier") names.push(n.name);
    });
  return names;
}
