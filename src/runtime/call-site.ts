// Where the user called an operator that runs uncompiled: taken from a stack trace captured
// at the call (cheap: V8 formats the trace only when it is read, which the fallback does only
// to report an error), so diagnostics can name the user's file and line.

/** A place in a file: what a stack frame names. */
export interface CallSite {
  /** A path or a URL (`file:///…`), or a name such as `REPL3` where there is no file. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

/** A trace of the stack above `operatorBody`: its first frame is the operator, the next its caller. */
export function captureCallSite(
  operatorBody: (...args: never[]) => unknown,
): () => CallSite | undefined {
  const holder: { stack?: unknown } = {};
  const capture = (Error as { captureStackTrace?: (o: object, f: unknown) => void })
    .captureStackTrace;
  if (!capture) return () => undefined;
  capture(holder, operatorBody);
  return () => callerFrame(holder.stack);
}

/** The second frame of a V8 stack trace, the operator's caller, if it names a place. */
function callerFrame(stack: unknown): CallSite | undefined {
  // An `Error.prepareStackTrace` of the program's may make it anything.
  if (typeof stack !== "string") return undefined;
  const frames = stack.split("\n").filter((line) => /^\s+at /.test(line));
  const frame = frames[1];
  if (!frame) return undefined;
  // `    at name (place:1:2)` or `    at place:1:2`
  const match = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(frame);
  // Only a path, a file URL or a plain name (`REPL3`, `[eval]`): not `eval at …` and the like.
  if (!match || !/^(?:file:\/\/|\/|[A-Za-z]:[\\/])|^\[?[\w.-]+\]?$/.test(match[1]!))
    return undefined;
  return { file: match[1]!, line: Number(match[2]), column: Number(match[3]) };
}
