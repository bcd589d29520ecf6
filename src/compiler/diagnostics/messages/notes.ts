import type { Printable } from "./message.js";

// The texts of diagnostics' notes: where differentiation came from (the call chain), where
// something related is. (How to fix it is a message's `help`.) A reporting site gives a note
// its place.

/** A note's text; the site adds `loc` where the note points somewhere. */
export interface NoteText {
  message: string;
}

const note = (message: string): NoteText => ({ message });

export const notes = {
  /**
   * One step of the call chain; `via` says how a call of a function value reached it. Without
   * a name (a lambda's), the note points at the call alone.
   */
  whenDifferentiatingCall: (callee: Printable, via?: string) =>
    note(
      `when differentiating this call${callee === undefined ? "" : ` to '${callee}'`}${via ? `, ${via}` : ""}`,
    ),
  /** Where the chain starts: the operator call that asked for the derivative. */
  whenDifferentiatingFunctionGiven: (operator: Printable) =>
    note(`when differentiating the function given to '${operator}'`),
  /** Why a callee could not be read (lowered), at the place it stopped. */
  cannotRead: (label: Printable, why: Printable) => note(`nabla cannot read ${label}: ${why}`),
  whenDifferentiatingFor: (label: Printable, operator: Printable) =>
    note(`when differentiating ${label} for '${operator}'`),
  /** A problem in a generator's code, inlined at the `for…of` the note points at. */
  inFactoryCalledHere: (name: Printable) =>
    note(`in the factory '${name}', whose object with methods this call builds here`),
  inGeneratorIteratedHere: (name: Printable) =>
    note(`in the generator '${name}', which this loop iterates`),
  declaredDifferentiableHere: (name: Printable) =>
    note(`'${name}' is declared @differentiable here`),
  firstRegistrationHere: () => note("the first registration is here"),
  valueDefinedHere: () => note("value defined here"),
  /** Where an object holding a function written in an object literal was made or came in. */
  objectWithFunctionFrom: () => note("the object holding the function comes from here"),
  objectWithAccessorsFrom: () => note("the object with the accessors is written here"),
  returnedFunctionWrittenHere: () => note("the function it returns is written here"),
  attachedForPlainRuns: () =>
    note(
      "nabla attaches this derivative to the function passed here for plain runs of the callee, which differentiates it; without it, such a run throws (differentiated code does not need it)",
    ),
};
