/**
 * Thrown when an operator runs on a function the nabla compiler did not see: the program was
 * run without being compiled (plain `node`, `tsx`…) instead of with `nabla run`, or the
 * operator was called from code outside the compiled program. Its message names the operator
 * and the function.
 */
export class NotCompiledError extends Error {
  /** The variable the function uses but does not define, when that is why. */
  readonly freeVariable?: string;

  constructor(operator: string, f: unknown, reason: string, freeVariable?: string) {
    const name = typeof f === "function" && f.name ? `'${f.name}'` : "this function";
    const call = `${operator}(${name === "this function" ? "…" : name.slice(1, -1)})`;
    const remedy = freeVariable ? `, or pass '${freeVariable}' to it as a parameter` : "";
    super(
      `nabla: ${call} ran without being compiled, and ${name} cannot be compiled from its source at run time: ${reason}. ` +
        `Let nabla compile the program: run it with 'nabla run file.ts' or 'node --import nabla/register file.ts', or bundle it with the plugin 'nabla/plugin'${remedy}.`,
    );
    this.name = "NotCompiledError";
    if (freeVariable) this.freeVariable = freeVariable;
  }
}
