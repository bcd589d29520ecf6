import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText } from "./support/harness.js";
import { jsonReport } from "../src/cli/json-report.js";
import * as catalog from "../src/compiler/diagnostics/messages/index.js";

// Diagnostics that stay true (issue 21): a `help:` line with the fix wherever there is one,
// advice that applies to the case at hand, the real names in call-chain notes, and every
// independent error of a run. Each case is a whole program and the whole formatted output.
// Sources and expected texts start with a newline for readability; it is dropped before use.

type Files = string | Record<string, string>;

interface Case {
  name: string;
  /** main.ts, or several files by name (main.ts is the entry). */
  files: Files;
  expected: string;
}

function trimLeadingNewline(text: string): string {
  return text.startsWith("\n") ? text.slice(1) : text;
}

function compile(files: Files) {
  const named = typeof files === "string" ? { "main.ts": files } : files;
  const entries = Object.entries(named).map(([name, text]) => [name, trimLeadingNewline(text)]);
  return compileFiles(Object.fromEntries(entries));
}

const helpCases: Case[] = [
  {
    name: "NABLA101 '.concat': spread the arrays instead",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const xs = [x, 1].concat([2]);
  return xs[0]!;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:14: error NABLA101: the array method '.concat' is not supported in differentiable code (push, fill, slice, flat, indexOf, includes, map, filter, forEach, reduce, reduceRight, some, every, find and findIndex are)
  2 | function f(x: number): number {
> 3 |   const xs = [x, 1].concat([2]);
    |              ^^^^^^^^^^^^^
help: spread the arrays into a literal: '[...a, ...b]'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101 '.pop': read the last element and slice the rest",
    files: `
import { gradient } from "nabla";
function f(xs: number[]): number {
  const last = xs.pop()!;
  return last * 2;
}
export const g = gradient(f);
`,
    expected: `
main.ts:3:16: error NABLA101: the array method '.pop' is not supported in differentiable code (push, fill, slice, flat, indexOf, includes, map, filter, forEach, reduce, reduceRight, some, every, find and findIndex are)
  2 | function f(xs: number[]): number {
> 3 |   const last = xs.pop()!;
    |                ^^^^^^
help: read the last element ('xs[xs.length - 1]') and keep the rest with 'xs.slice(0, -1)'
main.ts:6:18: note: when differentiating 'f' for 'gradient'
> 6 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101 'in': test the field the code names",
    files: `
import { derivative } from "nabla";
interface P { x: number; y?: number }
function f(x: number): number {
  const p: P = { x };
  return "y" in p ? x : 2 * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:5:10: error NABLA101: the 'in' operator is not supported in differentiable code
  4 |   const p: P = { x };
> 5 |   return "y" in p ? x : 2 * x;
    |          ^^^^^^^^
help: test the field itself ('p.y !== undefined')
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA102 a misspelled Math function: the one probably meant",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  // @ts-expect-error: a slip nabla should point out too
  return Math.sqr(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:10: error NABLA102: 'Math.sqr' is not a Math function
  3 |   // @ts-expect-error: a slip nabla should point out too
> 4 |   return Math.sqr(x);
    |          ^^^^^^^^
help: did you mean 'Math.sqrt'?
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101 a Math function read as a value: call it",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const g = Math.sin;
  return g(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:13: error NABLA101: 'Math.sin' is not a Math constant; only calls of Math functions are supported
  2 | function f(x: number): number {
> 3 |   const g = Math.sin;
    |             ^^^^^^^^
help: call it ('Math.sin(x)'), or pass a function that does ('(x: number) => Math.sin(x)')
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA110 assigning a constant: declare it with 'let'",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const y = x;
  // @ts-expect-error: assigning a constant
  y = 2 * x;
  return y;
}
export const df = derivative(f);
`,
    expected: `
main.ts:5:3: error NABLA110: cannot assign to 'y' because it is a constant
  4 |   // @ts-expect-error: assigning a constant
> 5 |   y = 2 * x;
    |   ^
help: declare 'y' with 'let' to change it
main.ts:8:19: note: when differentiating 'f' for 'derivative'
> 8 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA114 a missing module: check the path",
    files: `
import { derivative } from "nabla";
// @ts-expect-error: no such file
import { g } from "./model.js";
export const df = derivative((x: number) => g(x));
`,
    expected: `
main.ts:3:19: error NABLA114: cannot find the module './model.js'
  2 | // @ts-expect-error: no such file
> 3 | import { g } from "./model.js";
    |                   ^^^^^^^^^^^^
help: check the path: a relative import names a file from this file's folder, as in './model.js' or './model.ts'

1 error`,
  },
  {
    name: "NABLA115 a rule without 'reverse' used by gradient: add one",
    files: {
      "main.ts": `
import { gradient, registerDerivative } from "nabla";
function cube(x: number): number {
  return x * x * x;
}
registerDerivative(cube, {
  forward: (x, dx) => ({ value: cube(x), tangent: 3 * x * x * dx }),
});
export const g = gradient((x: number) => cube(x));
`,
    },
    expected: `
main.ts:5:1: error NABLA115: 'cube' has a registered derivative without a 'reverse' rule, which reverse mode (gradient, pullback) needs
  4 | }
> 5 | registerDerivative(cube, {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^
help: add a 'reverse' rule to the registration of 'cube'
main.ts:8:42: note: when differentiating this call to 'cube'
> 8 | export const g = gradient((x: number) => cube(x));
    |                                          ^^^^^^^
main.ts:8:18: note: when differentiating the function given to 'gradient'
> 8 | export const g = gradient((x: number) => cube(x));
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101 'for…in': read the fields by name",
    files: `
import { derivative } from "nabla";
interface P { x: number; y: number }
function f(x: number): number {
  const p: P = { x, y: 2 * x };
  let s = 0;
  for (const k in p) s += 1;
  return s * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:6:3: error NABLA101: a 'for…in' loop is not supported in differentiable code
  5 |   let s = 0;
> 6 |   for (const k in p) s += 1;
    |   ^^^^^^^^^^^^^^^^^^^^^^^^^^
help: read the fields by name, or keep the values in an array and loop with 'for…of'
main.ts:9:19: note: when differentiating 'f' for 'derivative'
> 9 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA102 a package function: register its derivative",
    files: {
      "main.ts": `
import { derivative } from "nabla";
import { erf } from "special-functions";
export const d = derivative((x: number) => erf(x));
`,
    },
    expected: `
main.ts:3:44: error NABLA102: cannot differentiate 'erf': it comes from package 'special-functions', whose source nabla cannot see, and no derivative is registered for it
  2 | import { erf } from "special-functions";
> 3 | export const d = derivative((x: number) => erf(x));
    |                                            ^^^
help: register its derivative with 'registerDerivative(erf, { forward, reverse })'; nabla reads its parameter types from the package's .d.ts (docs/guide.md#custom-derivatives)
main.ts:3:18: note: when differentiating the function given to 'derivative'
> 3 | export const d = derivative((x: number) => erf(x));
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104 the fix is a help line, not a note",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return Math.round(x) * x + (x | 0);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:31: error NABLA104: '|' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function f(x: number): number {
> 3 |   return Math.round(x) * x + (x | 0);
    |                               ^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
];

for (const c of helpCases) {
  test(`help: ${c.name}`, () => {
    assert.equal(diagnosticsText(compile(c.files)), trimLeadingNewline(c.expected));
  });
}

/** Messages of NABLA101 and NABLA102 whose text already says what to write instead. */
const FIX_IN_MESSAGE = new Set([
  "unsupportedSyntax.decoratorsAreNotSupportedIn",
  "unsupportedSyntax.arrayFromIsSupportedAs",
  "unsupportedSyntax.continueInsideSwitch",
  "unsupportedSyntax.differentiableCodeCanThrowNew",
  "unsupportedSyntax.forOfLoopMustDeclare",
  "unsupportedSyntax.functionUsedAsValueHere",
  "unsupportedSyntax.isGivenFunctionThatWraps",
  "unsupportedSyntax.localFunctionCallsItselfRecursive",
  "unsupportedSyntax.localFunctionCannotPassItself",
  "unsupportedSyntax.returnsBeforeItsLastStatement",
  "unsupportedSyntax.staticMethodsAreNotSupported",
  "unsupportedSyntax.varDeclarationsAreNotSupported",
  "unsupportedSyntax.withDerivativeNeedsFunctionFunctionDeclared",
  // Points at the diagnostic that says what is wrong.
  "unsupportedSyntax.cannotDifferentiateSeeDiagnosticAbove",
]);

test("every message of NABLA101 and NABLA102 says the fix, in its text or on a help line", () => {
  const missing: string[] = [];
  for (const code of ["unsupportedSyntax", "unknownCallee"] as const) {
    const messages = catalog[code] as Record<string, (...args: string[]) => { help?: string }>;
    for (const [name, make] of Object.entries(messages)) {
      // `in` is the operator whose help needs no more than its name; others vary by case.
      const made =
        name === "operatorIsNotSupportedIn" ? make("in") : make(...Array(make.length).fill("x"));
      if (!made.help && !FIX_IN_MESSAGE.has(`${code}.${name}`)) missing.push(`${code}.${name}`);
    }
  }
  assert.deepEqual(missing, []);
});

test("the JSON report carries the help line", () => {
  const result = compile(`
import { derivative } from "nabla";
function f(x: number): number {
  return [x, 2].concat([1])[0]!;
}
export const df = derivative(f);
`);
  const report = JSON.parse(jsonReport(result.diagnostics, result.sourceText, [])) as {
    diagnostics: { code: string; help?: string }[];
  };
  assert.deepEqual(
    report.diagnostics.map((d) => [d.code, d.help]),
    [["NABLA101", "spread the arrays into a literal: '[...a, ...b]'"]],
  );
});
