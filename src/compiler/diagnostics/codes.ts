// Every diagnostic nabla can report, with a stable code. docs/diagnostics.md lists them
// with examples; tests assert on the exact text.

export const DiagnosticCode = {
  parseError: "NABLA001",
  unsupportedSyntax: "NABLA101",
  unknownCallee: "NABLA102",
  unknownType: "NABLA103",
  nonDifferentiableOperation: "NABLA104",
  moduleVariableWrite: "NABLA105",
  unsupportedType: "NABLA106",
  missingReturn: "NABLA107",
  badOperatorUse: "NABLA108",
  typeMismatch: "NABLA109",
  constAssignment: "NABLA110",
  unboundName: "NABLA111",
  closureCapture: "NABLA112",
  callArity: "NABLA113",
  moduleNotFound: "NABLA114",
  derivativeRule: "NABLA115",
  nestedDifferentiation: "NABLA116",
  constantResult: "NABLA201",
  wasmFallback: "NABLA202",
  internalError: "NABLA900",
} as const;

export type DiagnosticCodeName = keyof typeof DiagnosticCode;
