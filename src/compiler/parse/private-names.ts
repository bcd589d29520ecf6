import { visitorKeys, type Class, type Node, type Program } from "oxc-parser";

// A class's `#name` members, as nabla handles them. Generated derivative code lives outside
// the class, where JavaScript forbids `o.#name`, and builds instances with `Object.create`,
// which a private field cannot be added to. So nabla's output turns each `#name` of such a
// class into an ordinary property whose key is the text `"#name"` (TypeScript has already
// checked that only the class reads it), and lowering reads it as a field of that name: after
// parsing, a private name is an `Identifier` whose name starts with `#`.

/** Where a private name is written, for the output's rewrite of it into a property key. */
export interface PrivateNameUse {
  /** The name with its `#`. */
  name: string;
  start: number;
  end: number;
  /**
   * `member`: `o.#x` or `o?.#x` (the `.` before it goes too); `key`: a field, method or
   * accessor's declaration; `in`: `#x in o`.
   */
  role: "member" | "key" | "in";
  /** The class that declares the name: the nearest enclosing one with a member of that name. */
  owner: Class;
}

/**
 * Turns every `PrivateIdentifier` of the program into an `Identifier` named `#x`, and returns
 * where each was written. A name no enclosing class declares (a syntax error TypeScript
 * reports) is left out of the list.
 */
export function privateNamesAsIdentifiers(program: Program): PrivateNameUse[] {
  const found: PrivateNameUse[] = [];
  visit(program as unknown as Node, [], (n, ancestors) => {
    const parent = ancestors[ancestors.length - 1];
    const role: PrivateNameUse["role"] =
      parent?.type === "MemberExpression"
        ? "member"
        : parent?.type === "BinaryExpression"
          ? "in"
          : "key";
    const name = `#${n.name}`;
    const owner = [...ancestors]
      .reverse()
      .find((a): a is Class => isClass(a) && declaredPrivateNames(a).has(name));
    // A key's own class declares it, so that is the owner; a use reaches out to the nearest.
    if (owner) found.push({ name, start: n.start, end: n.end, role, owner });
    const renamed = n as unknown as { type: string; name: string };
    renamed.type = "Identifier";
    renamed.name = name;
  });
  return found;
}

/** Calls `found` on each private name under `n`, with the nodes around it, outermost first. */
function visit(
  n: Node,
  ancestors: Node[],
  found: (n: Node & { name: string }, ancestors: Node[]) => void,
): void {
  if (n.type === "PrivateIdentifier") return found(n, ancestors);
  ancestors.push(n);
  for (const key of visitorKeys[n.type] ?? []) {
    const child = (n as unknown as Record<string, unknown>)[key];
    for (const c of Array.isArray(child) ? child : [child])
      if (c && typeof c === "object" && "type" in c) visit(c as Node, ancestors, found);
  }
  ancestors.pop();
}

function isClass(n: Node): n is Class {
  return n.type === "ClassDeclaration" || n.type === "ClassExpression";
}

/** The `#names` a class declares (fields, methods, accessors), with their `#`. */
export function declaredPrivateNames(decl: Class): Set<string> {
  const names = new Set<string>();
  for (const m of decl.body.body) {
    if (!("key" in m) || !m.key) continue;
    const key = m.key as { type: string; name?: string };
    if (key.type === "PrivateIdentifier") names.add(`#${key.name}`);
    else if (key.type === "Identifier" && key.name?.startsWith("#")) names.add(key.name);
  }
  return names;
}
