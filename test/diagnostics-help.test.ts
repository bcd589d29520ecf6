import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { compileFiles, diagnosticsText, writeProgram } from "./support/harness.js";
import { BIN, nablaEnv } from "./support/cli.js";
import { jsonReport } from "../src/cli/json-report.js";
import { formatDiagnostics, useColor } from "../src/compiler/diagnostics/report.js";
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

/** One test per case: the program's diagnostics are exactly the expected text. */
function testCases(prefix: string, cases: Case[]): void {
  for (const c of cases) {
    test(`${prefix}: ${c.name}`, () => {
      assert.equal(diagnosticsText(compile(c.files)), trimLeadingNewline(c.expected));
    });
  }
}

const helpCases: Case[] = [
  {
    name: "NABLA101 '.subarray': read a copy with slice",
    files: `
import { gradient } from "nabla";
function g(w: Float64Array): number {
  const head = w.subarray(0, 2);
  return head[0] * head[1];
}
export const d = gradient(g);
`,
    expected: `
main.ts:3:16: error NABLA101: the array method '.subarray' is not supported in differentiable code (push, pop, shift, unshift, splice, fill, slice, flat, flatMap, concat, reverse, toReversed, sort, toSorted, at, join, indexOf, lastIndexOf, includes, map, filter, forEach, reduce, reduceRight, some, every, find, findIndex, findLast and findLastIndex are, a typed array's set, and entries, keys and values in a for…of)
  2 | function g(w: Float64Array): number {
> 3 |   const head = w.subarray(0, 2);
    |                ^^^^^^^^^^
help: read a copy with '.slice(start, end)'; a view that writes into the array it shares memory with is not supported
main.ts:6:18: note: when differentiating 'g' for 'gradient'
> 6 | export const d = gradient(g);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA102 structuredClone: copy the levels that change with spreads and maps",
    files: `
import { derivative } from "nabla";
type P = { x: number; v: number[] };
function f(t: number): number {
  const objs: P[] = [{ x: t, v: [t] }];
  const deep = structuredClone(objs);
  deep[0].v[0] = 2;
  return objs[0].v[0] * deep[0].x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:5:16: error NABLA102: cannot differentiate a call to 'structuredClone' of a value holding arrays or objects: a deep copy keeps which parts the copy shares with itself, which nabla's derivatives cannot follow (it works for an array or object of numbers, and for an array of such objects or rows)
  4 |   const objs: P[] = [{ x: t, v: [t] }];
> 5 |   const deep = structuredClone(objs);
    |                ^^^^^^^^^^^^^^^
help: copy the levels you change with spreads and maps ('objs.map((o) => ({ ...o, v: [...o.v] }))', 'rows.map((r) => [...r])')
main.ts:9:19: note: when differentiating 'f' for 'derivative'
> 9 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101 '.with': copy the array and assign the element",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const both = [x, 1].with(1, x);
  return both[1]!;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:16: error NABLA101: the array method '.with' is not supported in differentiable code (push, pop, shift, unshift, splice, fill, slice, flat, flatMap, concat, reverse, toReversed, sort, toSorted, at, join, indexOf, lastIndexOf, includes, map, filter, forEach, reduce, reduceRight, some, every, find, findIndex, findLast and findLastIndex are, a typed array's set, and entries, keys and values in a for…of)
  2 | function f(x: number): number {
> 3 |   const both = [x, 1].with(1, x);
    |                ^^^^^^^^^^^
help: copy the array ('const ys = xs.slice()') and assign the element ('ys[i] = v')
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101 '.toSpliced': build a new array from slices",
    files: `
import { gradient } from "nabla";
function f(xs: number[]): number {
  const rest = xs.toSpliced(0, 1);
  return rest[0] * 2;
}
export const g = gradient(f);
`,
    expected: `
main.ts:3:16: error NABLA101: the array method '.toSpliced' is not supported in differentiable code (push, pop, shift, unshift, splice, fill, slice, flat, flatMap, concat, reverse, toReversed, sort, toSorted, at, join, indexOf, lastIndexOf, includes, map, filter, forEach, reduce, reduceRight, some, every, find, findIndex, findLast and findLastIndex are, a typed array's set, and entries, keys and values in a for…of)
  2 | function f(xs: number[]): number {
> 3 |   const rest = xs.toSpliced(0, 1);
    |                ^^^^^^^^^^^^
help: build a new array from slices: '[...xs.slice(0, i), ...xs.slice(i + 1)]'
main.ts:6:18: note: when differentiating 'f' for 'gradient'
> 6 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101 'in' on a class instance: test the field the code names",
    files: `
import { derivative } from "nabla";
class P {
  y?: number;
  constructor(public x: number) {}
}
function f(x: number): number {
  const p = new P(x);
  return "y" in p ? x : 2 * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:8:10: error NABLA101: the 'in' operator on an instance of 'P' is not supported in differentiable code (on plain objects it is)
  7 |   const p = new P(x);
> 8 |   return "y" in p ? x : 2 * x;
    |          ^^^^^^^^
help: test the field itself ('p.y !== undefined')
main.ts:10:19: note: when differentiating 'f' for 'derivative'
> 10 | export const df = derivative(f);
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
  let g = Math.sin;
  return g(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:11: error NABLA101: 'Math.sin' is not a Math constant; only calls of Math functions are supported
  2 | function f(x: number): number {
> 3 |   let g = Math.sin;
    |           ^^^^^^^^
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
type P = [number, number];
function f(x: number): number {
  const p: P = [x, 2 * x];
  let s = 0;
  for (const k in p) s += 1;
  return s * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:6:19: error NABLA101: 'for…in' in differentiable code walks the keys of an object or a record ('Record<string, …>'), not of a [number, number]
  5 |   let s = 0;
> 6 |   for (const k in p) s += 1;
    |                   ^
help: loop with 'for…of' over the elements, or over 'xs.keys()' for the indices ('m.keys()' for a map)
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
  return Math.round(x) * x + Number(x.toFixed(2));
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:37: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function f(x: number): number {
> 3 |   return Math.round(x) * x + Number(x.toFixed(2));
    |                                     ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101 a Math function of several arguments as a callback: pass an arrow that calls it",
    files: `
import { gradient } from "nabla";
function total(xs: number[]): number {
  return xs.reduce(Math.max, 0);
}
export const g = gradient(total);
`,
    expected: `
main.ts:3:20: error NABLA101: 'Math.max' as the callback of '.reduce' is called with (accumulator, element, index, array), and it reads all of them
  2 | function total(xs: number[]): number {
> 3 |   return xs.reduce(Math.max, 0);
    |                    ^^^^^^^^
help: pass an arrow that calls it as you mean, such as '(a, b) => Math.max(a, b)'
main.ts:5:18: note: when differentiating 'total' for 'gradient'
> 5 | export const g = gradient(total);
    |                  ^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA105 a static property written: keep the state outside",
    files: `
import { derivative } from "nabla";
class Units {
  static scale = 2;
}
function f(x: number): number {
  Units.scale += 1;
  return Units.scale * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:6:3: error NABLA105: differentiable code cannot change the static property 'Units.scale', which is module-level state
  5 | function f(x: number): number {
> 6 |   Units.scale += 1;
    |   ^^^^^^^^^^^
help: differentiable code reads the static properties of 'Units' but does not write them: keep changing state (a counter, a cache) outside the differentiated code, or in a parameter and return it
main.ts:9:19: note: when differentiating 'f' for 'derivative'
> 9 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106 an array of a union of classes whose fields of one name differ in type: a shared base or interface instead",
    files: `
import { gradient } from "nabla";
class Disk { constructor(public size: number) {} area(): number { return 3 * this.size * this.size; } }
class Box { constructor(public size: number[]) {} area(): number { return this.size[0] * this.size[1]; } }
function loss(x: number): number {
  const shapes: Array<Disk | Box> = [new Disk(x), new Box([x, 2])];
  return shapes.reduce((t, s) => t + s.area(), 0);
}
export const g = gradient(loss);
`,
    expected: `
main.ts:5:15: error NABLA106: 'shapes' has type 'Array<Disk | Box>', which differentiable code does not support (numbers, booleans, arrays, typed arrays, object types, records and maps are supported)
  4 | function loss(x: number): number {
> 5 |   const shapes: Array<Disk | Box> = [new Disk(x), new Box([x, 2])];
    |               ^^^^^^^^^^^^^^^^^^^
help: a union of classes can be used when each of its members is a class or an interface classes implement, and a field of one name has one type in all of them; else give them a base class or an interface they share, and write that ('Shape[]' for 'Array<Disk | Box>')
main.ts:8:18: note: when differentiating 'loss' for 'gradient'
> 8 | export const g = gradient(loss);
    |                  ^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106 a value that may be a number or a string: tell the kinds apart by a field",
    files: `
import { gradient } from "nabla";
function f(x: number): number {
  let u: number | string = x;
  if (x > 100) u = "big";
  return typeof u === "number" ? u * 3 : 0;
}
export const g = gradient(f);
`,
    expected: `
main.ts:3:8: error NABLA106: 'u' has type 'number | string', which differentiable code does not support (numbers, booleans, arrays, typed arrays, object types, records and maps are supported)
  2 | function f(x: number): number {
> 3 |   let u: number | string = x;
    |        ^^^^^^^^^^^^^^^^^
help: a value that may be a number or a string has no one type nabla can differentiate: tell the kinds apart by a field ('{ kind: "number"; value: number } | { kind: "op"; op: string }')
main.ts:7:18: note: when differentiating 'f' for 'gradient'
> 7 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106 a parameter of numbers and strings (tokens of a calculator): tell the kinds apart by a field",
    files: `
import { gradient } from "nabla";
function evaluate(tokens: (number | string)[]): number {
  let s = 0;
  for (const t of tokens) if (typeof t === "number") s += t;
  return s;
}
function f(x: number): number {
  return evaluate([x, "+", 2]);
}
export const g = gradient(f);
`,
    expected: `
main.ts:2:19: error NABLA106: parameter 'tokens' of 'evaluate' has type '(number | string)[]', which nabla cannot differentiate (numbers, arrays, typed arrays, object types, records and maps can be)
  1 | import { gradient } from "nabla";
> 2 | function evaluate(tokens: (number | string)[]): number {
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: a value that may be a number or a string has no one type nabla can differentiate: tell the kinds apart by a field ('{ kind: "number"; value: number } | { kind: "op"; op: string }')
main.ts:8:10: note: when differentiating this call to 'evaluate'
> 8 |   return evaluate([x, "+", 2]);
    |          ^^^^^^^^^^^^^^^^^^^^^
main.ts:10:18: note: when differentiating 'f' for 'gradient'
> 10 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101 'this' in a static method: name the class",
    files: `
import { gradient } from "nabla";
class Utils {
  static sq(x: number): number {
    return x * x;
  }
  static loss(x: number, y: number): number {
    return this.sq(x) + y;
  }
}
export const g = gradient(Utils.loss);
`,
    expected: `
main.ts:7:12: error NABLA101: 'this' in a static method is not supported
  6 |   static loss(x: number, y: number): number {
> 7 |     return this.sq(x) + y;
    |            ^^^^
help: name the class instead: 'Utils.' rather than 'this.'
main.ts:10:18: note: when differentiating 'Utils.loss' for 'gradient'
> 10 | export const g = gradient(Utils.loss);
     |                  ^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108 a method read off an object: wrap the call in an arrow function",
    files: `
import { derivative } from "nabla";
class Act {
  constructor(readonly gain: number) {}
  softplus(x: number): number {
    return this.gain * Math.log1p(Math.exp(x));
  }
}
const act = new Act(2);
export const df = derivative(act.softplus);
`,
    expected: `
main.ts:9:30: error NABLA108: 'derivative' cannot tell which function 'act.softplus' is: it takes a function declared in this program by name, a static method ('Class.method') or an arrow function written here
  8 | const act = new Act(2);
> 9 | export const df = derivative(act.softplus);
    |                              ^^^^^^^^^^^^
help: wrap the call in an arrow function written here, such as '(x) => act.softplus(x)'

1 error`,
  },
  {
    name: "NABLA105 module-level data given to a helper nabla cannot read: why it cannot",
    files: `
import { gradient } from "nabla";
const config = { mode: "fast" };
function isFast(c: { mode: string }): boolean {
  try {
    return c.mode === "fast";
  } finally {
    console.log("checked");
  }
}
function f(x: number): number {
  return isFast(config) ? x * x : x;
}
export const g = gradient(f);
`,
    expected: `
main.ts:11:10: error NABLA105: differentiable code cannot change the module-level 'config', and nabla cannot read 'isFast' to tell whether this call does; pass it in as a parameter instead
  10 | function f(x: number): number {
> 11 |   return isFast(config) ? x * x : x;
     |          ^^^^^^^^^^^^^^
main.ts:4:3: note: nabla cannot read 'isFast': a 'try' statement is not supported in differentiable code
> 4 |   try {
    |   ^^^^^
main.ts:13:18: note: when differentiating 'f' for 'gradient'
> 13 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA111 a name a module-level destructuring declares: declare it on its own",
    files: `
import { derivative } from "nabla";
const { lo, hi } = { lo: 1, hi: 2 };
function f(x: number): number {
  return lo * x + hi;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:10: error NABLA111: cannot find 'lo' in differentiable code
  3 | function f(x: number): number {
> 4 |   return lo * x + hi;
    |          ^^
help: declare 'lo' on its own at the top level ('const lo = …'): differentiable code does not read names a module-level destructuring declares
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
];

testCases("help", helpCases);

// Advice that applies: the annotation suggested follows from how the code uses the value, and
// none is asked for where TypeScript forbids one or one is already there.
const adviceCases: Case[] = [
  {
    name: "NABLA103 a module variable read by index: a number[] annotation",
    files: `
import { derivative } from "nabla";
const weights = JSON.parse(process.env.WEIGHTS ?? "[1, 2]");
function f(x: number): number {
  return weights[0] * x + weights[1];
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:10: error NABLA103: cannot determine the type of module variable 'weights'
  3 | function f(x: number): number {
> 4 |   return weights[0] * x + weights[1];
    |          ^^^^^^^
help: annotate it: 'const weights: number[] = …'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103 a module variable read by field: its interface, which only the user can name",
    files: `
import { derivative } from "nabla";
const model = JSON.parse(process.env.MODEL ?? '{ "w": 2 }');
function f(x: number): number {
  return model.w * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:10: error NABLA103: cannot determine the type of module variable 'model'
  3 | function f(x: number): number {
> 4 |   return model.w * x;
    |          ^^^^^
help: annotate it with the interface, type alias or class of the object it holds
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103 an annotation nabla cannot read is not asked for again",
    files: `
import { derivative } from "nabla";
const scale: number | string = JSON.parse(process.env.SCALE ?? "2");
function f(x: number): number {
  return (scale as number) * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:11: error NABLA103: cannot determine the type of module variable 'scale'
  3 | function f(x: number): number {
> 4 |   return (scale as number) * x;
    |           ^^^^^
help: give it a type nabla reads (numbers, booleans, arrays, typed arrays, interfaces, type aliases, classes) instead of 'number | string'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103 a for…of variable: its array is annotated, not the variable",
    files: `
import { derivative } from "nabla";
export function total(rows: any, x: number): number {
  let s = 0;
  for (const r of rows) {
    const slope = derivative((t: number) => t * t * r);
    s += slope(x);
  }
  return s;
}
`,
    expected: `
main.ts:4:14: error NABLA103: cannot determine the type of 'r', which this function reads from the enclosing function
  3 |   let s = 0;
> 4 |   for (const r of rows) {
    |              ^
help: TypeScript does not allow annotating a 'for…of' variable: give 'rows' a type where it is declared (': number[]')
main.ts:5:19: note: when differentiating the function given to 'derivative'
> 5 |     const slope = derivative((t: number) => t * t * r);
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103 a parameter read by index: a number[] annotation",
    files: `
import { derivative } from "nabla";
// @ts-expect-error: an untyped parameter
function polynomial(coefficients, x: number): number {
  return coefficients[0] + coefficients[1] * x;
}
export const df = derivative((x: number) => polynomial([1, 2], x));
`,
    expected: `
main.ts:3:21: error NABLA103: cannot determine the type of parameter 'coefficients' of 'polynomial'
  2 | // @ts-expect-error: an untyped parameter
> 3 | function polynomial(coefficients, x: number): number {
    |                     ^^^^^^^^^^^^
help: annotate it: 'coefficients: number[]'
main.ts:6:45: note: when differentiating this call to 'polynomial'
> 6 | export const df = derivative((x: number) => polynomial([1, 2], x));
    |                                             ^^^^^^^^^^^^^^^^^^^^^
main.ts:6:19: note: when differentiating the function given to 'derivative'
> 6 | export const df = derivative((x: number) => polynomial([1, 2], x));
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103 a parameter only passed on: no guess, its type",
    files: `
import { derivative } from "nabla";
function square(y: number): number {
  return y * y;
}
// @ts-expect-error: an untyped parameter
function twice(x: number, k): number {
  return square(k) + x;
}
export const df = derivative((x: number) => twice(x, 2));
`,
    expected: `
main.ts:6:27: error NABLA103: cannot determine the type of parameter 'k' of 'twice'
  5 | // @ts-expect-error: an untyped parameter
> 6 | function twice(x: number, k): number {
    |                           ^
help: annotate it with its type (such as 'k: number' or 'k: number[]')
main.ts:9:45: note: when differentiating this call to 'twice'
> 9 | export const df = derivative((x: number) => twice(x, 2));
    |                                             ^^^^^^^^^^^
main.ts:9:19: note: when differentiating the function given to 'derivative'
> 9 | export const df = derivative((x: number) => twice(x, 2));
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
];

testCases("advice", adviceCases);

// Call-chain notes name the function called, also where the call is one nabla generated (the
// JVP of a callee, inside a derivative differentiated again).
const noteCases: Case[] = [
  {
    name: "under derivative(derivative(…)) the note names the function called, not 'it'",
    files: `
import { derivative } from "nabla";
function g(x: number): number {
  return Number(x.toFixed(2));
}
export const dd = derivative(derivative((x: number) => g(x) * x));
`,
    expected: `
main.ts:3:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function g(x: number): number {
> 3 |   return Number(x.toFixed(2));
    |                 ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:56: note: when differentiating this call to 'g'
> 5 | export const dd = derivative(derivative((x: number) => g(x) * x));
    |                                                        ^^^^
main.ts:5:30: note: when differentiating this call to 'derivative'
> 5 | export const dd = derivative(derivative((x: number) => g(x) * x));
    |                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "a second derivative of a named function: the note names its callee",
    files: `
import { derivative } from "nabla";
function step(x: number): number {
  return Math.floor(x) + x * Number(x.toFixed(1));
}
function energy(x: number): number {
  return step(x) * x;
}
export const curvature = derivative(derivative(energy));
`,
    expected: `
main.ts:3:37: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function step(x: number): number {
> 3 |   return Math.floor(x) + x * Number(x.toFixed(1));
    |                                     ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:6:10: note: when differentiating this call to 'step'
> 6 |   return step(x) * x;
    |          ^^^^^^^
main.ts:8:37: note: when differentiating this call to 'derivative'
> 8 | export const curvature = derivative(derivative(energy));
    |                                     ^^^^^^^^^^^^^^^^^^

1 error`,
  },
];

testCases("notes", noteCases);

test("notes: a call of a function with no name (a lambda) is pointed at, not named", () => {
  assert.equal(
    catalog.notes.whenDifferentiatingCall(undefined).message,
    "when differentiating this call",
  );
  assert.equal(
    catalog.notes.whenDifferentiatingCall("g").message,
    "when differentiating this call to 'g'",
  );
});

// Every independent error in one run: when a function cannot be differentiated, the callees
// its derivative would flow into are differentiated anyway, for their own errors; all are
// reported in source order, each once, with the count. A helper the derivative does not flow
// into (`describe(2)`) is not: its code is not differentiated, whatever it holds.
const independentCases: Case[] = [
  {
    name: "a write to module data in the function asked for does not hide its callees' errors, which come first in the source",
    files: `
import { derivative } from "nabla";
import { erf } from "special-functions";

let counter = 0;

function a(x: number): number {
  return erf(x);
}

function b(x: number): number {
  const m = new Map();
  return x;
}

function describe(x: number): string {
  return [x].join(",");
}

function root(x: number): number {
  counter += 1;
  const label = describe(2);
  const y = 2 * x;
  return a(y) + b(x) + a(3);
}

export const dr = derivative(root);
`,
    expected: `
main.ts:7:10: error NABLA102: cannot differentiate 'erf': it comes from package 'special-functions', whose source nabla cannot see, and no derivative is registered for it
  6 | function a(x: number): number {
> 7 |   return erf(x);
    |          ^^^
help: register its derivative with 'registerDerivative(erf, { forward, reverse })'; nabla reads its parameter types from the package's .d.ts (docs/guide.md#custom-derivatives)
main.ts:23:10: note: when differentiating this call to 'a'
> 23 |   return a(y) + b(x) + a(3);
     |          ^^^^
main.ts:26:19: note: when differentiating 'root' for 'derivative'
> 26 | export const dr = derivative(root);
     |                   ^^^^^^^^^^^^^^^^

main.ts:11:13: error NABLA101: nabla cannot tell the key and value types of 'new Map()' (maps and sets keyed by strings or numbers are supported)
  10 | function b(x: number): number {
> 11 |   const m = new Map();
     |             ^^^^^^^^^
help: give the types, e.g. 'new Map<string, number>()'
main.ts:23:17: note: when differentiating this call to 'b'
> 23 |   return a(y) + b(x) + a(3);
     |                 ^^^^
main.ts:26:19: note: when differentiating 'root' for 'derivative'
> 26 | export const dr = derivative(root);
     |                   ^^^^^^^^^^^^^^^^

main.ts:20:3: error NABLA105: differentiable code cannot write the module-level variable 'counter'; pass it in and return the new value instead
  19 | function root(x: number): number {
> 20 |   counter += 1;
     |   ^^^^^^^
main.ts:26:19: note: when differentiating 'root' for 'derivative'
> 26 | export const dr = derivative(root);
     |                   ^^^^^^^^^^^^^^^^

3 errors`,
  },
  {
    name: "a callee's write to module data does not hide the errors of the other callees",
    files: `
import { derivative } from "nabla";
import { erf } from "special-functions";

const history: number[] = [];

function smooth(x: number): number {
  return erf(x);
}

function record(x: number): number {
  history.push(x);
  return x;
}

function model(x: number): number {
  const s = [{ v: x }, { v: 1 }].toSorted();
  return s[0]!.v * x;
}

function loss(x: number): number {
  return smooth(x) + record(x) + model(x);
}

export const dloss = derivative(loss);
`,
    expected: `
main.ts:7:10: error NABLA102: cannot differentiate 'erf': it comes from package 'special-functions', whose source nabla cannot see, and no derivative is registered for it
  6 | function smooth(x: number): number {
> 7 |   return erf(x);
    |          ^^^
help: register its derivative with 'registerDerivative(erf, { forward, reverse })'; nabla reads its parameter types from the package's .d.ts (docs/guide.md#custom-derivatives)
main.ts:21:10: note: when differentiating this call to 'smooth'
> 21 |   return smooth(x) + record(x) + model(x);
     |          ^^^^^^^^^
main.ts:24:22: note: when differentiating 'loss' for 'derivative'
> 24 | export const dloss = derivative(loss);
     |                      ^^^^^^^^^^^^^^^^

main.ts:11:3: error NABLA105: differentiable code cannot change the module-level 'history'; pass it in as a parameter instead
  10 | function record(x: number): number {
> 11 |   history.push(x);
     |   ^^^^^^^^^^^^^^^
main.ts:21:22: note: when differentiating this call to 'record'
> 21 |   return smooth(x) + record(x) + model(x);
     |                      ^^^^^^^^^
main.ts:24:22: note: when differentiating 'loss' for 'derivative'
> 24 | export const dloss = derivative(loss);
     |                      ^^^^^^^^^^^^^^^^

main.ts:16:13: error NABLA101: '.toSorted()' without a comparator is supported for arrays of numbers, booleans and strings: JavaScript orders other elements by their text ('[object Object]' for every object)
  15 | function model(x: number): number {
> 16 |   const s = [{ v: x }, { v: 1 }].toSorted();
     |             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: pass the order you mean, such as '.toSorted((a, b) => a.cost - b.cost)'
main.ts:21:34: note: when differentiating this call to 'model'
> 21 |   return smooth(x) + record(x) + model(x);
     |                                  ^^^^^^^^
main.ts:24:22: note: when differentiating 'loss' for 'derivative'
> 24 | export const dloss = derivative(loss);
     |                      ^^^^^^^^^^^^^^^^

3 errors`,
  },
  {
    name: "errors of several functions asked for, across files, in source order, each once",
    files: {
      "main.ts": `
import { derivative, gradient } from "nabla";
import { clamp } from "./lib.js";

function spring(x: number): number {
  return clamp(x) * x;
}

function damper(v: number): number {
  return clamp(v) + parseFloat(String(v));
}

export const ds = derivative(spring);
export const dd = derivative(damper);
export const gs = gradient(spring);
`,
      "lib.ts": `
export function clamp(x: number): number {
  return x > 1 ? 1 : [x].with(0, x)[0]!;
}
`,
    },
    expected: `
main.ts:9:32: error NABLA104: 'String' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  8 | function damper(v: number): number {
> 9 |   return clamp(v) + parseFloat(String(v));
    |                                ^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:13:19: note: when differentiating 'damper' for 'derivative'
> 13 | export const dd = derivative(damper);
     |                   ^^^^^^^^^^^^^^^^^^

lib.ts:2:22: error NABLA101: the array method '.with' is not supported in differentiable code (push, pop, shift, unshift, splice, fill, slice, flat, flatMap, concat, reverse, toReversed, sort, toSorted, at, join, indexOf, lastIndexOf, includes, map, filter, forEach, reduce, reduceRight, some, every, find, findIndex, findLast and findLastIndex are, a typed array's set, and entries, keys and values in a for…of)
  1 | export function clamp(x: number): number {
> 2 |   return x > 1 ? 1 : [x].with(0, x)[0]!;
    |                      ^^^^^^^^
help: copy the array ('const ys = xs.slice()') and assign the element ('ys[i] = v')
main.ts:5:10: note: when differentiating this call to 'clamp'
> 5 |   return clamp(x) * x;
    |          ^^^^^^^^
main.ts:12:19: note: when differentiating 'spring' for 'derivative'
> 12 | export const ds = derivative(spring);
     |                   ^^^^^^^^^^^^^^^^^^

2 errors`,
  },
];

testCases("every error", independentCases);

/** Messages of NABLA101 and NABLA102 whose text already says what to write instead. */
const FIX_IN_MESSAGE = new Set([
  "unsupportedSyntax.decoratorsAreNotSupportedIn",
  "unsupportedSyntax.arrayFromIsSupportedAs",
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
    const messages = catalog[code] as unknown as Record<
      string,
      (...args: string[]) => { help?: string }
    >;
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
  return [x, 2].with(0, x)[0]!;
}
export const df = derivative(f);
`);
  const report = JSON.parse(jsonReport(result.diagnostics, result.sourceText, [])) as {
    diagnostics: { code: string; help?: string }[];
  };
  assert.deepEqual(
    report.diagnostics.map((d) => [d.code, d.help]),
    [["NABLA101", "copy the array ('const ys = xs.slice()') and assign the element ('ys[i] = v')"]],
  );
});

// Code frames of long lines: cut to a window around the position, the cut marked with `…`.

/** A long formula on one line: `x * 1 + x * 2 + … + x * 39`. */
const TERMS = Array.from({ length: 39 }, (_, i) => `x * ${i + 1}`).join(" + ");

const LONG_IN_THE_MIDDLE = `import { derivative } from "nabla";
function f(x: number): number {
  const a = ${TERMS};
  return ${TERMS} + [x].keys()[0]! + ${TERMS};
}
export const df = derivative(f);
`;

test("frames: a long line is cut around the caret, with the long line above cut at the same columns", () => {
  const result = compileFiles({ "main.ts": LONG_IN_THE_MIDDLE });
  assert.equal(
    diagnosticsText(result),
    `main.ts:4:352: error NABLA101: '.keys()' is supported as what a for…of iterates ('for (const [i, v] of xs.entries())')
  3 | …+ x * 34 + x * 35 + x * 36 + x * 37 + x * 38 + x * 39;
> 4 | … * 34 + x * 35 + x * 36 + x * 37 + x * 38 + x * 39 + [x].keys()[0]! + x * 1 + x * 2 + x * 3 + x * 4 + x * 5 + x * 6 + x * 7 + x * 8 + x * 9 + x * 10 + x * 11 + …
    |                                                       ^^^^^^^^^^
help: elsewhere, loop over the indices or use '.map'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  );
});

test("frames: at the end of a long line the window ends there, and a short line above is whole", () => {
  const result = compileFiles({
    "main.ts": `import { derivative } from "nabla";
function f(x: number): number {
  return ${TERMS} + [x].keys()[0]!;
}
export const df = derivative(f);
`,
  });
  assert.equal(
    diagnosticsText(result),
    `main.ts:3:352: error NABLA101: '.keys()' is supported as what a for…of iterates ('for (const [i, v] of xs.entries())')
  2 | function f(x: number): number {
> 3 | … x * 24 + x * 25 + x * 26 + x * 27 + x * 28 + x * 29 + x * 30 + x * 31 + x * 32 + x * 33 + x * 34 + x * 35 + x * 36 + x * 37 + x * 38 + x * 39 + [x].keys()[0]!;
    |                                                                                                                                                   ^^^^^^^^^^
help: elsewhere, loop over the indices or use '.map'
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  );
});

test("frames: a narrower width (a terminal's) cuts narrower, the caret still in view", () => {
  const result = compileFiles({ "main.ts": LONG_IN_THE_MIDDLE });
  assert.equal(
    formatDiagnostics(result.diagnostics, result.sourceText, { cwd: result.dir, width: 60 }),
    `main.ts:4:352: error NABLA101: '.keys()' is supported as what a for…of iterates ('for (const [i, v] of xs.entries())')
  3 | …37 + x * 38 + x * 39;
> 4 | …+ x * 38 + x * 39 + [x].keys()[0]! + x * 1 + x * 2 + x * 3 +…
    |                      ^^^^^^^^^^
help: elsewhere, loop over the indices or use '.map'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  );
});

// Colors: on a terminal only, unless NO_COLOR or FORCE_COLOR say otherwise.

test("colors: a terminal gets them, a pipe or a file never does; NO_COLOR and FORCE_COLOR decide first", () => {
  const cases: [boolean, Record<string, string>, boolean][] = [
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: "1" }, false],
    [true, { NO_COLOR: "" }, true],
    [true, { TERM: "dumb" }, false],
    [false, { FORCE_COLOR: "1" }, true],
    [false, { FORCE_COLOR: "" }, true],
    [true, { FORCE_COLOR: "0" }, false],
    [true, { FORCE_COLOR: "false" }, false],
    [false, { FORCE_COLOR: "1", NO_COLOR: "1" }, true],
  ];
  for (const [terminal, env, expected] of cases)
    assert.equal(useColor(terminal, env), expected, `${terminal} ${JSON.stringify(env)}`);
});

const ESC = "\u001b";

/** The text without ANSI escapes. */
const uncolored = (text: string) => text.replace(new RegExp(`${ESC}\\[\\d+m`, "g"), "");

const BAD_ROUNDING = `
import { derivative } from "nabla";
function f(x: number): number {
  return Number(x.toFixed(2));
}
export const df = derivative(f);
`;

test("colors: labels and the code frame are colored, and the text is the same without the escapes", () => {
  const result = compile(BAD_ROUNDING);
  const colored = formatDiagnostics(result.diagnostics, result.sourceText, {
    cwd: result.dir,
    color: true,
  });
  const plain = diagnosticsText(result);
  assert.ok(!plain.includes(ESC));
  assert.equal(uncolored(colored), plain);
  assert.ok(colored.includes("\u001b[1m\u001b[31merror NABLA104\u001b[39m\u001b[22m"), colored);
  assert.ok(colored.includes("\u001b[1m\u001b[36mhelp\u001b[39m\u001b[22m: use"), colored);
  // The frame is highlighted: the number 2 in its own color.
  assert.ok(colored.includes("\u001b[35m2\u001b[39m"), colored);
});

test("colors: 'nabla check' piped prints none, unless FORCE_COLOR asks for them", () => {
  const dir = writeProgram({ "main.ts": trimLeadingNewline(BAD_ROUNDING) });
  const run = (env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, [BIN, "check", "main.ts"], {
      cwd: dir,
      env: { ...nablaEnv(), ...env },
      encoding: "utf8",
      timeout: 15_000,
    });
  const piped = run({});
  assert.equal(piped.status, 1);
  assert.ok(!piped.stderr.includes(ESC));
  const forced = run({ FORCE_COLOR: "1" });
  assert.equal(forced.status, 1);
  assert.ok(forced.stderr.includes(`${ESC}[31merror NABLA104`));
  assert.equal(uncolored(forced.stderr), piped.stderr);
});

test("every error: a factory called next to an error is not reported as a callee of its own", () => {
  const text = diagnosticsText(
    compile(`
import { gradient } from "nabla";
function makeScaler(k: number, offset = 0) {
  return (v: number) => k * v + offset;
}
export function f(x: number): number {
  const s = makeScaler(x);
  return s(2) + [x].with(0, x)[0]!;
}
export const g = gradient(f);
`),
  );
  assert.match(text, /main\.ts:7:17: error NABLA101: the array method '\.with' is not supported/);
  assert.doesNotMatch(text, /nested arrow function/);
  assert.equal(text.split("\n").at(-1), "1 error");
});

test("every error: independent errors inside one function are all reported, in order", () => {
  const text = diagnosticsText(
    compile(`
import { gradient } from "nabla";
export function f(x: number, w: number[]): number {
  let acc = 0;
  try {
    acc += x;
  } finally { acc += 1; }
  const cache = new WeakMap<object, number>();
  for (const v of w) acc += v * x;
  if (acc > 1) {
    using handle = null;
  }
  return acc + w.with(0, x)[0]!;
}
export const g = gradient(f);
`),
  );
  const errors = [...text.matchAll(/^main\.ts:(\d+):(\d+): error (NABLA\d+)/gm)].map(
    (m) => `${m[1]}:${m[2]} ${m[3]}`,
  );
  assert.deepEqual(errors, ["4:3 NABLA101", "7:17 NABLA101", "10:5 NABLA101", "12:16 NABLA101"]);
  assert.equal(text.split("\n").at(-1), "4 errors");
});

test("every error: what only follows from an earlier error is not reported", () => {
  const text = diagnosticsText(
    compile(`
import { gradient } from "nabla";
export function f(x: number): number {
  const table = new WeakMap<object, number>();
  const scale = table.get({}) ?? 1;
  const y = scale * x;
  const first = [x].with(0, x)[0]!;
  return y * y + first;
}
export const g = gradient(f);
`),
  );
  // 'scale' and 'y' read what the first error left out: no error of theirs is reported.
  const errors = [...text.matchAll(/^main\.ts:(\d+):(\d+): error (NABLA\d+)/gm)].map(
    (m) => `${m[1]}:${m[2]} ${m[3]}`,
  );
  assert.deepEqual(errors, ["3:17 NABLA101", "6:17 NABLA101"]);
  assert.doesNotMatch(text, /cannot find/);
});
