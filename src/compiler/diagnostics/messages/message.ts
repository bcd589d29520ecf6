import { DiagnosticCode, type DiagnosticCodeName } from "../codes.js";

// The catalog's building block: each message of a diagnostic code is a function in that code's
// file (messages/<code>.ts) that fills the parts that vary into the text, so reviewing every
// text of one code means reading one file.

/** What varies in a message: a name, a type written out, a count… */
export type Printable = string | number | boolean | undefined;

/**
 * What the code a message is about is: differentiated, or a function tagged `@backend wasm`
 * run as WebAssembly, which nobody differentiates but which is lowered the same way (its
 * operators like nested ones, lower/nested.ts), so "differentiable code" would mislead there.
 */
export type CodeContext = "differentiable" | "wasm";

/** A diagnostic's code and text, which the reporting site gives a place and notes. */
export interface Message {
  /** The stable code, e.g. NABLA101. */
  code: string;
  message: string;
  /** The fix, when there is one the message does not already say: printed as `help: …`. */
  help?: string;
}

export function message(code: DiagnosticCodeName, text: string, help?: string): Message {
  return help === undefined
    ? { code: DiagnosticCode[code], message: text }
    : { code: DiagnosticCode[code], message: text, help };
}

/** A type's text with its article: "a Float64Array", "an Int32Array". */
export function withArticle(typeText: Printable): string {
  const text = String(typeText);
  return /^[aeiou]/i.test(text) ? `an ${text}` : `a ${text}`;
}
