import type { Printable } from "./message.js";

// The texts of diagnostics' notes: where differentiation came from (the call chain), where
// something related is, and how to fix it. A reporting site gives a note its place.

/** A note's text; the site adds `loc` where the note points somewhere. */
export interface NoteText {
  message: string;
}

const note = (message: string): NoteText => ({ message });

export const notes = {
  /** One step of the call chain; `via` says how a call of a function value reached it. */
  whenDifferentiatingCall: (callee: Printable, via?: string) =>
    note(`when differentiating this call to '${callee}'${via ? `, ${via}` : ""}`),
  /** Where the chain starts: the operator call that asked for the derivative. */
  whenDifferentiatingFunctionGiven: (operator: Printable) =>
    note(`when differentiating the function given to '${operator}'`),
  whenDifferentiatingFor: (label: Printable, operator: Printable) =>
    note(`when differentiating ${label} for '${operator}'`),
  declaredDifferentiableHere: (name: Printable) =>
    note(`'${name}' is declared @differentiable here`),
  firstRegistrationHere: () => note("the first registration is here"),
  valueDefinedHere: () => note("value defined here"),
  declareDifferentiable: (type: Printable) =>
    note(
      `declare it 'Differentiable<${type}>' (a type from "nabla") so it may hold any function of the program used as a value, or differentiate code that passes the function itself, for which nabla specializes the call`,
    ),
  differentiateRuleOnce: (name: Printable) =>
    note(`differentiate '${name}' once, or remove its rule so nabla differentiates its body`),
  useWithoutDerivative: () =>
    note("use 'withoutDerivative(…)' if the derivative through this operation should be zero"),
  storeWithoutDerivative: () =>
    note(
      "store 'withoutDerivative(…)' if the derivative should be dropped, or remove '@noDerivative'",
    ),
  attachedForPlainRuns: () =>
    note(
      "nabla attaches this derivative to the function passed here for plain runs of the callee, which differentiates it; without it, such a run throws (differentiated code does not need it)",
    ),
};
