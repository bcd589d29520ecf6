import type { SourceModule } from "../../parse/module.js";

// Names generated code uses in one module. Generated code lives in the user's module: its
// top-level functions next to the user's, its operator wrappers inside the user's functions.
// So that no user binding can capture or shadow a generated name, and no generated name can
// capture a user reference:
// - every top-level name generated code declares or imports (`$nabla`, `f$jvp`, `$rule_f`…)
//   is one the file never writes as an identifier, anywhere; when it does, the name gets a
//   suffix (`f$jvp$1`), the same on every compile;
// - the platform's globals generated code uses (`Math`, `Array`, `Float64Array`…) are read by
//   name unless the file declares that name somewhere (a top-level `const Math`, a parameter
//   `Array`); then through the runtime, whose module sees the real ones (`$nabla.globals.Math`).
// User code is never renamed: what it declares and exports stays as written.

/** How generated code in one module reads the platform's global `name`. */
export type Builtins = (name: string) => string;

export class ModuleNames {
  private readonly taken: Set<string>;
  private readonly claimed = new Map<string, string>();
  /** The local name of the nabla runtime namespace import. */
  readonly runtime: string;

  constructor(private readonly mod: SourceModule) {
    this.taken = new Set(mod.identifiers);
    this.runtime = this.claim("runtime", "$nabla");
  }

  /**
   * The top-level name of the generated thing `key`: `preferred`, or `preferred$1`,
   * `preferred$2`… when the file writes that identifier or generated code already took it.
   */
  claim(key: string, preferred: string): string {
    const known = this.claimed.get(key);
    if (known !== undefined) return known;
    let name = preferred;
    for (let i = 1; this.taken.has(name); i++) name = `${preferred}$${i}`;
    this.taken.add(name);
    this.claimed.set(key, name);
    return name;
  }

  /** How generated code reads the platform's global `name` (see above). */
  readonly builtin: Builtins = (name) =>
    this.mod.declared.has(name) ? `${this.runtime}.globals.${name}` : name;
}
