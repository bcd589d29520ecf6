// The compiler is synchronous, and so waits for its worker threads (wabt's, assemble.ts; the
// large-stack compiler's, compiler/large-stack.ts) on a shared flag with Atomics.wait.

/**
 * Waits until `signal[index]` is no longer 0, or `timeoutMs` have passed (then false). It waits
 * for the flag, not for a wake-up: a thread's notify for the previous request may come late,
 * after this wait began, and would wake it before this request's reply is posted.
 */
export function awaitFlag(signal: Int32Array, timeoutMs = Infinity, index = 0): boolean {
  const deadline = Date.now() + timeoutMs;
  while (Atomics.load(signal, index) === 0) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    Atomics.wait(signal, index, 0, left);
  }
  return true;
}
