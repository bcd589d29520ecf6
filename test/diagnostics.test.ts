import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";

// The exact text of every kind of diagnostic: message, location, code frame, call-chain notes
// and summary line. Each case is a whole program and the whole formatted output, so a change
// to any message, location or frame shows up here. Sources and expected texts are written with
// a leading newline for readability; it is dropped before use.

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

/** The formatted diagnostics of a program, paths relative to its folder. */
function diagnose(files: Files): string {
  return diagnosticsText(compile(files));
}

/** A line of a JavaScript stack trace: `    at fn (file:line:col)` or `    at file:line:col`. */
const STACK_LINE = /^\s+at .*(:\d+:\d+\)?|node:internal|<anonymous>)$/m;

function assertNoStackTrace(text: string): void {
  assert.doesNotMatch(text, STACK_LINE, `diagnostic contains a stack trace:\n${text}`);
  assert.doesNotMatch(text, /\b(file:\/\/|node:internal|dist\/src\/)/, `internal path:\n${text}`);
}

const cases: Case[] = [
  {
    // It used to compare nothing (a Shape is not typed as a Sq): -1, silently.
    name: "NABLA101: includes of a subclass's instance in an array of its base class",
    files: `
import { derivative } from "nabla";
class Shape { constructor(public side: number) {} }
class Square extends Shape {}
export function f(x: number): number {
  const square = new Square(x);
  const shapes: Shape[] = [new Shape(1), square];
  return shapes.includes(square) ? x * x : x;
}
export const d = derivative(f);
`,
    expected: `
main.ts:7:10: error NABLA101: '.includes' looks for the element that is this very Square ('==='), and differentiable code does not compare arrays and objects by identity
  6 |   const shapes: Shape[] = [new Shape(1), square];
> 7 |   return shapes.includes(square) ? x * x : x;
    |          ^^^^^^^^^^^^^^^^^^^^^^^
help: compare a field instead, e.g. 'findIndex((p) => p.id === wanted.id)', or keep the index where the element is found
main.ts:9:18: note: when differentiating 'f' for 'derivative'
> 9 | export const d = derivative(f);
    |                  ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: two objects of one type compared by identity",
    files: `
import { gradient } from "nabla";
interface P { x: number }
export function pair(a: P, b: P): number {
  return a === b ? 2 * a.x : a.x + b.x;
}
export const g = gradient(pair);
`,
    expected: `
main.ts:4:10: error NABLA109: cannot tell whether two P values are the same one ('==='): differentiable code does not compare arrays and objects by identity
  3 | export function pair(a: P, b: P): number {
> 4 |   return a === b ? 2 * a.x : a.x + b.x;
    |          ^^^^^^^
help: compare a field that tells them apart instead (an id, a name)
main.ts:6:18: note: when differentiating 'pair' for 'gradient'
> 6 | export const g = gradient(pair);
    |                  ^^^^^^^^^^^^^^

1 error`,
  },
  {
    // It used to find nothing, silently: the value and the gradient of a wrong branch.
    name: "NABLA101: indexOf of an object an array holds, by identity",
    files: `
import { gradient } from "nabla";
interface Body { mass: number; x: number }
export function pull(bodies: Body[], sun: Body): number {
  const skip = bodies.indexOf(sun);
  return bodies.reduce((t, b, i) => (i === skip ? t : t + (b.mass * sun.mass) / (b.x - sun.x) ** 2), 0);
}
export const g = gradient(pull);
`,
    expected: `
main.ts:4:16: error NABLA101: '.indexOf' looks for the element that is this very Body ('==='), and differentiable code does not compare arrays and objects by identity
  3 | export function pull(bodies: Body[], sun: Body): number {
> 4 |   const skip = bodies.indexOf(sun);
    |                ^^^^^^^^^^^^^^^^^^^
help: compare a field instead, e.g. 'findIndex((p) => p.id === wanted.id)', or keep the index where the element is found
main.ts:7:18: note: when differentiating 'pull' for 'gradient'
> 7 | export const g = gradient(pull);
    |                  ^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: an arrow-function field some code assigns, called in differentiated code",
    files: `
import { gradient } from "nabla";
class Scaler {
  constructor(public k: number) {}
  apply = (x: number) => x * this.k;
}
export function f(x: number): number {
  const s = new Scaler(x);
  s.apply = (v: number) => v + 1;
  return s.apply(x);
}
export const g = gradient(f);
`,
    expected: `
main.ts:8:13: error NABLA101: a nested arrow function is not supported in differentiable code
  7 |   const s = new Scaler(x);
> 8 |   s.apply = (v: number) => v + 1;
    |             ^^^^^^^^^^^^^^^^^^^^
help: pass the function straight to the function that calls it, or declare it at the top level of the module
main.ts:11:18: note: when differentiating 'f' for 'gradient'
> 11 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

main.ts:9:10: error NABLA101: the arrow-function field 'apply' of 'Scaler' may be assigned other functions (some code of the program assigns a field named 'apply', a field chosen at run time, or uses 'Object.assign' on an existing object), so nabla cannot tell which function it holds
  8 |   s.apply = (v: number) => v + 1;
> 9 |   return s.apply(x);
    |          ^^^^^^^^^^
help: declare 'apply' as a method ('apply(…) { … }'; a subclass can override it), or give the field a function type and assign top-level functions to it ('apply: (x: number) => number = tanh')
main.ts:11:18: note: when differentiating 'f' for 'gradient'
> 11 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

2 errors`,
  },
  {
    name: "NABLA101: an arrow-function field a subclass declares again",
    files: `
import { gradient } from "nabla";
class Unit {
  constructor(public k: number) {}
  apply = (x: number) => x * this.k;
}
class Doubled extends Unit {
  override apply = (x: number) => 2 * x * this.k;
}
export function f(x: number): number {
  const u: Unit = new Unit(x);
  return u.apply(x);
}
export const g = gradient(f);
`,
    expected: `
main.ts:11:10: error NABLA101: 'apply' is an arrow-function field of 'Unit' and declared again by 'Doubled', so which function an instance holds depends on more than its class
  10 |   const u: Unit = new Unit(x);
> 11 |   return u.apply(x);
     |          ^^^^^^^^^^
help: declare 'apply' as a method in every class that has it, so each class's own runs
main.ts:13:18: note: when differentiating 'f' for 'gradient'
> 13 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: 'super' in an arrow-function field of an instance built in differentiated code",
    files: `
import { gradient } from "nabla";
class Unit {
  constructor(public k: number) {}
  scale(x: number) {
    return x * this.k;
  }
}
class Doubled extends Unit {
  twice = (x: number) => 2 * super.scale(x);
}
export function f(x: number): number {
  return new Doubled(x).twice(x);
}
export const g = gradient(f);
`,
    expected: `
main.ts:9:30: error NABLA101: 'super' in the arrow-function field 'twice' of 'Doubled' is not supported when the instance is built in differentiable code
  8 | class Doubled extends Unit {
> 9 |   twice = (x: number) => 2 * super.scale(x);
    |                              ^^^^^
help: make 'twice' a method ('twice(…) { return super.…; }'), or build the instance outside the differentiated function
main.ts:12:10: note: when differentiating this call to 'Doubled'
> 12 |   return new Doubled(x).twice(x);
     |          ^^^^^^^^^^^^^^
main.ts:14:18: note: when differentiating 'f' for 'gradient'
> 14 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: super(…) running the constructor of a class of another module that reads a module-level object of its module",
    files: {
      "main.ts": `
import { gradient } from "nabla";
import { Body } from "./body";
class Rocket extends Body {
  constructor(x: number) {
    super(x);
  }
}
export function f(x: number): number {
  return new Rocket(x).drag * x;
}
export const g = gradient(f);
`,
      "body.ts": `
const DEFAULTS = { drag: 0.1 };
export class Body {
  drag: number;
  constructor(public x: number, drag?: number) {
    this.drag = drag ?? DEFAULTS.drag;
  }
}
`,
    },
    expected: `
body.ts:5:25: error NABLA101: the constructor of 'Body', a class of another module run here by 'super(…)', reading its module's 'DEFAULTS' is not supported in differentiable code yet
  4 |   constructor(public x: number, drag?: number) {
> 5 |     this.drag = drag ?? DEFAULTS.drag;
    |                         ^^^^^^^^
help: import 'DEFAULTS' in the module of the subclass too (export it if it is not), or pass it to the constructor as an argument
main.ts:9:10: note: when differentiating this call to 'Rocket'
> 9 |   return new Rocket(x).drag * x;
    |          ^^^^^^^^^^^^^
main.ts:11:18: note: when differentiating 'f' for 'gradient'
> 11 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: a closure pushed onto an array of functions",
    files: {
      "main.ts": `
import { gradient } from "nabla";
export function f(x: number): number {
  const steps: ((t: number) => number)[] = [];
  steps.push((t) => t * x);
  return steps.length * x;
}
export const g = gradient(f);
`,
    },
    expected: `
main.ts:4:14: error NABLA101: a function added to an array with '.push' is not supported in differentiable code: a list of functions is known where it is written
  3 |   const steps: ((t: number) => number)[] = [];
> 4 |   steps.push((t) => t * x);
    |              ^^^^^^^^^^^^
help: write the functions in the array literal ('const fs = [(t: number) => t * x, (t: number) => t + y]'), or keep the numbers they need in an array and call one function with them
main.ts:7:18: note: when differentiating 'f' for 'gradient'
> 7 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: a class instance where an interface of fields goes, with the literal to write instead",
    files: {
      "main.ts": `
import { gradient } from "nabla";
interface Shaped {
  readonly area: number;
}
class Square implements Shaped {
  constructor(private side: number) {}
  get area() {
    return this.side * this.side;
  }
}
function total(shapes: Shaped[]): number {
  return shapes.reduce((s, sh) => s + sh.area, 0);
}
export function f(x: number): number {
  const sq = new Square(x);
  return total([sq, { area: x }]);
}
export const g = gradient(f);
`,
    },
    expected: `
main.ts:16:17: error NABLA109: expected a Shaped here, got a Square: 'Shaped' declares fields only, so differentiable code holds its values as plain objects, and an instance of a class (its getters, its methods) is not one
  15 |   const sq = new Square(x);
> 16 |   return total([sq, { area: x }]);
     |                 ^^
help: copy what 'Shaped' needs into an object literal ('{ area: sq.area }')
main.ts:18:18: note: when differentiating 'f' for 'gradient'
> 18 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: 'new' of a subclass without a constructor, its base's parameters typed by names its module does not see",
    files: {
      "main.ts": `
import { gradient } from "nabla";
import * as G from "./geo";
class Light extends G.Particle {}
export function e(a: number): number {
  const l = new Light(new G.Vec(a, 1), 2);
  return l.pos.x * l.mass;
}
export const g = gradient(e);
`,
      "geo.ts": `
export class Vec {
  constructor(public x: number, public y: number) {}
}
export class Particle {
  constructor(public pos: Vec, public mass: number) {}
}
`,
    },
    expected: `
main.ts:5:13: error NABLA101: 'new Light', whose inherited constructor takes rest or destructured parameters, or parameters not annotated with types its module sees, is not supported in differentiable code
  4 | export function e(a: number): number {
> 5 |   const l = new Light(new G.Vec(a, 1), 2);
    |             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: give 'Light' a constructor of its own that calls 'super(…)' with plain parameters, or annotate the base constructor's parameters with types imported in its module too
main.ts:8:18: note: when differentiating 'e' for 'gradient'
> 8 | export const g = gradient(e);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: 'new' of a class whose base in another module has arrow-function fields",
    files: {
      "main.ts": `
import { gradient } from "nabla";
import { Unit } from "./unit";
class Scaled extends Unit {
  constructor(public k: number) {
    super();
  }
}
export function f(x: number): number {
  const s = new Scaled(x);
  return s.apply(x) * s.k;
}
export const g = gradient(f);
`,
      "unit.ts": `
export class Unit {
  apply = (x: number) => 2 * x;
}
`,
    },
    expected: `
main.ts:4:14: error NABLA101: 'new Scaled' of a class whose base 'Unit' has arrow-function fields and is declared in another module is not supported in differentiable code
  3 | class Scaled extends Unit {
> 4 |   constructor(public k: number) {
    |              ^^^^^^^^^^^^^^^^^^^^
help: declare 'Unit' in the module of 'Scaled', or make its arrow-function fields methods
main.ts:9:13: note: when differentiating this call to 'Scaled'
> 9 |   const s = new Scaled(x);
    |             ^^^^^^^^^^^^^
main.ts:12:18: note: when differentiating 'f' for 'gradient'
> 12 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: an arrow-function field read as a value",
    files: `
import { gradient } from "nabla";
class Model {
  constructor(readonly k: number) {}
  predict = (t: number): number => this.k * t;
}
export function f(x: number): number {
  const m = new Model(x);
  const entry = [m.predict, 2];
  return entry.length * x;
}
export const g = gradient(f);
`,
    expected: `
main.ts:8:20: error NABLA101: the arrow-function field 'predict' of 'Model' can be called, passed where a function is expected or named by a 'const', but not read as a value here
  7 |   const m = new Model(x);
> 8 |   const entry = [m.predict, 2];
    |                    ^^^^^^^
help: call it ('o.predict(…)'), or pass it to the function that calls it ('xs.map(o.predict)')
main.ts:11:18: note: when differentiating 'f' for 'gradient'
> 11 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA112: an arrow-function field assigned to an object's field",
    files: `
import { gradient } from "nabla";
class Model {
  constructor(readonly k: number) {}
  predict = (t: number): number => this.k * t;
}
interface Step {
  run: (t: number) => number;
}
export function f(x: number): number {
  const m = new Model(x);
  const step: Step = { run: Math.sin };
  step.run = m.predict;
  return step.run(x);
}
export const g = gradient(f);
`,
    expected: `
main.ts:12:14: error NABLA112: the arrow-function field 'predict' can be called or passed to a function that calls it, but not stored as a value in differentiable code
  11 |   const step: Step = { run: Math.sin };
> 12 |   step.run = m.predict;
     |              ^^^^^^^^^
help: store the object instead and call its field ('holder.model.predict(t)'), or declare the function at the top level
main.ts:15:18: note: when differentiating 'f' for 'gradient'
> 15 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: spreading an instance of a class with arrow-function fields",
    files: `
import { gradient } from "nabla";
class Model {
  constructor(readonly k: number) {}
  predict = (t: number): number => this.k * t;
}
export function f(x: number): number {
  const m = new Model(x);
  const copy = { ...m, k: 2 * x };
  return copy.k * copy.predict(x);
}
export const g = gradient(f);
`,
    expected: `
main.ts:8:18: error NABLA101: spreading an instance of 'Model', a class with arrow-function fields, is not supported in differentiable code
  7 |   const m = new Model(x);
> 8 |   const copy = { ...m, k: 2 * x };
    |                  ^^^^
help: copy the fields you need by name ('{ k: o.k }'), or give the class a method that makes the copy
main.ts:11:18: note: when differentiating 'f' for 'gradient'
> 11 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: a generator's values kept in a variable; a generator of another module reading its constant",
    files: {
      "gen.ts": `
const EPS = [0.25, 0.5];
export function* shifted(xs: number[]) {
  for (const x of xs) yield x + EPS[0];
}
`,
      "main.ts": `
import { gradient } from "nabla";
import { shifted } from "./gen";
function* range(n: number) {
  for (let i = 0; i < n; i++) yield i;
}
export function f(x: number): number {
  const steps = range(3);
  let s = 0;
  for (const i of steps) s += x * i;
  return s;
}
export function h(x: number): number {
  let s = 0;
  for (const v of shifted([x, 2 * x])) s += v * v;
  return s;
}
export const df = gradient(f);
export const dh = gradient(h);
`,
    },
    expected: `
main.ts:7:17: error NABLA101: 'range' is a generator; differentiable code can use its values only in a 'for…of' over its call
  6 | export function f(x: number): number {
> 7 |   const steps = range(3);
    |                 ^^^^^^^^
help: loop over the call, 'for (const x of range(…))', pushing the values into an array if you need them together
main.ts:17:19: note: when differentiating 'f' for 'gradient'
> 17 | export const df = gradient(f);
     |                   ^^^^^^^^^^^

gen.ts:3:33: error NABLA101: a generator of another module reading its module's 'EPS' is not supported in differentiable code yet
  2 | export function* shifted(xs: number[]) {
> 3 |   for (const x of xs) yield x + EPS[0];
    |                                 ^^^
help: pass 'EPS' to the generator as an argument, import it where the loop is too, or declare the generator in the loop's module
main.ts:14:19: note: in the generator 'shifted', which this loop iterates
> 14 |   for (const v of shifted([x, 2 * x])) s += v * v;
     |                   ^^^^^^^^^^^^^^^^^^^
main.ts:18:19: note: when differentiating 'h' for 'gradient'
> 18 | export const dh = gradient(h);
     |                   ^^^^^^^^^^^

2 errors`,
  },
  {
    name: "NABLA101: array literal with a hole",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const a = [x, , 1];
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:13: error NABLA101: array holes are not supported
  2 | function f(x: number): number {
> 3 |   const a = [x, , 1];
    |             ^^^^^^^^
help: write every element, e.g. '[a, 0, b]' rather than '[a, , b]'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: async method in an object literal",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const o = { x, async double() { return 2; } };
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:18: error NABLA101: only 'key: value' properties, getters and methods are supported in object literals
  2 | function f(x: number): number {
> 3 |   const o = { x, async double() { return 2; } };
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: write each property as 'key: value', 'get key() { … }' or 'key() { … }'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: tagged template",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  console.log(String.raw\`x = \${x}\`);
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:15: error NABLA101: a tagged template is not supported in differentiable code
  2 | function f(x: number): number {
> 3 |   console.log(String.raw\`x = \${x}\`);
    |               ^^^^^^^^^^^^^^^^^^^^
help: build the string with a plain template literal (\`x = \${x}\`)
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: 'new' of a class other than a typed array or Array",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const m = new Map();
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:13: error NABLA101: nabla cannot tell the key and value types of 'new Map()' (maps and sets keyed by strings or numbers are supported)
  2 | function f(x: number): number {
> 3 |   const m = new Map();
    |             ^^^^^^^^^
help: give the types, e.g. 'new Map<string, number>()'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA112: a local variable holding a function parameter, read by an operator's lambda (was NABLA103 asking for a type such as 'number')",
    files: `
import { hessian } from "nabla";
export function curvature(f: (x: number) => number, x: number): number {
  const g = f;
  return hessian((t: number) => 2 * g(t))(x);
}
`,
    expected: `
main.ts:3:9: error NABLA112: 'g' holds a function, which this function reads from the enclosing function; differentiated code can call such a captured value only when it is a 'const' holding top-level functions (\`const f = c ? g : h\`), or a parameter called by a lambda given to an operator in plain code, whose derivative nabla compiles where the function is passed. Otherwise name the function inside the lambda (\`(p) => run(p, c ? f : g)\`)
  2 | export function curvature(f: (x: number) => number, x: number): number {
> 3 |   const g = f;
    |         ^^^^^
main.ts:4:10: note: when differentiating the function given to 'hessian'
> 4 |   return hessian((t: number) => 2 * g(t))(x);
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA112: an operator's lambda calling two function parameters",
    files: `
import { derivative } from "nabla";
export function both(f: (x: number) => number, g: (x: number) => number, x: number): number {
  return derivative((t: number) => f(t) * g(t))(x);
}
`,
    expected: `
main.ts:3:21: error NABLA112: this function calls 2 function parameters of the enclosing function ('f', 'g'); nabla compiles the derivative of a lambda calling one function parameter where that function is passed, not of one calling several (pass them as one function)
  2 | export function both(f: (x: number) => number, g: (x: number) => number, x: number): number {
> 3 |   return derivative((t: number) => f(t) * g(t))(x);
    |                     ^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: throwing something other than an Error",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  if (x < 0) throw "negative";
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:20: error NABLA101: differentiable code can throw 'new Error(message)' (or RangeError, TypeError) with a string message; throw other values outside it
  2 | function f(x: number): number {
> 3 |   if (x < 0) throw "negative";
    |                    ^^^^^^^^^^
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: try statement",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  try {
    return x;
  } catch {
    return 0;
  }
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:3: error NABLA101: a 'try' statement is not supported in differentiable code
  2 | function f(x: number): number {
> 3 |   try {
    |   ^^^^^
help: check the inputs with 'if' instead of catching an error; or compute it outside the differentiated function and pass the result in as a parameter
main.ts:9:19: note: when differentiating 'f' for 'derivative'
> 9 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: for…in loop over an array",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const o = [x, 2 * x];
  let s = 0;
  for (const k in o) s += x;
  return s;
}
export const df = derivative(f);
`,
    expected: `
main.ts:5:19: error NABLA101: 'for…in' in differentiable code walks the keys of an object or a record ('Record<string, …>'), not of a number[]
  4 |   let s = 0;
> 5 |   for (const k in o) s += x;
    |                   ^
help: loop with 'for…of' over the elements, or over 'xs.keys()' for the indices ('m.keys()' for a map)
main.ts:8:19: note: when differentiating 'f' for 'derivative'
> 8 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: nested function declaration reading its own 'this'",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  function g(this: { k: number }, y: number): number {
    return y * this.k;
  }
  return g.call({ k: 2 }, x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:3: error NABLA101: a nested function declaration reading its own 'this' is not supported in differentiable code
  2 | function f(x: number): number {
> 3 |   function g(this: { k: number }, y: number): number {
    |   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: pass what it reads of 'this' as a parameter, or declare it at the top level of the module
main.ts:8:19: note: when differentiating 'f' for 'derivative'
> 8 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: class declaration",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  class A {}
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:3: error NABLA101: a class declaration is not supported in differentiable code
  2 | function f(x: number): number {
> 3 |   class A {}
    |   ^^^^^^^^^^
help: declare the class at the top level of the module
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108: a function with a rest parameter given to an operator",
    files: `
import { differential } from "nabla";
function f(...xs: number[]): number {
  return 1;
}
export const df = differential(f);
`,
    expected: `
main.ts:5:32: error NABLA108: 'f' has a rest parameter, which a function given to an operator cannot have yet; take an array parameter instead ('xs: number[]'), or call 'f' from the function you differentiate
  4 | }
> 5 | export const df = differential(f);
    |                                ^

1 error`,
  },
  {
    name: "NABLA101: null",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const b = null;
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:13: error NABLA101: 'null' is not supported in differentiable code
  2 | function f(x: number): number {
> 3 |   const b = null;
    |             ^^^^
help: leave the optional field or argument out, or use a number such as 'NaN'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: optional call",
    files: `
import { derivative } from "nabla";
function g(y: number): number {
  return y;
}
function f(x: number): number {
  return g?.(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:6:10: error NABLA101: optional calls are not supported in differentiable code
  5 | function f(x: number): number {
> 6 |   return g?.(x);
    |          ^^^^^^
help: test for the function first: 'if (f !== undefined) f(x)'
main.ts:8:19: note: when differentiating 'f' for 'derivative'
> 8 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104: the length of a number's text",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return x.toFixed(2).length;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:10: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function f(x: number): number {
> 3 |   return x.toFixed(2).length;
    |          ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: computed property name on an object",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const o = { a: x, b: "one" };
  const k = "a";
  return o[k];
}
export const df = derivative(f);
`,
    expected: `
main.ts:5:10: error NABLA101: 'o[k]' with a key chosen at run time needs the fields of '{ a: x, b: "one" }' to be of one type and not optional
  4 |   const k = "a";
> 5 |   return o[k];
    |          ^^^^
help: read the field by name, or make it a 'Record<string, …>'
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: reading a field the type does not have",
    files: `
import { derivative } from "nabla";
interface P {
  x: number;
}
function f(x: number): number {
  const p: P = { x };
  return p.y;
}
export const df = derivative(f);
`,
    expected: `
main.ts:7:12: error NABLA101: type 'P' has no field 'y' that nabla knows of (methods are called, not read)
  6 |   const p: P = { x };
> 7 |   return p.y;
    |            ^
help: declare the field in the type, or call the method ('.y(…)')
main.ts:9:19: note: when differentiating 'f' for 'derivative'
> 9 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: .sort() without a comparator of objects",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const a = [{ v: x }, { v: 1 }];
  a.sort();
  return a[0].v;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:3: error NABLA101: '.sort()' without a comparator is supported for arrays of numbers, booleans and strings: JavaScript orders other elements by their text ('[object Object]' for every object)
  3 |   const a = [{ v: x }, { v: 1 }];
> 4 |   a.sort();
    |   ^^^^^^
help: pass the order you mean, such as '.sort((a, b) => a.cost - b.cost)'
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: '.pop' on a tuple",
    files: `
import { gradient } from "nabla";
function f(x: number): number {
  const t: [number, number] = [x, 1];
  t.pop();
  return t[0];
}
export const g = gradient(f);
`,
    expected: `
main.ts:4:3: error NABLA101: '.pop' needs a plain array, not a [number, number]
  3 |   const t: [number, number] = [x, 1];
> 4 |   t.pop();
    |   ^^^^^^^
help: a tuple's length is part of its type: declare the variable as an array ('number[]') to change its length
main.ts:7:18: note: when differentiating 'f' for 'gradient'
> 7 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: a spread start of '.splice'",
    files: `
import { gradient } from "nabla";
function f(x: number): number {
  const xs = [x, 2];
  const at = [1, 0] as const;
  xs.splice(...at);
  return xs[1];
}
export const g = gradient(f);
`,
    expected: `
main.ts:5:13: error NABLA101: a spread start or count of '.splice' is not supported in differentiable code
  4 |   const at = [1, 0] as const;
> 5 |   xs.splice(...at);
    |             ^^^^^
help: pass the start and the count as numbers ('xs.splice(i, n)'); the items after them may be spread
main.ts:8:18: note: when differentiating 'f' for 'gradient'
> 8 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: '.push' on a Float64Array",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const a = new Float64Array(2);
  a.push(x);
  return a[0];
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:3: error NABLA101: '.push' needs a plain array, not a Float64Array
  3 |   const a = new Float64Array(2);
> 4 |   a.push(x);
    |   ^^^^^^^^^
help: a typed array has a fixed length: create it with its final length ('new Float64Array(n)') and assign 'a[i] = v'
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: label on a statement other than a loop or a block",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  a: if (x > 0) {
    return x;
  }
  return -x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:3: error NABLA101: labels are supported on loops and blocks only
  2 | function f(x: number): number {
> 3 |   a: if (x > 0) {
    |   ^^^^^^^^^^^^^^^
help: remove the label, or put the statement in a block ('a: { … }') to leave it with 'break a'
main.ts:8:19: note: when differentiating 'f' for 'derivative'
> 8 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: break outside a loop",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  break;
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:3: error NABLA101: 'break' or 'continue' outside a loop
  2 | function f(x: number): number {
> 3 |   break;
    |   ^^^^^^
help: use 'return' to leave the function
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA112: a function used as a number",
    files: `
import { derivative } from "nabla";
function g(x: number): number {
  return x;
}
function f(x: number): number {
  const h = g;
  return h;
}
export const df = derivative(f);
`,
    expected: `
main.ts:7:10: error NABLA112: 'h' is a function; differentiable code can call it ('h(…)') or pass it to a function-typed parameter, but not use it as another kind of value
  6 |   const h = g;
> 7 |   return h;
    |          ^
main.ts:9:19: note: when differentiating 'f' for 'derivative'
> 9 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA101: async function",
    files: `
import { derivative } from "nabla";
async function f(x: number): Promise<number> {
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:2:16: error NABLA101: 'f' is async; only plain functions can be differentiated
  1 | import { derivative } from "nabla";
> 2 | async function f(x: number): Promise<number> {
    |                ^
help: await before the call and pass the value in: differentiate a plain function of it
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA116: an operator's result kept in a variable inside differentiable code",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  let d = derivative((y: number) => y * y);
  return d(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:11: error NABLA116: 'derivative' returns a function; inside differentiable code, call it where it is made, as in 'derivative(f)(x)', or hold it in a 'const' and call that
  2 | function f(x: number): number {
> 3 |   let d = derivative((y: number) => y * y);
    |           ^^^^^^^^^^
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA112: calling a parameter",
    files: `
import { differential } from "nabla";
function f(x: number, k: number): number {
  return k(x);
}
export const df = differential(f, { wrt: 0 });
`,
    expected: `
main.ts:3:10: error NABLA112: 'k' is a local number, not a function nabla can see
  2 | function f(x: number, k: number): number {
> 3 |   return k(x);
    |          ^
main.ts:5:19: note: when differentiating 'f' for 'differential'
> 5 | export const df = differential(f, { wrt: 0 });
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA112: a lambda assigning a variable of its enclosing function",
    files: `
import { derivative } from "nabla";
export function outer(a: number): number {
  let k = a;
  return derivative((x: number) => {
    k = x;
    return x * k;
  })(a);
}
`,
    expected: `
main.ts:5:5: error NABLA112: cannot assign to 'k', a variable of the enclosing function, from differentiated code (closures that mutate captured variables are not supported yet)
  4 |   return derivative((x: number) => {
> 5 |     k = x;
    |     ^
main.ts:4:10: note: when differentiating the function given to 'derivative'
> 4 |   return derivative((x: number) => {
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA112: a lambda calling a local function held in a 'let'",
    files: `
import { derivative } from "nabla";
export function outer(a: number): number {
  let h = (y: number) => y * y;
  if (a < 0) h = (y: number) => -y;
  return derivative((x: number) => h(x) + 1)(a);
}
`,
    expected: `
main.ts:3:7: error NABLA112: 'h' is a 'let' variable holding a local function, which may change; a function given to an operator can call the enclosing function's local functions declared with 'const' or 'function'
  2 | export function outer(a: number): number {
> 3 |   let h = (y: number) => y * y;
    |       ^^^^^^^^^^^^^^^^^^^^^^^^
help: declare it with 'const'
main.ts:5:10: note: when differentiating the function given to 'derivative'
> 5 |   return derivative((x: number) => h(x) + 1)(a);
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA112: a local function reads a name the operator's call site declares again",
    files: `
import { derivative } from "nabla";
export function outer(a: number, t: number): number {
  const h = (y: number) => a * y * y;
  {
    const a = 2;
    return derivative((x: number) => h(x) * a)(t);
  }
}
`,
    expected: `
main.ts:5:11: error NABLA112: the local function 'h' reads 'a', which this declaration hides where the operator is called; nabla passes what a local function reads by name there
  4 |   {
> 5 |     const a = 2;
    |           ^^^^^
help: rename one of the two variables named 'a'
main.ts:6:12: note: when differentiating the function given to 'derivative'
> 6 |     return derivative((x: number) => h(x) * a)(t);
    |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA102: global function with no source",
    files: `
import { derivative } from "nabla";
declare function foo(x: number): number;
function f(x: number): number {
  return foo(x) * 2;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:10: error NABLA102: cannot differentiate a call to 'foo': it has no visible source and no registered derivative
  3 | function f(x: number): number {
> 4 |   return foo(x) * 2;
    |          ^^^
help: register its derivative with 'registerDerivative(foo, { forward, reverse })' (docs/guide.md#custom-derivatives)
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA102: function imported from a package",
    files: `
import { derivative } from "nabla";
import { g } from "some-pkg";
function f(x: number): number {
  return g(x) + 1;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:10: error NABLA102: cannot differentiate 'g': it comes from package 'some-pkg', whose source nabla cannot see, and no derivative is registered for it
  3 | function f(x: number): number {
> 4 |   return g(x) + 1;
    |          ^
help: register its derivative with 'registerDerivative(g, { forward, reverse })'; nabla reads its parameter types from the package's .d.ts (docs/guide.md#custom-derivatives)
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA102: namespace import from a package",
    files: `
import { derivative } from "nabla";
import * as lib from "some-pkg";
function f(x: number): number {
  return lib.g(x) + 1;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:10: error NABLA102: cannot differentiate 'lib.g': it comes from package 'some-pkg', whose source nabla cannot see, and no derivative is registered for it
  3 | function f(x: number): number {
> 4 |   return lib.g(x) + 1;
    |          ^^^^^
help: register its derivative with 'registerDerivative(lib.g, { forward, reverse })'; nabla reads its parameter types from the package's .d.ts (docs/guide.md#custom-derivatives)
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA102: name a relative module does not export",
    files: {
      "main.ts": `
import { derivative } from "nabla";
import { g } from "./lib.ts";
function f(x: number): number {
  return g(x);
}
export const df = derivative(f);
`,
      "lib.ts": `
export const h = 1;
`,
    },
    expected: `
main.ts:4:10: error NABLA102: cannot differentiate 'g': './lib.ts' does not export a function 'g' with visible source
  3 | function f(x: number): number {
> 4 |   return g(x);
    |          ^
help: import a function that './lib.ts' declares (check the name it exports), or register a derivative for it (docs/guide.md#custom-derivatives)
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA102: unknown Math function",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return Math.foo(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:10: error NABLA102: 'Math.foo' is not a Math function
  2 | function f(x: number): number {
> 3 |   return Math.foo(x);
    |          ^^^^^^^^
help: docs/derivatives.md lists the Math functions nabla differentiates
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA102: method a class does not have",
    files: `
import { differential } from "nabla";
class Spring {
  k: number;
  constructor(k: number) {
    this.k = k;
  }
  energy(x: number): number {
    return 0.5 * this.k * x * x;
  }
}
function f(s: Spring, x: number): number {
  return s.force(x);
}
export const df = differential(f, { wrt: [1] });
`,
    expected: `
main.ts:12:12: error NABLA102: class 'Spring' has no method 'force' nabla can see (neither it nor a class it extends declares one with a body)
  11 | function f(s: Spring, x: number): number {
> 12 |   return s.force(x);
     |            ^^^^^
help: declare 'force' in class 'Spring' or a class it extends, or call a top-level function that takes the object
main.ts:14:19: note: when differentiating 'f' for 'differential'
> 14 | export const df = differential(f, { wrt: [1] });
     |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103: unannotated parameter of a called function",
    files: `
import { derivative } from "nabla";
function g(y) {
  return y * 2;
}
function f(x: number): number {
  return g(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:2:12: error NABLA103: cannot determine the type of parameter 'y' of 'g'
  1 | import { derivative } from "nabla";
> 2 | function g(y) {
    |            ^
help: annotate it: 'y: number'
main.ts:6:10: note: when differentiating this call to 'g'
> 6 |   return g(x);
    |          ^^^^
main.ts:8:19: note: when differentiating 'f' for 'derivative'
> 8 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103: let without annotation or initializer",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  let y;
  y = x;
  return y;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:7: error NABLA103: cannot determine the type of 'y'; add an annotation or an initializer
  2 | function f(x: number): number {
> 3 |   let y;
    |       ^
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103: module variable of unknown type",
    files: `
import { derivative } from "nabla";
const scale = JSON.parse(process.env.SCALE ?? "1");
function f(x: number): number {
  return scale * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:10: error NABLA103: cannot determine the type of module variable 'scale'
  3 | function f(x: number): number {
> 4 |   return scale * x;
    |          ^^^^^
help: annotate it: 'const scale: number = …'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103: imported value of unknown type",
    files: {
      "main.ts": `
import { derivative } from "nabla";
import { k } from "./constants.ts";
function f(x: number): number {
  return k * x;
}
export const df = derivative(f);
`,
      "constants.ts": `
export const k = JSON.parse("2");
`,
    },
    expected: `
main.ts:4:10: error NABLA103: cannot determine the type of imported value 'k' from './constants.ts'
  3 | function f(x: number): number {
> 4 |   return k * x;
    |          ^
help: annotate its declaration in './constants.ts'
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103: variable of the enclosing function of unknown type",
    files: `
import { derivative } from "nabla";
export function outer(a: number): number {
  const k = JSON.parse("2");
  return derivative((x: number) => x * k)(a);
}
`,
    expected: `
main.ts:3:9: error NABLA103: cannot determine the type of 'k', which this function reads from the enclosing function
  2 | export function outer(a: number): number {
> 3 |   const k = JSON.parse("2");
    |         ^^^^^^^^^^^^^^^^^^^
help: annotate it: 'k: number'
main.ts:4:10: note: when differentiating the function given to 'derivative'
> 4 |   return derivative((x: number) => x * k)(a);
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA103: unannotated parameter of the enclosing function",
    files: `
import { derivative } from "nabla";
export function outer(k) {
  return derivative((x: number) => x * k)(1);
}
`,
    expected: `
main.ts:2:23: error NABLA103: cannot determine the type of 'k', which this function reads from the enclosing function
  1 | import { derivative } from "nabla";
> 2 | export function outer(k) {
    |                       ^
help: annotate it: 'k: number'
main.ts:3:10: note: when differentiating the function given to 'derivative'
> 3 |   return derivative((x: number) => x * k)(1);
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104: parseFloat(String(x)) is reported once, where the derivative is lost",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return parseFloat(String(x)) * 2;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:21: error NABLA104: 'String' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function f(x: number): number {
> 3 |   return parseFloat(String(x)) * 2;
    |                     ^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104: parseInt(x)",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return parseInt(x) * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:10: error NABLA104: 'parseInt' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function f(x: number): number {
> 3 |   return parseInt(x) * x;
    |          ^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104: Number(x.toFixed(2)) in a @differentiable function, reported at '.toFixed'",
    files: `
/** @differentiable */
export function f(x: number): number {
  return Number(x.toFixed(2));
}
`,
    expected: `
main.ts:3:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | export function f(x: number): number {
> 3 |   return Number(x.toFixed(2));
    |                 ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:2:8: note: 'f' is declared @differentiable here
> 2 | export function f(x: number): number {
    |        ^

1 error`,
  },
  {
    // It was "string concatenation is not supported" (NABLA106): the unary '+' is Number(…).
    name: "NABLA104: +x.toPrecision(3), a number's text read back by '+', reported at '.toPrecision'",
    files: `
import { gradient } from "nabla";
function f(x: number): number {
  return x * +x.toPrecision(3);
}
export const g = gradient(f);
`,
    expected: `
main.ts:3:15: error NABLA104: '.toPrecision' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function f(x: number): number {
> 3 |   return x * +x.toPrecision(3);
    |               ^^^^^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:18: note: when differentiating 'f' for 'gradient'
> 5 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104: differentiated value stored into a @noDerivative field",
    files: `
import { derivative } from "nabla";
interface State {
  x: number;
  /** @noDerivative */
  step: number;
}
function f(x: number): number {
  const s: State = { x, step: 1 };
  s.step = 2 * x;
  return s.x * s.step;
}
export const df = derivative(f);
`,
    expected: `
main.ts:9:3: error NABLA104: field 'step' is marked @noDerivative, but a value that depends on the differentiated arguments is stored into it
  8 |   const s: State = { x, step: 1 };
> 9 |   s.step = 2 * x;
    |   ^^^^^^
help: store 'withoutDerivative(…)' if the derivative should be dropped, or remove '@noDerivative'
main.ts:12:19: note: when differentiating 'f' for 'derivative'
> 12 | export const df = derivative(f);
     |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104: differentiated value in an object literal's @noDerivative field",
    files: `
import { gradient } from "nabla";
interface Sample {
  /** @noDerivative */ weight: number;
  value: number;
}
export const g = gradient((s: number) => {
  const p: Sample = { weight: s, value: s };
  return p.weight * p.value;
});
`,
    expected: `
main.ts:7:21: error NABLA104: field 'weight' is marked @noDerivative, but a value that depends on the differentiated arguments is stored into it
  6 | export const g = gradient((s: number) => {
> 7 |   const p: Sample = { weight: s, value: s };
    |                     ^^^^^^^^^^^^^^^^^^^^^^^
help: store 'withoutDerivative(…)' if the derivative should be dropped, or remove '@noDerivative'
main.ts:6:18: note: when differentiating the function given to 'gradient'
> 6 | export const g = gradient((s: number) => {
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104: differentiated value given to a numeric enum field",
    files: `
import { gradient } from "nabla";
enum Side { Buy, Sell }
class Order {
  constructor(readonly side: Side, readonly size: number) {}
}
export const g = gradient((s: number) => {
  const o = new Order(s, s);
  return o.side * o.size;
});
`,
    expected: `
main.ts:4:15: error NABLA104: field 'side' is typed by a numeric enum, a choice that has no derivative, but a value that depends on the differentiated arguments is stored into it
  3 | class Order {
> 4 |   constructor(readonly side: Side, readonly size: number) {}
    |               ^^^^^^^^^^^^^^^^^^^
help: store 'withoutDerivative(…)' if the derivative should be dropped, or type the field as 'number'
main.ts:7:13: note: when differentiating this call to 'Order'
> 7 |   const o = new Order(s, s);
    |             ^^^^^^^^^^^^^^^
main.ts:6:18: note: when differentiating the function given to 'gradient'
> 6 | export const g = gradient((s: number) => {
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA105: ++ on a module variable",
    files: `
import { derivative } from "nabla";
let calls = 0;
function f(x: number): number {
  calls++;
  return x * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:3: error NABLA105: differentiable code cannot write the module-level variable 'calls'; pass it in and return the new value instead
  3 | function f(x: number): number {
> 4 |   calls++;
    |   ^^^^^
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA105: assignment to a module variable",
    files: `
import { derivative } from "nabla";
let last = 0;
function f(x: number): number {
  last = x;
  return x * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:3: error NABLA105: differentiable code cannot write the module-level variable 'last'; pass it in and return the new value instead
  3 | function f(x: number): number {
> 4 |   last = x;
    |   ^^^^
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA105: assignment to an imported variable",
    files: {
      "main.ts": `
import { derivative } from "nabla";
import { k } from "./state.ts";
function f(x: number): number {
  k = x;
  return x;
}
export const df = derivative(f);
`,
      "state.ts": `
export let k = 2;
`,
    },
    expected: `
main.ts:4:3: error NABLA105: differentiable code cannot write the module-level variable 'k'; pass it in and return the new value instead
  3 | function f(x: number): number {
> 4 |   k = x;
    |   ^
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA105: element write to a module-level typed array",
    files: `
import { derivative } from "nabla";
const log = new Float64Array(4);
function f(x: number): number {
  log[0] = x;
  return x * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:3: error NABLA105: differentiable code cannot change the module-level 'log'; pass it in as a parameter instead
  3 | function f(x: number): number {
> 4 |   log[0] = x;
    |   ^^^^^^
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA105: module-level array written by a called function",
    files: `
import { derivative } from "nabla";
const history: number[] = [0, 0];
function record(v: number): number {
  history[0] = v;
  return v;
}
function f(x: number): number {
  return record(x) * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:3: error NABLA105: differentiable code cannot change the module-level 'history'; pass it in as a parameter instead
  3 | function record(v: number): number {
> 4 |   history[0] = v;
    |   ^^^^^^^^^^
main.ts:8:10: note: when differentiating this call to 'record'
> 8 |   return record(x) * x;
    |          ^^^^^^^^^
main.ts:10:19: note: when differentiating 'f' for 'derivative'
> 10 | export const df = derivative(f);
     |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA105: module-level array passed to a function that writes it",
    files: `
import { derivative } from "nabla";
const history: number[] = [0, 0];
function record(a: number[], v: number): void {
  a[0] = v;
}
function f(x: number): number {
  record(history, x);
  return x * x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:7:3: error NABLA105: differentiable code cannot change the module-level 'history' (this call writes to it); pass it in as a parameter instead
  6 | function f(x: number): number {
> 7 |   record(history, x);
    |   ^^^^^^^^^^^^^^^^^^
main.ts:10:19: note: when differentiating 'f' for 'derivative'
> 10 | export const df = derivative(f);
     |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA110: assignment to a const",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const y = x;
  y = 2 * x;
  return y;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:3: error NABLA110: cannot assign to 'y' because it is a constant
  3 |   const y = x;
> 4 |   y = 2 * x;
    |   ^
help: declare 'y' with 'let' to change it
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA110: compound assignment to a const",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const y = x;
  y += 1;
  return y;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:3: error NABLA110: cannot assign to 'y' because it is a constant
  3 |   const y = x;
> 4 |   y += 1;
    |   ^
help: declare 'y' with 'let' to change it
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA107: missing return at the end",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  if (x > 0) {
    return x;
  }
}
export const df = derivative(f);
`,
    expected: `
main.ts:6:1: error NABLA107: 'f' can reach its end without returning a number; add a return statement
  5 |   }
> 6 | }
    | ^
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA113: wrong argument count",
    files: `
import { derivative } from "nabla";
function g(a: number, b: number): number {
  return a * b;
}
function f(x: number): number {
  return g(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:6:10: error NABLA113: 'g' takes 2 arguments, got 1
  5 | function f(x: number): number {
> 6 |   return g(x);
    |          ^^^^
main.ts:8:19: note: when differentiating 'f' for 'derivative'
> 8 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA113: wrong argument count of a Math function",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return Math.sin(x, 2);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:10: error NABLA113: Math.sin takes 1 argument, got 2
  2 | function f(x: number): number {
> 3 |   return Math.sin(x, 2);
    |          ^^^^^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA113: withoutDerivative with two arguments",
    files: `
import { derivative, withoutDerivative } from "nabla";
function f(x: number): number {
  return withoutDerivative(x, 1);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:10: error NABLA113: 'withoutDerivative' takes one argument
  2 | function f(x: number): number {
> 3 |   return withoutDerivative(x, 1);
    |          ^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA113: '.reduce' given three arguments",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return [x, 2 * x].reduce((s, v) => s + v, 0, 1 as never);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:10: error NABLA113: '.reduce' takes 1 to 2 arguments here
  2 | function f(x: number): number {
> 3 |   return [x, 2 * x].reduce((s, v) => s + v, 0, 1 as never);
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108: derivative of a two-argument function",
    files: `
import { derivative } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
export const df = derivative(f);
`,
    expected: `
main.ts:5:30: error NABLA108: 'derivative' differentiates functions of one number argument, but 'f' takes 2; use 'differential' for several arguments
  4 | }
> 5 | export const df = derivative(f);
    |                              ^

1 error`,
  },
  {
    name: "NABLA108: wrt with a non-literal index",
    files: `
import { differential, valueWithDifferential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
const i = 0;
const opts = { wrt: [0] };
export const df = differential(f, { wrt: [i] });
`,
    expected: `
main.ts:7:43: error NABLA108: 'wrt' must list parameter indices as number literals, e.g. '{ wrt: [0, 2] }'
  6 | const opts = { wrt: [0] };
> 7 | export const df = differential(f, { wrt: [i] });
    |                                           ^

1 error`,
  },
  {
    name: "NABLA108: options not written as an object literal",
    files: `
import { differential, valueWithDifferential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
const i = 0;
const opts = { wrt: [0] };
export const df = differential(f, opts);
`,
    expected: `
main.ts:7:35: error NABLA108: options must be an object literal such as '{ wrt: [0, 1] }'
  6 | const opts = { wrt: [0] };
> 7 | export const df = differential(f, opts);
    |                                   ^^^^

1 error`,
  },
  {
    name: "NABLA108: wrt index out of range",
    files: `
import { differential, valueWithDifferential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
const i = 0;
const opts = { wrt: [0] };
export const df = differential(f, { wrt: [0, 2] });
`,
    expected: `
main.ts:7:46: error NABLA108: 'wrt' index 2 is out of range: the function has 2 parameters
  6 | const opts = { wrt: [0] };
> 7 | export const df = differential(f, { wrt: [0, 2] });
    |                                              ^

1 error`,
  },
  {
    name: "NABLA108: duplicate wrt index",
    files: `
import { differential, valueWithDifferential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
const i = 0;
const opts = { wrt: [0] };
export const df = differential(f, { wrt: [1, 1] });
`,
    expected: `
main.ts:7:46: error NABLA108: 'wrt' lists parameter 1 twice
  6 | const opts = { wrt: [0] };
> 7 | export const df = differential(f, { wrt: [1, 1] });
    |                                              ^

1 error`,
  },
  {
    name: "NABLA108: unknown option",
    files: `
import { differential, valueWithDifferential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
const i = 0;
const opts = { wrt: [0] };
export const df = differential(f, { wrt: [0], order: 2 });
`,
    expected: `
main.ts:7:47: error NABLA108: unknown option 'order'; the options of 'differential' are 'wrt', 'backend'
  6 | const opts = { wrt: [0] };
> 7 | export const df = differential(f, { wrt: [0], order: 2 });
    |                                               ^^^^^

1 error`,
  },
  {
    name: "NABLA108: empty wrt",
    files: `
import { differential, valueWithDifferential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
const i = 0;
const opts = { wrt: [0] };
export const df = valueWithDifferential(f, { wrt: [] });
`,
    expected: `
main.ts:7:51: error NABLA108: 'wrt' must name at least one parameter
  6 | const opts = { wrt: [0] };
> 7 | export const df = valueWithDifferential(f, { wrt: [] });
    |                                                   ^^

1 error`,
  },
  {
    name: "NABLA108: extra argument",
    files: `
import { differential, valueWithDifferential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
const i = 0;
const opts = { wrt: [0] };
export const df = differential(f, { wrt: [0] }, 3);
`,
    expected: `
main.ts:7:19: error NABLA108: 'differential' takes the function and an optional options object
  6 | const opts = { wrt: [0] };
> 7 | export const df = differential(f, { wrt: [0] }, 3);
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108: derivative with options",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return x;
}
export const df = derivative(f, { wrt: 0 });
`,
    expected: `
main.ts:5:19: error NABLA108: 'derivative' takes one argument: the function
  4 | }
> 5 | export const df = derivative(f, { wrt: 0 });
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108: derivative without arguments",
    files: `
import { derivative } from "nabla";
export const df = derivative();
`,
    expected: `
main.ts:2:19: error NABLA108: 'derivative' needs the function to differentiate as its first argument
  1 | import { derivative } from "nabla";
> 2 | export const df = derivative();
    |                   ^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108: function without visible source",
    files: `
import { derivative } from "nabla";
export const df = derivative(Number.parseFloat);
`,
    expected: `
main.ts:2:30: error NABLA108: 'derivative' needs a function whose source nabla can see: a function declared in this program or an arrow function written here
  1 | import { derivative } from "nabla";
> 2 | export const df = derivative(Number.parseFloat);
    |                              ^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104: gradient through a non-differentiable operation",
    files: `
import { gradient } from "nabla";
function f(x: number, y: number): number {
  return Number((x * y).toFixed(3));
}
export const g = gradient(f);
`,
    expected: `
main.ts:3:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function f(x: number, y: number): number {
> 3 |   return Number((x * y).toFixed(3));
    |                 ^^^^^^^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:18: note: when differentiating 'f' for 'gradient'
> 5 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: valueWithGradient of a function returning a boolean, through a namespace import",
    files: `
import * as nabla from "nabla";
function f(x: number): boolean {
  return x > 0;
}
export const g = nabla.valueWithGradient(f);
`,
    expected: `
main.ts:2:1: error NABLA106: cannot differentiate 'f': it returns a boolean, not a number (a gradient needs a number-valued function; use 'pullback' or 'jacobian' for others)
  1 | import * as nabla from "nabla";
> 2 | function f(x: number): boolean {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:18: note: when differentiating 'f' for 'valueWithGradient'
> 5 | export const g = nabla.valueWithGradient(f);
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: an object interpolated in a template literal (it said \"'+' on a Expr is not supported; '+' needs numbers\")",
    files: `
import { gradient } from "nabla";
class Expr {
  constructor(readonly v: number) {}
}
export function f(x: number, y: number): number {
  const label = \`value \${new Expr(x)} at \${y}\`;
  return label.length > 3 ? x * y : x;
}
export const g = gradient(f);
`,
    expected: `
main.ts:6:26: error NABLA106: a value of type 'Expr' in a template literal is not supported in differentiable code: nabla joins numbers, strings and booleans into text, not objects (whose 'toString' would run)
  5 | export function f(x: number, y: number): number {
> 6 |   const label = \`value \${new Expr(x)} at \${y}\`;
    |                          ^^^^^^^^^^^
help: interpolate the numbers or strings it holds ('\${p.x}'), or build the text outside the function you differentiate
main.ts:9:18: note: when differentiating 'f' for 'gradient'
> 9 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA001: parse error",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return x * ;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:14: error NABLA001: Unexpected token
  2 | function f(x: number): number {
> 3 |   return x * ;
    |              ^

1 error`,
  },
  {
    name: "NABLA001: parse error at the end of the file",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return x;
`,
    expected: `
main.ts:4:1: error NABLA001: Expected \`}\` but found \`EOF\`
  3 |   return x;
> 4 |
    | ^

1 error`,
  },
  {
    name: "NABLA106: an operator's function returning a string (functions it calls may)",
    files: `
import { derivative } from "nabla";
function f(x: number): string {
  return String(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:2:1: error NABLA106: cannot differentiate 'f': it returns a string, which has no derivative (numbers, arrays and objects of numbers do)
  1 | import { derivative } from "nabla";
> 2 | function f(x: number): string {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA104: writing into the array withoutDerivative returned",
    files: `
import { gradient, withoutDerivative } from "nabla";
export const g = gradient((a: number[]) => {
  const frozen = withoutDerivative(a);
  frozen[0] = 2;
  return frozen[0] * a[1];
});
`,
    expected: `
main.ts:4:3: error NABLA104: this writes into an array or object that 'withoutDerivative' returned, which is the same memory as its argument; copy it first (e.g. '[...withoutDerivative(xs)]' or '.slice()')
  3 |   const frozen = withoutDerivative(a);
> 4 |   frozen[0] = 2;
    |   ^^^^^^^^^
main.ts:2:18: note: when differentiating the function given to 'gradient'
> 2 | export const g = gradient((a: number[]) => {
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA116: hessian inside differentiable code",
    files: `
import { gradient, hessian } from "nabla";
function f(x: number): number {
  return hessian((t: number) => t * t * t)(x);
}
export const g = gradient(f);
`,
    expected: `
main.ts:3:10: error NABLA116: 'hessian' cannot be used inside differentiable code; inside, use 'derivative', 'gradient' or their 'valueWith…' forms (nabla differentiates those again)
  2 | function f(x: number): number {
> 3 |   return hessian((t: number) => t * t * t)(x);
    |          ^^^^^^^
main.ts:5:18: note: when differentiating 'f' for 'gradient'
> 5 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA116: an inner gradient with respect to an array and a number",
    files: `
import { gradient } from "nabla";
function sq(xs: number[], k: number): number {
  return xs[0] * xs[0] * k + xs[1];
}
function f(x: number): number {
  return gradient(sq)([x, 2 * x], x)[0][0];
}
export const g = gradient(f);
`,
    expected: `
main.ts:2:13: error NABLA116: inside differentiable code, 'gradient' differentiates with respect to one array, or to numbers: pick the array 'xs' alone with '{ wrt: 0 }' (nabla computes it in forward mode, one direction per number)
  1 | import { gradient } from "nabla";
> 2 | function sq(xs: number[], k: number): number {
    |             ^^^^^^^^^^^^
main.ts:8:18: note: when differentiating 'f' for 'gradient'
> 8 | export const g = gradient(f);
    |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA116: a second derivative through a registered rule",
    files: `
import { derivative, registerDerivative } from "nabla";
function cube(x: number): number {
  return x * x * x;
}
registerDerivative(cube, {
  forward: (x, dx) => ({ value: cube(x), tangent: 3 * x * x * dx }),
});
export const d2 = derivative(derivative(cube));
`,
    expected: `
main.ts:5:1: error NABLA116: cannot differentiate the derivative of 'cube' again: its derivative is a registered rule, and nabla does not differentiate rules
  4 | }
> 5 | registerDerivative(cube, {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^
help: differentiate 'cube' once, or remove its rule so nabla differentiates its body
main.ts:8:19: note: when differentiating the function given to 'derivative'
> 8 | export const d2 = derivative(derivative(cube));
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA116: an inner gradient of two parameters whose function writes a captured array",
    files: `
import { gradient } from "nabla";
function accumulate(buf: number[], a: number, b: number): number {
  buf[0] += a * b;
  return buf[0] * a;
}
function f(x: number, y: number): number {
  const buf = [1];
  const g = gradient((a: number, b: number) => accumulate(buf, a, b))(x, y);
  return g[0] + buf[0];
}
export const g = gradient(f);
`,
    expected: `
main.ts:8:13: error NABLA116: inside differentiable code, 'gradient' with respect to 2 parameters runs its function once per parameter, and this function changes arrays it is given or captures; differentiate with respect to one parameter at a time, or keep the function free of writes
  7 |   const buf = [1];
> 8 |   const g = gradient((a: number, b: number) => accumulate(buf, a, b))(x, y);
    |             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:11:18: note: when differentiating 'f' for 'gradient'
> 11 | export const g = gradient(f);
     |                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108: checkpoint of a lambda",
    files: `
import { gradient, checkpoint } from "nabla";
export const g = gradient((x: number) => checkpoint((t: number) => t * t)(x));
`,
    expected: `
main.ts:2:53: error NABLA108: 'checkpoint' takes one function declared in the program, by name: 'checkpoint(step)(state)' (to checkpoint a method, tag it '/** @checkpoint */')
  1 | import { gradient, checkpoint } from "nabla";
> 2 | export const g = gradient((x: number) => checkpoint((t: number) => t * t)(x));
    |                                                     ^^^^^^^^^^^^^^^^^^^^
main.ts:2:18: note: when differentiating the function given to 'gradient'
> 2 | export const g = gradient((x: number) => checkpoint((t: number) => t * t)(x));
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: a checkpointed function returning an array",
    files: `
import { gradient, checkpoint } from "nabla";
function pair(x: number): number[] {
  return [x, x * x];
}
export const g = gradient((x: number) => checkpoint(pair)(x)[1]);
`,
    expected: `
main.ts:5:42: error NABLA106: a checkpointed function must return a number or nothing; 'pair' returns a number[]
  4 | }
> 5 | export const g = gradient((x: number) => checkpoint(pair)(x)[1]);
    |                                          ^^^^^^^^^^^^^^^^^^^
main.ts:5:18: note: when differentiating the function given to 'gradient'
> 5 | export const g = gradient((x: number) => checkpoint(pair)(x)[1]);
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: a checkpointed function pushing onto an array argument",
    files: `
import { checkpoint, gradient } from "nabla";
function step(x: number, hist: number[]): number {
  const y = Math.sin(x) + x;
  hist.push(y * y);
  return y;
}
function sim(x0: number): number {
  const hist: number[] = [];
  let x = x0;
  for (let i = 0; i < 3; i++) x = checkpoint(step)(x, hist);
  let s = 0;
  for (const h of hist) s += h;
  return s;
}
export const g = gradient(sim);
`,
    expected: `
main.ts:10:35: error NABLA106: 'step' cannot be checkpointed: it changes the length of its argument 'hist', and a checkpointed function may change only the numbers in its arguments; call it without checkpointing, or give it arrays of their final length to write into
   9 |   let x = x0;
> 10 |   for (let i = 0; i < 3; i++) x = checkpoint(step)(x, hist);
     |                                   ^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:15:18: note: when differentiating 'sim' for 'gradient'
> 15 | export const g = gradient(sim);
     |                  ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: a checkpointed function replacing an array field of its argument",
    files: `
import { checkpoint, gradient } from "nabla";
interface S {
  v: number[];
}
function step(s: S, k: number): number {
  s.v = s.v.map((x) => Math.sin(x * k));
  return s.v[0];
}
function sim(x: number): number {
  const s: S = { v: [x, 2 * x] };
  let t = 0;
  for (let i = 0; i < 3; i++) t += checkpoint(step)(s, 2) * s.v[1];
  return t;
}
export const g = gradient(sim);
`,
    expected: `
main.ts:12:36: error NABLA106: 'step' cannot be checkpointed: it stores arrays or objects into its argument 's', and a checkpointed function may change only the numbers in its arguments; call it without checkpointing, or give it arrays of their final length to write into
  11 |   let t = 0;
> 12 |   for (let i = 0; i < 3; i++) t += checkpoint(step)(s, 2) * s.v[1];
     |                                    ^^^^^^^^^^^^^^^^^^^^^^
main.ts:15:18: note: when differentiating 'sim' for 'gradient'
> 15 | export const g = gradient(sim);
     |                  ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA112: withDerivative given an arrow that reads a local",
    files: `
import { gradient, withDerivative } from "nabla";
export const g = gradient((x: number, limit: number) => {
  const y = withDerivative(x * x, (d: number) => Math.min(d, limit));
  return y;
});
`,
    expected: `
main.ts:3:62: error NABLA112: the function given to 'withDerivative' reads the local variable 'limit'; it runs inside the derivative code, where only its parameter and module-level names are visible
  2 | export const g = gradient((x: number, limit: number) => {
> 3 |   const y = withDerivative(x * x, (d: number) => Math.min(d, limit));
    |                                                              ^^^^^
main.ts:2:18: note: when differentiating the function given to 'gradient'
> 2 | export const g = gradient((x: number, limit: number) => {
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: withDerivative of an array",
    files: `
import { gradient, withDerivative } from "nabla";
function clip(d: number): number {
  return Math.max(-1, Math.min(1, d));
}
export const g = gradient((xs: number[]) => withDerivative(xs, clip)[0]);
`,
    expected: `
main.ts:5:60: error NABLA106: 'withDerivative' applies to numbers; apply it to the numbers of an array or object
  4 | }
> 5 | export const g = gradient((xs: number[]) => withDerivative(xs, clip)[0]);
    |                                                            ^^
main.ts:5:18: note: when differentiating the function given to 'gradient'
> 5 | export const g = gradient((xs: number[]) => withDerivative(xs, clip)[0]);
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108: gradientAndHessianVectorProduct with respect to two parameters",
    files: `
import { gradientAndHessianVectorProduct } from "nabla";
export const h = gradientAndHessianVectorProduct((x: number, y: number) => x * x * y);
`,
    expected: `
main.ts:2:50: error NABLA108: 'gradientAndHessianVectorProduct' differentiates with respect to one parameter; this function has 2 differentiable ones, so pick one with '{ wrt: i }'
  1 | import { gradientAndHessianVectorProduct } from "nabla";
> 2 | export const h = gradientAndHessianVectorProduct((x: number, y: number) => x * x * y);
    |                                                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108: hessian of an array-valued function",
    files: `
import { hessian } from "nabla";
function f(xs: number[]): number[] {
  return [xs[0] * xs[1]];
}
export const h = hessian(f);
`,
    expected: `
main.ts:5:18: error NABLA108: 'hessian' needs a number-valued function; this one returns a number[]
  4 | }
> 5 | export const h = hessian(f);
    |                  ^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA108: jacobian with respect to an object in forward mode",
    files: `
import { jacobian } from "nabla";
interface P {
  a: number;
  b: number;
}
export const j = jacobian((p: P) => [p.a * p.b, p.a], { mode: "forward" });
`,
    expected: `
main.ts:6:55: error NABLA108: 'jacobian' with respect to an object (P) runs in reverse mode, a pullback per output
  5 | }
> 6 | export const j = jacobian((p: P) => [p.a * p.b, p.a], { mode: "forward" });
    |                                                       ^^^^^^^^^^^^^^^^^^^
help: leave out 'mode: "forward"', or pass the numbers as an array

1 error`,
  },
  {
    name: "NABLA108: an option of other operators, listed",
    files: `
import { pullback } from "nabla";
export function f(x: number[]): number[] {
  return x.map((v) => v * v);
}
export const back = pullback(f, { hasAux: true });
`,
    expected: `
main.ts:5:35: error NABLA108: unknown option 'hasAux'; the options of 'pullback' are 'wrt', 'backend' ('hasAux' is an option of 'gradient' and 'valueWithGradient')
  4 | }
> 5 | export const back = pullback(f, { hasAux: true });
    |                                   ^^^^^^

1 error`,
  },
  {
    name: "NABLA106: derivative of a function returning void",
    files: `
import { derivative } from "nabla";
function f(x: number): void {
  console.log(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:2:1: error NABLA106: cannot differentiate 'f': it returns nothing, which has no derivative (numbers, arrays and objects of numbers do)
  1 | import { derivative } from "nabla";
> 2 | function f(x: number): void {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: function returning a boolean",
    files: `
import { derivative } from "nabla";
function f(x: number): boolean {
  return x > 0;
}
export const df = derivative(f);
`,
    expected: `
main.ts:2:1: error NABLA106: cannot differentiate 'f': it returns a boolean, which has no derivative (numbers, arrays and objects of numbers do)
  1 | import { derivative } from "nabla";
> 2 | function f(x: number): boolean {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: unannotated function building a string",
    files: `
import { derivative } from "nabla";
function f(x: number) {
  return "x = " + x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:2:1: error NABLA106: cannot differentiate 'f': it returns a string, which has no derivative (numbers, arrays and objects of numbers do)
  1 | import { derivative } from "nabla";
> 2 | function f(x: number) {
    | ^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: differentiating with respect to a boolean",
    files: `
import { differential } from "nabla";
function f(x: number, b: boolean): number {
  return b ? x : 0;
}
export const df = differential(f, { wrt: [1] });
`,
    expected: `
main.ts:2:23: error NABLA106: cannot differentiate 'f' with respect to parameter 'b', a boolean
  1 | import { differential } from "nabla";
> 2 | function f(x: number, b: boolean): number {
    |                       ^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'differential'
> 5 | export const df = differential(f, { wrt: [1] });
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: differentiating with respect to a string",
    files: `
import { differential } from "nabla";
function f(x: number, s: string): number {
  return s === "double" ? 2 * x : x;
}
export const df = differential(f, { wrt: [1] });
`,
    expected: `
main.ts:2:23: error NABLA106: cannot differentiate 'f' with respect to parameter 's', a string
  1 | import { differential } from "nabla";
> 2 | function f(x: number, s: string): number {
    |                       ^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'differential'
> 5 | export const df = differential(f, { wrt: [1] });
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: local of a map of mixed values",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  let m: Map<string, number | string>;
  return x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:8: error NABLA106: 'm' has type 'Map<string, number | string>', which differentiable code does not support (numbers, booleans, arrays, typed arrays, object types, records and maps are supported)
  2 | function f(x: number): number {
> 3 |   let m: Map<string, number | string>;
    |        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: parameter of a map of mixed values",
    files: `
import { differential } from "nabla";
function f(x: number, m: Map<string, number | string>): number {
  return x;
}
export const df = differential(f, { wrt: 0 });
`,
    expected: `
main.ts:2:23: error NABLA106: parameter 'm' of 'f' has type 'Map<string, number | string>', which nabla cannot differentiate (numbers, arrays, typed arrays, object types, records and maps can be)
  1 | import { differential } from "nabla";
> 2 | function f(x: number, m: Map<string, number | string>): number {
    |                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'differential'
> 5 | export const df = differential(f, { wrt: 0 });
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: parameter of union type",
    files: `
import { differential } from "nabla";
function f(x: number, u: number | string): number {
  return x;
}
export const df = differential(f, { wrt: 0 });
`,
    expected: `
main.ts:2:23: error NABLA106: parameter 'u' of 'f' has type 'number | string', which nabla cannot differentiate (numbers, arrays, typed arrays, object types, records and maps can be)
  1 | import { differential } from "nabla";
> 2 | function f(x: number, u: number | string): number {
    |                       ^^^^^^^^^^^^^^^^^^
help: a value that may be a number or a string has no one type nabla can differentiate: tell the kinds apart by a field ('{ kind: "number"; value: number } | { kind: "op"; op: string }')
main.ts:5:19: note: when differentiating 'f' for 'differential'
> 5 | export const df = differential(f, { wrt: 0 });
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA106: differentiating with respect to an object with no differentiable fields",
    files: `
import { differential } from "nabla";
interface Label {
  name: string;
}
function f(x: number, l: Label): number {
  return l.name === "double" ? 2 * x : x;
}
export const df = differential(f, { wrt: [1] });
`,
    expected: `
main.ts:5:23: error NABLA106: cannot differentiate 'f' with respect to parameter 'l', a Label, which has no differentiable fields (numbers, arrays of numbers…)
  4 | }
> 5 | function f(x: number, l: Label): number {
    |                       ^^^^^^^^
main.ts:8:19: note: when differentiating 'f' for 'differential'
> 8 | export const df = differential(f, { wrt: [1] });
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: returning a boolean from a number function",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return x > 0;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:10: error NABLA109: expected a number here, got a boolean
  2 | function f(x: number): number {
> 3 |   return x > 0;
    |          ^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: a value where nabla holds one it does not look into, not named 'opaque'",
    files: `
import { gradient } from "nabla";
const SCALE = 2;
class Layer {
  constructor(public w: number, public scale: typeof SCALE = SCALE) {}
  run(x: number): number { return this.w * x; }
}
export const g = gradient((w: number) => new Layer(w).run(0.5));
`,
    expected: `
main.ts:4:40: error NABLA109: expected a value nabla does not differentiate here, got a number
  3 | class Layer {
> 4 |   constructor(public w: number, public scale: typeof SCALE = SCALE) {}
    |                                        ^^^^^^^^^^^^^^^^^^^
main.ts:7:42: note: when differentiating this call to 'Layer'
> 7 | export const g = gradient((w: number) => new Layer(w).run(0.5));
    |                                          ^^^^^^^^^^^^
main.ts:7:18: note: when differentiating the function given to 'gradient'
> 7 | export const g = gradient((w: number) => new Layer(w).run(0.5));
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: comparing a number with a boolean",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return x === true ? 1 : x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:10: error NABLA109: cannot compare a number with a boolean
  2 | function f(x: number): number {
> 3 |   return x === true ? 1 : x;
    |          ^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: argument of the wrong type",
    files: `
import { derivative } from "nabla";
function g(a: number): number {
  return a;
}
function f(x: number): number {
  return g(x > 1);
}
export const df = derivative(f);
`,
    expected: `
main.ts:6:12: error NABLA109: parameter 'a' of 'g' is a number, got a boolean
  5 | function f(x: number): number {
> 6 |   return g(x > 1);
    |            ^^^^^
main.ts:8:19: note: when differentiating 'f' for 'derivative'
> 8 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: boolean assigned to a number variable",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  let y = 0;
  y = x > 1;
  return y;
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:7: error NABLA109: expected a number here, got a boolean
  3 |   let y = 0;
> 4 |   y = x > 1;
    |       ^^^^^
main.ts:7:19: note: when differentiating 'f' for 'derivative'
> 7 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: bare return",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:3: error NABLA109: 'return' needs a number value here
  2 | function f(x: number): number {
> 3 |   return;
    |   ^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: non-number array index",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  const a = [x, 2 * x];
  return a[x > 0];
}
export const df = derivative(f);
`,
    expected: `
main.ts:4:12: error NABLA109: an array index must be a number, got a boolean
  3 |   const a = [x, 2 * x];
> 4 |   return a[x > 0];
    |            ^^^^^
main.ts:6:19: note: when differentiating 'f' for 'derivative'
> 6 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA109: object literal missing a field of its interface",
    files: `
import { derivative } from "nabla";
interface P {
  x: number;
  y: number;
}
function f(x: number): number {
  const p: P = { x };
  return p.x;
}
export const df = derivative(f);
`,
    expected: `
main.ts:7:16: error NABLA109: field 'y' of 'P' is missing
  6 | function f(x: number): number {
> 7 |   const p: P = { x };
    |                ^^^^^
main.ts:10:19: note: when differentiating 'f' for 'derivative'
> 10 | export const df = derivative(f);
     |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA111: unknown name",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return x * k;
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:14: error NABLA111: cannot find 'k' in differentiable code
  2 | function f(x: number): number {
> 3 |   return x * k;
    |              ^
help: pass its value in as a parameter
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: forward rule with the wrong number of parameters",
    files: `
import { registerDerivative, derivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  forward: (x) => ({ value: sigmoid(x), tangent: 0 }),
});
export const d = derivative(sigmoid);
`,
    expected: `
main.ts:6:12: error NABLA115: the forward rule of 'sigmoid' takes 1 parameter, but it is called with 2 (x, dx): the arguments of 'sigmoid', then the tangents of its differentiable parameters
  5 | registerDerivative(sigmoid, {
> 6 |   forward: (x) => ({ value: sigmoid(x), tangent: 0 }),
    |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: reverse rule with the wrong number of parameters",
    files: `
import { registerDerivative, gradient } from "nabla";
function hypot2(a: number, b: number): number {
  return Math.sqrt(a * a + b * b);
}
registerDerivative(hypot2, {
  reverse: (a, b, dy) => ({ value: hypot2(a, b), pullback: (dr: number) => [dr, dr] }),
});
export const g = gradient(hypot2);
`,
    expected: `
main.ts:6:12: error NABLA115: the reverse rule of 'hypot2' takes 3 parameters, but it is called with the 2 arguments of 'hypot2' (a, b)
  5 | registerDerivative(hypot2, {
> 6 |   reverse: (a, b, dy) => ({ value: hypot2(a, b), pullback: (dr: number) => [dr, dr] }),
    |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: rule parameter annotated with the wrong type",
    files: `
import { registerDerivative } from "nabla";
function norm(xs: number[]): number {
  return Math.hypot(...xs);
}
registerDerivative(norm, {
  reverse: (xs: number) => ({ value: xs, pullback: (dy: number) => [dy] }),
});
`,
    expected: `
main.ts:6:13: error NABLA115: parameter 1 of the reverse rule of 'norm' is the argument 'xs', of type number[], but it is declared number
  5 | registerDerivative(norm, {
> 6 |   reverse: (xs: number) => ({ value: xs, pullback: (dy: number) => [dy] }),
    |             ^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: tangent parameter of a forward rule annotated with the wrong type",
    files: `
import { registerDerivative } from "nabla";
function total(k: number, xs: number[]): number {
  return k * xs.length;
}
registerDerivative(total, {
  forward: (k: number, xs: number[], dk: number, dxs: number) => ({ value: total(k, xs), tangent: dk }),
});
`,
    expected: `
main.ts:6:50: error NABLA115: parameter 4 of the forward rule of 'total' is the tangent of 'xs', of type number[], but it is declared number
  5 | registerDerivative(total, {
> 6 |   forward: (k: number, xs: number[], dk: number, dxs: number) => ({ value: total(k, xs), tangent: dk }),
    |                                                  ^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: registerDerivative inside a function",
    files: `
import { registerDerivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
export function setup(): void {
  registerDerivative(sigmoid, {
    reverse: (x) => ({ value: sigmoid(x), pullback: (dy) => dy }),
  });
}
`,
    expected: `
main.ts:6:3: error NABLA115: 'registerDerivative' must be a statement at the top level of a module, so nabla sees every registration whatever runs first
  5 | export function setup(): void {
> 6 |   registerDerivative(sigmoid, {
    |   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: move it to the top level of the module that declares the function

1 error`,
  },
  {
    name: "NABLA115: registerDerivative whose result is kept",
    files: `
import { registerDerivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
export const rule = registerDerivative(sigmoid, {
  reverse: (x) => ({ value: sigmoid(x), pullback: (dy) => dy }),
});
`,
    expected: `
main.ts:5:21: error NABLA115: 'registerDerivative' must be a statement at the top level of a module, so nabla sees every registration whatever runs first
  4 | }
> 5 | export const rule = registerDerivative(sigmoid, {
    |                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: move it to the top level of the module that declares the function

1 error`,
  },
  {
    name: "NABLA115: target that is not a function name",
    files: `
import { registerDerivative } from "nabla";
registerDerivative((x: number) => x * x, {
  reverse: (x) => ({ value: x * x, pullback: (dy) => 2 * x * dy }),
});
`,
    expected: `
main.ts:2:20: error NABLA115: 'registerDerivative' needs the function by name: a function declared in this program or imported from a package
  1 | import { registerDerivative } from "nabla";
> 2 | registerDerivative((x: number) => x * x, {
    |                    ^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: target nabla cannot see",
    files: `
import { registerDerivative } from "nabla";
const f = Math.sin;
registerDerivative(f, {
  reverse: (x: number) => ({ value: f(x), pullback: (dy: number) => Math.cos(x) * dy }),
});
`,
    expected: `
main.ts:3:20: error NABLA115: 'f' is not a function nabla can see: register derivatives of functions declared in this program or imported from a package with type declarations
  2 | const f = Math.sin;
> 3 | registerDerivative(f, {
    |                    ^

1 error`,
  },
  {
    name: "NABLA115: rule that is not an object literal",
    files: `
import { registerDerivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
const rule = {
  reverse: (x: number) => ({ value: sigmoid(x), pullback: (dy: number) => dy }),
};
registerDerivative(sigmoid, rule);
`,
    expected: `
main.ts:8:29: error NABLA115: the rule given to 'registerDerivative' must be an object literal { forward, reverse }, so nabla can read it
  7 | };
> 8 | registerDerivative(sigmoid, rule);
    |                             ^^^^

1 error`,
  },
  {
    name: "NABLA115: rule with neither forward nor reverse",
    files: `
import { registerDerivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {});
`,
    expected: `
main.ts:5:29: error NABLA115: a derivative rule needs 'forward', 'reverse' or both
  4 | }
> 5 | registerDerivative(sigmoid, {});
    |                             ^^

1 error`,
  },
  {
    name: "NABLA115: rule with a member other than forward and reverse",
    files: `
import { registerDerivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  reverse: (x) => ({ value: sigmoid(x), pullback: (dy) => dy }),
  backward: (x: number) => x,
});
`,
    expected: `
main.ts:7:3: error NABLA115: a derivative rule has only the members 'forward' and 'reverse'
  6 |   reverse: (x) => ({ value: sigmoid(x), pullback: (dy) => dy }),
> 7 |   backward: (x: number) => x,
    |   ^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: registerDerivative without a rule",
    files: `
import { registerDerivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid);
`,
    expected: `
main.ts:5:1: error NABLA115: 'registerDerivative' takes two arguments: the function and its rule { forward, reverse }
  4 | }
> 5 | registerDerivative(sigmoid);
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: gradient through a function with a forward-only rule",
    files: `
import { registerDerivative, gradient } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  forward: (x, dx) => {
    const s = sigmoid(x);
    return { value: s, tangent: dx * s * (1 - s) };
  },
});
function loss(w: number): number {
  return sigmoid(2 * w) * w;
}
export const g = gradient(loss);
`,
    expected: `
main.ts:5:1: error NABLA115: 'sigmoid' has a registered derivative without a 'reverse' rule, which reverse mode (gradient, pullback) needs
  4 | }
> 5 | registerDerivative(sigmoid, {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: add a 'reverse' rule to the registration of 'sigmoid'
main.ts:12:10: note: when differentiating this call to 'sigmoid'
> 12 |   return sigmoid(2 * w) * w;
     |          ^^^^^^^^^^^^^^
main.ts:14:18: note: when differentiating 'loss' for 'gradient'
> 14 | export const g = gradient(loss);
     |                  ^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: derivative of a function with a reverse-only rule",
    files: `
import { registerDerivative, derivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  reverse: (x) => {
    const s = sigmoid(x);
    return { value: s, pullback: (dy) => dy * s * (1 - s) };
  },
});
export const d = derivative(sigmoid);
`,
    expected: `
main.ts:5:1: error NABLA115: 'sigmoid' has a registered derivative without a 'forward' rule, which forward mode (derivative, differential) needs
  4 | }
> 5 | registerDerivative(sigmoid, {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: add a 'forward' rule to the registration of 'sigmoid'
main.ts:11:18: note: when differentiating 'sigmoid' for 'derivative'
> 11 | export const d = derivative(sigmoid);
     |                  ^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: forward-only rule in another file, reached by gradient",
    files: {
      "main.ts": `
import { gradient } from "nabla";
import { loss } from "./model.ts";

export const g = gradient(loss);
`,
      "model.ts": `
import { registerDerivative } from "nabla";

export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  forward: (x, dx) => ({ value: sigmoid(x), tangent: dx * sigmoid(x) * (1 - sigmoid(x)) }),
});

export function loss(w: number): number {
  return sigmoid(w) * w;
}
`,
    },
    expected: `
model.ts:6:1: error NABLA115: 'sigmoid' has a registered derivative without a 'reverse' rule, which reverse mode (gradient, pullback) needs
  5 | }
> 6 | registerDerivative(sigmoid, {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: add a 'reverse' rule to the registration of 'sigmoid'
model.ts:11:10: note: when differentiating this call to 'sigmoid'
> 11 |   return sigmoid(w) * w;
     |          ^^^^^^^^^^
main.ts:4:18: note: when differentiating 'loss' for 'gradient'
> 4 | export const g = gradient(loss);
    |                  ^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA115: package without type declarations",
    files: {
      "main.ts": `
import { registerDerivative } from "nabla";
import { erf } from "untyped-special";

registerDerivative(erf, {
  reverse: (x: number) => ({
    value: erf(x),
    pullback: (dy: number) => (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * dy,
  }),
});
`,
      "node_modules/untyped-special/package.json": `
{ "name": "untyped-special", "type": "module", "main": "index.js" }
`,
      "node_modules/untyped-special/index.js": `
export function erf(x) {
  return Math.tanh(1.2 * x);
}
`,
    },
    expected: `
main.ts:4:20: error NABLA115: cannot find the type declarations of 'erf' in package 'untyped-special' (a .d.ts file that declares it); nabla needs its parameter types
  3 |
> 4 | registerDerivative(erf, {
    |                    ^^^

1 error`,
  },
  {
    name: "NABLA115: a second registration for the same function",
    files: `
import { registerDerivative } from "nabla";
function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
registerDerivative(sigmoid, {
  reverse: (x) => ({ value: sigmoid(x), pullback: (dy) => dy }),
});
registerDerivative(sigmoid, {
  forward: (x, dx) => ({ value: sigmoid(x), tangent: dx }),
});
`,
    expected: `
main.ts:8:1: error NABLA115: 'sigmoid' already has a registered derivative; a function can have one rule
  7 | });
> 8 | registerDerivative(sigmoid, {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: keep one registration, with both 'forward' and 'reverse' in its rule
main.ts:5:1: note: the first registration is here
> 5 | registerDerivative(sigmoid, {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "NABLA201: result does not depend on the argument",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  return 3;
}
export const df = derivative(f);
`,
    expected: `
main.ts:2:1: warning NABLA201: the result of 'f' does not depend on the differentiated arguments, so its derivative is always zero
  1 | import { derivative } from "nabla";
> 2 | function f(x: number): number {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 warning`,
  },
  {
    name: "NABLA201 for a Hessian: the derivative nabla made is named as the derivative of the function, not by its internal name",
    files: `
import { hessian } from "nabla";
function loss(x: number[], decay: number): number {
  return x[0] * x[0] + decay * x[1];
}
export const h = hessian(loss, { wrt: 1 });
`,
    expected: `
main.ts:2:1: warning NABLA201: the result of the derivative of 'loss' does not depend on the differentiated arguments, so its derivative is always zero
  1 | import { hessian } from "nabla";
> 2 | function loss(x: number[], decay: number): number {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:5:18: note: when differentiating 'loss' for 'hessian'
> 5 | export const h = hessian(loss, { wrt: 1 });
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^

1 warning`,
  },
  {
    name: "NABLA202: a derivative asked for as WebAssembly runs as JavaScript",
    files: `
import { gradient } from "nabla";
interface P { a: number; b: number; label: string }
function area(p: P): number {
  return p.label.length * p.a * p.b;
}
export const g = gradient(area, { backend: "wasm" });
`,
    expected: `
main.ts:6:18: warning NABLA202: 'gradient' runs as JavaScript, not WebAssembly: the length of a string (wasm compares strings for equality only) in 'area'
  5 | }
> 6 | export const g = gradient(area, { backend: "wasm" });
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: the WebAssembly backend covers functions of numbers, booleans, strings compared for equality, arrays of numbers (Float64Array, Float32Array, number[], arrays of them), integer typed arrays (Int32Array, Uint8Array…), arrays it makes and grows, and objects of them (with fields of other types, such as functions, only where the function does not use them); 'backend: "auto"' picks it only where it applies, without this warning

1 warning`,
  },
  {
    name: "NABLA201: arrow function given to derivative",
    files: `
import { derivative } from "nabla";
export const df = derivative((x: number) => 2);
`,
    expected: `
main.ts:2:30: warning NABLA201: the result of this function does not depend on the differentiated arguments, so its derivative is always zero
  1 | import { derivative } from "nabla";
> 2 | export const df = derivative((x: number) => 2);
    |                              ^^^^^^^^^^^^^^^^
main.ts:2:19: note: when differentiating the function given to 'derivative'
> 2 | export const df = derivative((x: number) => 2);
    |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 warning`,
  },
  {
    name: "NABLA201: loop variable shadowed, so the result is constant",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) {
    let s = 1;
    s += x;
  }
  return s;
}
export const df = derivative(f);
`,
    expected: `
main.ts:2:1: warning NABLA201: the result of 'f' does not depend on the differentiated arguments, so its derivative is always zero
  1 | import { derivative } from "nabla";
> 2 | function f(x: number): number {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:10:19: note: when differentiating 'f' for 'derivative'
> 10 | export const df = derivative(f);
     |                   ^^^^^^^^^^^^^

1 warning`,
  },
  {
    name: "call chain: error two calls deep, across files",
    files: {
      "main.ts": `
import { derivative } from "nabla";
import { outer } from "./lib.ts";

export const d = derivative(outer);
`,
      "lib.ts": `
import { inner } from "./inner.ts";

export function outer(x: number): number {
  return 2 * middle(x);
}

function middle(x: number): number {
  return inner(x) + 1;
}
`,
      "inner.ts": `
export function inner(x: number): number {
  return Number(x.toFixed(2));
}
`,
    },
    expected: `
inner.ts:2:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  1 | export function inner(x: number): number {
> 2 |   return Number(x.toFixed(2));
    |                 ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
lib.ts:8:10: note: when differentiating this call to 'inner'
> 8 |   return inner(x) + 1;
    |          ^^^^^^^^
lib.ts:4:14: note: when differentiating this call to 'middle'
> 4 |   return 2 * middle(x);
    |              ^^^^^^^^^
main.ts:4:18: note: when differentiating 'outer' for 'derivative'
> 4 | export const d = derivative(outer);
    |                  ^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "call chain: namespace-qualified callee in another file",
    files: {
      "main.ts": `
import { differential } from "nabla";
import * as lib from "./lib.ts";

function h(x: number, y: number): number {
  return lib.g(x) * y;
}
export const d = differential(h, { wrt: 0 });
`,
      "lib.ts": `
export function g(x: number): number {
  return parseFloat(String(x));
}
`,
    },
    expected: `
lib.ts:2:21: error NABLA104: 'String' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  1 | export function g(x: number): number {
> 2 |   return parseFloat(String(x));
    |                     ^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:10: note: when differentiating this call to 'lib.g'
> 5 |   return lib.g(x) * y;
    |          ^^^^^^^^
main.ts:7:18: note: when differentiating 'h' for 'differential'
> 7 | export const d = differential(h, { wrt: 0 });
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "call chain: a callee reached twice is reported once",
    files: `
import { derivative } from "nabla";
function g(y: number): number {
  return Number(y.toFixed(2));
}
function f(x: number): number {
  return g(x) + g(2 * x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function g(y: number): number {
> 3 |   return Number(y.toFixed(2));
    |                 ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:6:10: note: when differentiating this call to 'g'
> 6 |   return g(x) + g(2 * x);
    |          ^^^^
main.ts:8:19: note: when differentiating 'f' for 'derivative'
> 8 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "call chain: from an arrow function given to derivative",
    files: `
import { derivative } from "nabla";
function g(x: number): number {
  return Number((x * 4).toFixed(1));
}
export const d = derivative((x: number) => g(x) + 1);
`,
    expected: `
main.ts:3:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function g(x: number): number {
> 3 |   return Number((x * 4).toFixed(1));
    |                 ^^^^^^^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:44: note: when differentiating this call to 'g'
> 5 | export const d = derivative((x: number) => g(x) + 1);
    |                                            ^^^^
main.ts:5:18: note: when differentiating the function given to 'derivative'
> 5 | export const d = derivative((x: number) => g(x) + 1);
    |                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "several independent errors are all reported, one per function",
    files: `
import { derivative } from "nabla";
function a(x: number): number {
  const s = String.raw\`\${x}\`;
  if (s === "") return 0;
  return x;
  // a tagged template above
}
function b(x: number): number {
  return Number(x.toFixed(2));
}
function c(x: number): number {
  let y;
  return x;
}
function d(x: number): number {
  const o = { x };
  return parseFloat(String(o.x));
}
export const da = derivative(a);
export const db = derivative(b);
export const dc = derivative(c);
export const dd = derivative(d);
`,
    expected: `
main.ts:3:13: error NABLA101: a tagged template is not supported in differentiable code
  2 | function a(x: number): number {
> 3 |   const s = String.raw\`\${x}\`;
    |             ^^^^^^^^^^^^^^^^
help: build the string with a plain template literal (\`x = \${x}\`)
main.ts:19:19: note: when differentiating 'a' for 'derivative'
> 19 | export const da = derivative(a);
     |                   ^^^^^^^^^^^^^

main.ts:9:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  8 | function b(x: number): number {
> 9 |   return Number(x.toFixed(2));
    |                 ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:20:19: note: when differentiating 'b' for 'derivative'
> 20 | export const db = derivative(b);
     |                   ^^^^^^^^^^^^^

main.ts:12:7: error NABLA103: cannot determine the type of 'y'; add an annotation or an initializer
  11 | function c(x: number): number {
> 12 |   let y;
     |       ^
main.ts:21:19: note: when differentiating 'c' for 'derivative'
> 21 | export const dc = derivative(c);
     |                   ^^^^^^^^^^^^^

main.ts:17:21: error NABLA104: 'String' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  16 |   const o = { x };
> 17 |   return parseFloat(String(o.x));
     |                     ^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:22:19: note: when differentiating 'd' for 'derivative'
> 22 | export const dd = derivative(d);
     |                   ^^^^^^^^^^^^^

4 errors`,
  },
  {
    name: "errors in two callees of one function are both reported",
    files: `
import { derivative } from "nabla";
function g(y: number): number {
  return new WeakMap<object, number>().has({}) ? y : 2 * y;
}
function h(y: number): number {
  return Number(y.toFixed(2));
}
function f(x: number): number {
  return g(x) + h(x);
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:10: error NABLA101: 'new WeakMap' is not supported in differentiable code (typed arrays and 'new Array(n)' are; build objects with literals)
  2 | function g(y: number): number {
> 3 |   return new WeakMap<object, number>().has({}) ? y : 2 * y;
    |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
help: create it outside the differentiated function and pass it in, or build an object literal ('{ x: 1, y: 2 }')
main.ts:9:10: note: when differentiating this call to 'g'
> 9 |   return g(x) + h(x);
    |          ^^^^
main.ts:11:19: note: when differentiating 'f' for 'derivative'
> 11 | export const df = derivative(f);
     |                   ^^^^^^^^^^^^^

main.ts:6:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  5 | function h(y: number): number {
> 6 |   return Number(y.toFixed(2));
    |                 ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:9:17: note: when differentiating this call to 'h'
> 9 |   return g(x) + h(x);
    |                 ^^^^
main.ts:11:19: note: when differentiating 'f' for 'derivative'
> 11 | export const df = derivative(f);
     |                   ^^^^^^^^^^^^^

2 errors`,
  },
  {
    name: "errors come before warnings, with a combined summary",
    files: `
import { derivative } from "nabla";
function a(x: number): number {
  return 1;
}
function b(x: number): number {
  return Number(x.toFixed(2));
}
export const da = derivative(a);
export const db = derivative(b);
`,
    expected: `
main.ts:6:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  5 | function b(x: number): number {
> 6 |   return Number(x.toFixed(2));
    |                 ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:9:19: note: when differentiating 'b' for 'derivative'
> 9 | export const db = derivative(b);
    |                   ^^^^^^^^^^^^^

main.ts:2:1: warning NABLA201: the result of 'a' does not depend on the differentiated arguments, so its derivative is always zero
  1 | import { derivative } from "nabla";
> 2 | function a(x: number): number {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
main.ts:8:19: note: when differentiating 'a' for 'derivative'
> 8 | export const da = derivative(a);
    |                   ^^^^^^^^^^^^^

1 error, 1 warning`,
  },
  {
    name: "columns are right after tabs and astral characters",
    files: `
import { derivative } from "nabla";
function f(x: number): number {
\tconst s = "😀😀"; return Number(x.toFixed(2));
}
export const df = derivative(f);
`,
    expected: `
main.ts:3:34: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function f(x: number): number {
> 3 | \tconst s = "😀😀"; return Number(x.toFixed(2));
    | \t                                ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
  {
    name: "columns and frames are right with CRLF line endings",
    files: `
import { derivative } from "nabla";\r
function f(x: number): number {\r
  return Number(x.toFixed(2));\r
}\r
export const df = derivative(f);\r
`,
    expected: `
main.ts:3:17: error NABLA104: '.toFixed' is not differentiable, but a value that depends on the differentiated arguments flows through it into the result
  2 | function f(x: number): number {
> 3 |   return Number(x.toFixed(2));
    |                 ^^^^^^^^^^^^
help: use 'withoutDerivative(…)' if the derivative through this operation should be zero
main.ts:5:19: note: when differentiating 'f' for 'derivative'
> 5 | export const df = derivative(f);
    |                   ^^^^^^^^^^^^^

1 error`,
  },
];

for (const c of cases) {
  test(c.name, () => {
    const text = diagnose(c.files);
    assertNoStackTrace(text);
    assert.equal(text, trimLeadingNewline(c.expected));
  });
}

test("every case reports at least one diagnostic, and the summary counts them", () => {
  for (const c of cases) {
    const result = compile(c.files);
    const errors = result.diagnostics.filter((d) => d.severity === "error").length;
    const warnings = result.diagnostics.length - errors;
    assert.ok(result.diagnostics.length > 0, c.name);
    const summary = diagnosticsText(result).split("\n").at(-1);
    const parts = [
      errors ? `${errors} error${errors === 1 ? "" : "s"}` : "",
      warnings ? `${warnings} warning${warnings === 1 ? "" : "s"}` : "",
    ];
    assert.equal(summary, parts.filter(Boolean).join(", "), c.name);
    // Programs with errors produce no output; programs with only warnings do.
    assert.equal(result.outputs.size === 0, errors > 0, c.name);
  }
});

test("non-differentiable operations on inactive values compile and differentiate", async () => {
  // The loop counter only feeds comparisons and coefficients, and String(x) only feeds a
  // condition: none of them carries a derivative into the result. (The bit operations would
  // compile on x anyway: their derivative is 0, as Math.floor's; see math-rules.test.ts.)
  const files = {
    "main.ts": `import { derivative, withoutDerivative } from "nabla";
export function f(x: number): number {
  let s = 0;
  for (let i = 0; (i | 0) < 4 && i >> 0 >= 0 && ~i !== 5; i++) {
    s += x * Math.imul(i, 2) + parseFloat(String(i)) + (i ^ 1) + Number(i);
  }
  if ((x | 0) > 100 || x >> 8 > 1 || ~~x === 1000 || String(x) === "7") return -x;
  return s + (withoutDerivative(x) | 0);
}
export const df = derivative(f);
`,
  };
  assert.equal(diagnosticsText(compileFiles(files)), "");
  const m = await loadProgram<{ f: (x: number) => number; df: (x: number) => number }>(files);
  // s = x·Σ 2i + constants for i = 0..3, so ds/dx = 12.
  assert.equal(m.df(1.5), 12);
  assert.equal(m.f(1.5), 1.5 * 12 + 6 + 6 + 6 + 1);
});

test("a function with several errors reports the first one only", () => {
  const text = diagnose(`
import { derivative } from "nabla";
function f(x: number): number {
  const m = new Map();
  return Number(x.toFixed(2));
}
export const df = derivative(f);
`);
  assert.match(text, /NABLA101: nabla cannot tell the key and value types of 'new Map\(\)'/);
  assert.doesNotMatch(text, /NABLA104/);
  assert.equal(text.split("\n").at(-1), "1 error");
});

// ---------------------------------------------------------------------------------------------
// Regressions: each test states what a user should get, for cases that were wrong once.

test("withoutDerivative(Number(x.toFixed(2))), as the NABLA104 note suggests, compiles", async () => {
  const files = {
    "main.ts": `import { derivative, withoutDerivative } from "nabla";
export const df = derivative((x: number) => withoutDerivative(Number(x.toFixed(2))) + x);
`,
  };
  assert.equal(diagnose(files), "");
  const m = await loadProgram<{ df: (x: number) => number }>(files);
  assert.equal(m.df(2.5), 1);
});

test("diagnostics about an arrow function do not show its internal name", () => {
  const error = diagnose(`
import { derivative } from "nabla";
export const df = derivative((x) => Number(x.toFixed(2)));
`);
  const warning = diagnose(`
import { derivative } from "nabla";
export const df = derivative((x: number) => 2);
`);
  const capture = diagnose(`
import { derivative } from "nabla";
export function outer(a: number): number {
  const k = JSON.parse("2");
  return derivative((x: number) => x * k)(a);
}
`);
  for (const text of [error, warning, capture]) {
    assert.match(text, /NABLA10\d|NABLA201/);
    assert.doesNotMatch(text, /lambda_\d+_\d+/, text);
  }
});

test("'++' on a boolean is a diagnostic, not a compiler crash", () => {
  for (const [init, type] of [
    ["x > 0", "boolean"],
    ['"1"', "string"],
  ]) {
    const source = `import { derivative } from "nabla";
function f(x: number): number {
  let b = ${init};
  b++;
  return b ? x : 0;
}
export const df = derivative(f);
`;
    let result;
    assert.doesNotThrow(() => (result = compileFiles({ "main.ts": source })));
    const text = diagnosticsText(result!);
    assertNoStackTrace(text);
    assert.match(text, new RegExp(`^main.ts:4:3: error NABLA10\\d: '\\+\\+' on a ${type}`), text);
  }
});

test("re-exported functions can be differentiated", () => {
  const b = `export function g(x: number): number {
  return x * x;
}
`;
  const named = diagnose({
    "main.ts": `import { derivative } from "nabla";
import { g } from "./a.ts";
export const dg = derivative(g);
`,
    "a.ts": `export { g } from "./b.ts";\n`,
    "b.ts": b,
  });
  const star = diagnose({
    "main.ts": `import { derivative } from "nabla";
import * as a from "./a.ts";
export const dg = derivative((x: number) => a.g(x) + 1);
`,
    "a.ts": `export * from "./b.ts";\n`,
    "b.ts": b,
  });
  assert.equal(named, "");
  assert.equal(star, "");
});

test("a parse error in an imported file is reported alone", () => {
  const text = diagnose({
    "main.ts": `import { derivative } from "nabla";
import { g } from "./a.ts";
export const dg = derivative(g);
`,
    "a.ts": `export function g(x: number): number {
  return x +;
}
`,
  });
  assert.equal(
    text,
    trimLeadingNewline(`
a.ts:2:13: error NABLA001: Unexpected token
  1 | export function g(x: number): number {
> 2 |   return x +;
    |             ^

1 error`),
  );
});

test("an import of a missing file says the file cannot be found", () => {
  const text = diagnose(`
import { derivative } from "nabla";
import { g } from "./missing.ts";
function f(x: number): number {
  return g(x);
}
export const df = derivative(f);
`);
  assert.match(text, /cannot (find|resolve)[^\n]*'\.\/missing\.ts'/);
  assert.doesNotMatch(text, /does not export/);
});

test("calling a function with an optional parameter is not an arity error", () => {
  const text = diagnose(`
import { derivative } from "nabla";
function g(a: number, b?: number): number {
  return a;
}
function f(x: number): number {
  return g(x);
}
export const df = derivative(f);
`);
  assert.doesNotMatch(text, /takes 2 arguments, got 1/, text);
});

test("wrt: -1 is reported as out of range", () => {
  const text = diagnose(`
import { differential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
export const df = differential(f, { wrt: -1 });
`);
  assert.match(text, /'wrt' index -1 is out of range: the function has 2 parameters/);
});

test("wrt: 0.5 is reported as not an integer", () => {
  const text = diagnose(`
import { differential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
export const df = differential(f, { wrt: 0.5 });
`);
  assert.match(text, /integer/);
});

test('a quoted option key ({ "wrt": [0] }) is the same option', () => {
  const text = diagnose(`
import { differential } from "nabla";
function f(x: number, y: number): number {
  return x * y;
}
export const df = differential(f, { "wrt": [0] });
`);
  assert.equal(text, "");
});

test("'undefined' is named as unsupported, not as an unknown name", () => {
  const text = diagnose(`
import { derivative } from "nabla";
function f(x: number): number {
  const b = undefined;
  return x;
}
export const df = derivative(f);
`);
  assert.match(text, /'undefined' is not supported/);
});

test("a 'var' used after its block is not reported as an unknown name", () => {
  const text = diagnose(`
import { derivative } from "nabla";
function f(x: number): number {
  if (x > 0) {
    var t = x;
  }
  return t;
}
export const df = derivative(f);
`);
  assert.doesNotMatch(text, /cannot find 't'/, text);
});

test("calling a module-level 'let' holding an arrow function does not claim its source is invisible", () => {
  const text = diagnose(`
import { derivative } from "nabla";
let g = (y: number) => y * 2;
function f(x: number): number {
  return g(x);
}
export const df = derivative(f);
`);
  assert.doesNotMatch(text, /no visible source/, text);
});

test("a variable declared in another block does not give a captured variable its type", () => {
  const text = diagnose(`
import { derivative } from "nabla";
export function outer(a: number): number {
  if (a > 0) {
    const k = "s";
    console.log(k);
  }
  const k = 2;
  return derivative((x: number) => x * k)(a);
}
`);
  assert.equal(text, "");
});

test("derivative of a local arrow function held in a const says why it is not accepted", () => {
  const text = diagnose(`
import { derivative } from "nabla";
export function outer(a: number): number {
  const f = (x: number) => x * a;
  return derivative(f)(2);
}
`);
  assert.doesNotMatch(text, /whose source nabla can see/, text);
});
