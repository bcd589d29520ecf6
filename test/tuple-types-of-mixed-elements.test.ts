import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Tuple types nabla reads as arrays. `[number, string?]` has no type nabla can give it (a tuple
// whose length varies is an array of one element type); the message said its parameter
// "admits several kinds of array", or, in a function it called, that "a number" was compared
// with "a string". And `[]`, spread into `Math.max`, was "a value nabla does not differentiate".

const HELP =
  "a tuple whose length varies ('[number, number?]') is an array of its one element " +
  "type, and the elements of '[number, string?]' differ in type: give them one type, or use " +
  "an object with an optional field ('{ value: number; label?: string }')";

/** The diagnostics' text, and that each has HELP. */
function diagnostics(source: string): string {
  const compiled = compileFiles({ "main.ts": source });
  const text = diagnosticsText(compiled);
  assert.ok(compiled.diagnostics.length > 0, "diagnostics");
  for (const d of compiled.diagnostics) assert.equal(d.help, HELP, text);
  return text;
}

test("a differentiated function's parameter of type [number, string?]: NABLA106 saying why", () => {
  const text = diagnostics(`import { gradient } from "nabla";
export function f(pair: [number, string?]): number {
  return pair[1] === "double" ? 2 * pair[0] : pair[0];
}
export const g = gradient(f);
`);
  assert.match(
    text,
    /main\.ts:2:19: error NABLA106: parameter 'pair' of 'f' has type '\[number, string\?\]', which nabla cannot differentiate/,
  );
  assert.doesNotMatch(text, /several kinds of array/);
});

test("a function it calls taking [number, string?], and a local of that type: the same", () => {
  const text = diagnostics(`import { gradient } from "nabla";
function scale(pair: [number, string?]): number {
  return pair[1] === "double" ? 2 * pair[0] : pair[0];
}
export function f(x: number, y: number): number {
  const labelled: [number, string?] = [y, "double"];
  return scale([x * y, "double"]) + scale([x]) + labelled[0];
}
export const g = gradient(f);
`);
  assert.match(text, /main\.ts:2:16: error NABLA106: parameter 'pair' of 'scale'/);
  assert.match(text, /main\.ts:6:17: error NABLA106: 'labelled' has type '\[number, string\?\]'/);
  assert.doesNotMatch(text, /cannot compare a number with a string/);
});

test("tuples of one element type whose length varies still work", async () => {
  await checkTwoWays(`function total(values: [number, number?], rest: [number, ...number[]]): number {
  return values[0] * (values[1] ?? 1) + rest.reduce((s, v) => s + v, 0);
}
export function f(x: number, y: number): number {
  return total([x, y], [y, x * x]) + total([x * y], [x]);
}`);
});

test("an empty tuple spread into Math.max and Math.hypot, and iterated, gives nothing", async () => {
  await checkTwoWays(`export function f(x: number, y: number): number {
  const none: [] = [];
  let sum = Math.hypot(...none) + Math.min(x, ...none);
  for (const v of none) sum += v;
  return Math.max(x * y, ...none) + sum + none.length;
}`);
});
