import type { Node } from "oxc-parser";
import { walk } from "../parse/module.js";

// The variables a piece of code assigns: the pre-scan that tells lowering which variables
// a loop carries and which captured variables a closure may change.

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/**
 * Identifiers assigned anywhere in `nodes` (`x = …`, `x += …`, `x++`), outside nested functions
 * unless `throughFunctions`: a loop's pre-scan looks into them too, since a callback written
 * there (`row.forEach((v) => { total += v; })`) is inlined into the loop. Taking in a name a
 * nested function only assigns to its own local costs a carried value, nothing more.
 */
export function assignedNames(
  nodes: (Node | null | undefined)[],
  throughFunctions = false,
): Set<string> {
  const names = new Set<string>();
  for (const node of nodes) {
    if (!node) continue;
    walk(node, (child) => {
      if (FUNCTIONS.has(child.type) && !throughFunctions) return false;
      if (child.type === "AssignmentExpression") patternNames(child.left, names);
      if (child.type === "UpdateExpression" && child.argument.type === "Identifier")
        names.add(child.argument.name);
      return true;
    });
  }
  return names;
}

/** The plain names a (possibly destructuring) assignment target writes. */
function patternNames(target: Node, names: Set<string>): void {
  if (target.type === "Identifier") names.add(target.name);
  else if (target.type === "ArrayPattern") {
    for (const element of target.elements) if (element) patternNames(element, names);
  } else if (target.type === "ObjectPattern") {
    for (const p of target.properties) patternNames(p.type === "RestElement" ? p : p.value, names);
  } else if (target.type === "AssignmentPattern") patternNames(target.left, names);
  else if (target.type === "RestElement") patternNames(target.argument, names);
}
