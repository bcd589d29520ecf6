import type { SourceModule } from "../../parse/module.js";
import type { ProgramGraph } from "../../parse/program.js";
import { privateNameClash } from "../../parse/class-hierarchy.js";
import type { Replacement } from "./module.js";

// The output's side of `#name` members (see parse/private-names.ts): each becomes a property
// keyed `"#name"`, so generated code outside the class reads and writes it as a field, and an
// instance it builds with `Object.create` holds it. Every module nabla outputs does this for
// every class it declares, whatever is differentiated, so a class and the derivative code of
// another module always agree; a class whose base declares one of its names keeps its own.

/** The edits turning the module's `#name`s into `"#name"` property keys. */
export function privateNameRewrites(program: ProgramGraph, mod: SourceModule): Replacement[] {
  const kept = new Map<object, boolean>();
  const keeps = (owner: SourceModule["privateNames"][number]["owner"]) => {
    if (!kept.has(owner)) {
      const symbol = { module: mod, name: owner.id?.name ?? "", decl: owner };
      kept.set(owner, privateNameClash(program, symbol) !== undefined);
    }
    return kept.get(owner)!;
  };
  const edits: Replacement[] = [];
  for (const use of mod.privateNames) {
    if (keeps(use.owner)) continue;
    const key = JSON.stringify(use.name);
    if (use.role !== "member") {
      edits.push({ start: use.start, end: use.end, text: key });
      continue;
    }
    // `o.#x` → `o["#x"]`, `o?.#x` → `o?.["#x"]`: the `.` goes with the name.
    let dot = use.start - 1;
    while (dot > 0 && /\s/.test(mod.text[dot]!)) dot--;
    const optional = mod.text[dot - 1] === "?";
    edits.push({ start: dot, end: use.end, text: `${optional ? "." : ""}[${key}]` });
  }
  return edits;
}
