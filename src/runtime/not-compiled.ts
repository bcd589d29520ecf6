/**
 * Thrown when an operator runs on a function the nabla compiler did not see: the program was
 * run without being compiled (plain `node`, `tsx`…) instead of with `nabla run`, or the
 * operator was called from code outside the compiled program. Its message names the operator
 * and the function.
 */
export class NotCompiledError extends Error {
  constructor(operator: string, f: unknown) {
    const name = typeof f === "function" && f.name ? `'${f.name}'` : "this function";
    super(
      `nabla: ${operator}(${name === "this function" ? "…" : name.slice(1, -1)}) ran without being compiled, so there is no derivative for ${name}. ` +
        `Run the program with 'nabla run file.ts' (or compile it with 'nabla emit') so nabla can generate the derivative code.`,
    );
    this.name = "NotCompiledError";
  }
}
