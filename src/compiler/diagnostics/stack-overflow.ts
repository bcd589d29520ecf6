// The compiler's passes recurse over nested code. Input within the nesting limits
// (parse/nesting.ts) fits the large stack the `nabla` command and the loader compile with; a
// caller compiling on a thread with a small stack may still run out, and is told so plainly.

/** Whether `error` is V8's stack overflow. */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack size/i.test(error.message);
}

/** What a stack overflow in the compiler means, for the diagnostic that reports it. */
export const STACK_OVERFLOW_ADVICE =
  "the compiler ran out of stack on this thread (code nested very deeply, or a very long chain of calls). The `nabla` command and loader compile with a large stack; to call compileProgram yourself, do it in a worker with a larger resourceLimits.stackSizeMb";
