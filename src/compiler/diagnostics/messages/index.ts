// The catalog of nabla's diagnostics: per code, one module holding every message of that code
// (messages/<code>.ts). Reporting sites take a message from here and give it a place and notes.

export { badOperatorUse } from "./bad-operator-use.js";
export { callArity } from "./call-arity.js";
export { closureCapture } from "./closure-capture.js";
export { constAssignment } from "./const-assignment.js";
export { constantResult } from "./constant-result.js";
export { derivativeRule } from "./derivative-rule.js";
export { internalError } from "./internal-error.js";
export { missingReturn } from "./missing-return.js";
export { moduleNotFound } from "./module-not-found.js";
export { moduleVariableWrite } from "./module-variable-write.js";
export { nestedDifferentiation } from "./nested-differentiation.js";
export { nonDifferentiableOperation } from "./non-differentiable-operation.js";
export { typeMismatch } from "./type-mismatch.js";
export { unboundName } from "./unbound-name.js";
export { unknownCallee } from "./unknown-callee.js";
export { unknownType } from "./unknown-type.js";
export { unsupportedSyntax } from "./unsupported-syntax.js";
export { unsupportedType } from "./unsupported-type.js";
export { wasmFallback } from "./wasm-fallback.js";
export { parseError } from "./parse-error.js";
export { notes, type NoteText } from "./notes.js";
export type { CodeContext } from "./message.js";
