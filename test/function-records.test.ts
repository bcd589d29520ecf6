import { test } from "node:test";
import assert from "node:assert/strict";
import { assertClose, compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkTwoWays } from "./support/two-ways.js";

// Functions held in looser data than a field of a known object: a `Record<string, fn>` (or an
// index signature, or a `Map`) read by a key chosen at run time, an optional function field,
// an array of functions at module level. Each call tests which of the program's candidate
// functions the value holds (lower/function-values.ts); a path that code may make hold another
// function is no candidate, so its call throws the documented TypeError or gets a diagnostic —
// never a derivative of the wrong function.

const ACTIVATIONS = `type Activation = (z: number) => number;
function identity(z: number): number {
  return z;
}
const activations: Record<string, Activation> = {
  relu: (z) => Math.max(0, z),
  tanh: Math.tanh,
  softplus: (z) => Math.log1p(Math.exp(z)),
};
`;

test("a Record<string, fn> called by a key chosen at run time", async () => {
  await checkTwoWays(`${ACTIVATIONS}
export function f(x: number, y: number, name = "softplus"): number {
  return activations[name](x * y) + activations.tanh(x) + activations["relu"](y);
}
`);
});

test("a record's function read with '!', into a const, with '??', in a loop over its keys", async () => {
  await checkTwoWays(`${ACTIVATIONS}
export function f(x: number, y: number): number {
  const name = x > 1 ? "relu" : "softplus";
  let s = activations[name]!(x * y);
  const act = activations[name];
  s += act(x + y);
  s += (activations["gelu"] ?? identity)(x);
  const g = activations["gelu"] ?? identity;
  const h = activations[name] || identity;
  s += g(y) + h(x);
  for (const k in activations) s += activations[k](y * 0.5);
  for (const k of Object.keys(activations)) s += 0.1 * activations[k](x);
  return s;
}
`);
});

test("record keys that are not identifiers", async () => {
  await checkTwoWays(`type Activation = (z: number) => number;
const activations: Record<string, Activation> = {
  "leaky-relu": (z) => (z > 0 ? z : 0.01 * z),
  "leaky+relu": (z) => (z > 0 ? 2 * z : 0.02 * z),
  "soft plus": (z) => Math.log1p(Math.exp(z)),
};
export function f(x: number, y: number): number {
  const name = x > 1 ? "soft plus" : "leaky+relu";
  return activations["leaky-relu"](x * y) + activations[name](y) + activations["leaky+relu"](x);
}
`);
});

test("an index signature and a Map of functions", async () => {
  await checkTwoWays(`type Activation = (z: number) => number;
function cube(z: number): number {
  return z * z * z;
}
const table: { [k: string]: Activation } = { square: (z) => z * z, sin: Math.sin };
const byName = new Map<string, Activation>([
  ["cube", cube],
  ["cos", Math.cos],
]);
export function f(x: number, y: number): number {
  let s = table[x > 0 ? "square" : "sin"](y) + table.sin(x);
  s += byName.get("cube")!(x * y) + byName.get("cos")!(y);
  const chosen = byName.get(y > 0 ? "cos" : "cube");
  if (chosen) s += chosen(x);
  return s;
}
`);
});

test("an optional function field read as a value", async () => {
  await checkTwoWays(`interface Layer {
  w: number;
  act?: (z: number) => number;
}
const layers: Layer[] = [{ w: 0.5 }, { w: 1.5, act: Math.tanh }, { w: 0.7, act: (z) => z * z }];
function forward(layer: Layer, z: number): number {
  if (layer.act) return layer.act(layer.w * z);
  return layer.w * z;
}
export function f(x: number, y: number): number {
  let s = 0;
  for (const layer of layers) {
    const g = layer.act ?? ((z) => z);
    s += g(layer.w * x * y);
    s += (layer.act ?? Math.tanh)(x);
    s += forward(layer, y);
    s += layer.act?.(x) ?? x;
    if (layer.act !== undefined) s += layer.act(y) * 0.5;
  }
  return s + forward({ w: y, act: Math.sin }, x);
}
`);
});

test("functions in module-level arrays: by index, for…of, map, reduce, forEach", async () => {
  await checkTwoWays(`const schedule = [(t: number) => t, (t: number) => t * t, Math.sin];
const typed: ((t: number) => number)[] = [(t) => Math.exp(-t), Math.cos];
const weights = [0.5, 1.5, 2];
const pipeline = [
  { gain: 2, fn: (t: number) => Math.exp(-t * t) },
  { gain: 0.5, fn: Math.cos },
];
export function f(x: number, y: number): number {
  let s = 0;
  for (let i = 0; i < schedule.length; i++) s += weights[i] * schedule[i](x * y);
  for (const g of typed) s += g(x);
  s += schedule.map((g) => g(y)).reduce((a, b) => a + b, 0);
  s += schedule.reduce((acc, g) => acc + g(x), 0);
  schedule.forEach((g, i) => {
    s += g(x + i);
  });
  for (const p of pipeline) s += p.gain * p.fn(y);
  const last = schedule[schedule.length - 1];
  return s + last(y);
}
`);
});

test("an array of functions imported from another module", async () => {
  await checkTwoWays(
    `import { schedule } from "./schedule.ts";
export function f(x: number, y: number): number {
  let s = 0;
  for (const g of schedule) s += g(x * y);
  return s + schedule[1](x);
}
`,
    undefined,
    true,
    {
      "schedule.ts": `export const schedule = [(t: number) => t * t * t, (t: number) => Math.exp(t)];\n`,
    },
  );
});

/** The gradient of `f` of a program, and the TypeError (or other error) it throws. */
async function thrown(program: string): Promise<string> {
  const m = await loadProgram<{ df: (x: number, y: number) => unknown }>({
    "main.ts": `import { gradient } from "nabla";\n${program}\nexport const df = gradient(f);\n`,
  });
  try {
    m.df(0.7, 0.4);
  } catch (error) {
    assert.ok(error instanceof TypeError, String(error));
    return error.message;
  }
  return assert.fail("the derivative did not throw");
}

const NOT_COMPILED = (where: string) =>
  `nabla: ${where} holds a function nabla did not compile, which is not one of the functions nabla saw used as a value in the compiled program, so it has no derivative. Pass a function declared at the top level of a compiled module, or written in a module-level object or array that no code writes to (not a closure or a function from outside the program).`;

test("a record field assigned anywhere is no candidate: its call throws the documented TypeError", async () => {
  const message = await thrown(`${ACTIVATIONS}
activations.gelu = (z) => z / (1 + Math.exp(-1.702 * z));
activations.relu = (z) => 2 * z;
export function f(x: number, y: number): number {
  return activations.softplus(y) + activations.gelu(x * y) + activations[x > 0 ? "relu" : "tanh"](x);
}
`);
  assert.equal(message, NOT_COMPILED("activations.gelu"));
  // softplus alone is still a candidate; relu, assigned, is not.
  const m = await loadProgram<{
    df: (x: number, y: number) => number[];
    dg: (x: number, y: number) => number[];
  }>({
    "main.ts": `import { gradient } from "nabla";
${ACTIVATIONS}
activations.relu = (z) => 2 * z;
export function f(x: number, y: number): number {
  return activations.softplus(x * y);
}
export function g(x: number, y: number): number {
  return activations.relu(x * y);
}
export const df = gradient(f);
export const dg = gradient(g);
`,
  });
  const s = 1 / (1 + Math.exp(-0.28));
  const [dx, dy] = m.df(0.7, 0.4);
  assertClose(dx!, 0.4 * s, 1e-15, "∂/∂x");
  assertClose(dy!, 0.7 * s, 1e-15, "∂/∂y");
  assert.throws(() => m.dg(0.7, 0.4), {
    name: "TypeError",
    message: NOT_COMPILED("activations.relu"),
  });
});

test("a record written by a run-time key is no source of candidates", () => {
  for (const write of [
    // by its name
    "export function register(name: string, fn: Activation): void {\n  activations[name] = fn;\n}",
    // through a parameter of a type that holds functions: it may be this record
    "function register(t: Record<string, Activation>, k: string, fn: Activation): void {\n  t[k] = fn;\n}\nregister(activations, 'softplus', (z) => z * z);",
  ]) {
    const text = diagnosticsText(
      compileFiles({
        "main.ts": `import { gradient } from "nabla";
${ACTIVATIONS.replace("tanh: Math.tanh,\n", "")}
${write}
export function f(x: number, y: number): number {
  return activations.softplus(x * y);
}
export const df = gradient(f);
`,
      }),
    );
    assert.match(
      text,
      /error NABLA102: no function of the program fits this call of 'activations\.softplus' \(number\) → number: a function value must be one of the functions the program uses as values: functions declared at the top level of a module, functions written in a module-level object or array that no code writes to, Math functions/,
      write,
    );
  }
});

test("an array that code changes (push, sort, reverse, an element assigned, through an alias) is no source of candidates", async () => {
  for (const write of [
    "schedule.reverse();",
    "schedule.push((t: number) => 3 * t);",
    "schedule.sort((a, b) => a(1) - b(1));",
    "schedule.splice(0, 0, Math.cos);",
    "schedule[1] = (t) => 3 * t;",
    "const alias = schedule;\nalias[1] = (t) => 3 * t;",
    "const alias = schedule;\nalias.reverse();",
    "export function reset(fs: ((t: number) => number)[]): void {\n  fs.length = 0;\n}",
    "export function fill(fs: ((t: number) => number)[], i: number): void {\n  fs[i] = Math.cos;\n}",
  ]) {
    const message =
      await thrown(`const schedule: ((t: number) => number)[] = [(t) => t, (t) => t * t, Math.sin];
${write}
export function f(x: number, y: number): number {
  return schedule[1](x * y);
}
`);
    assert.ok(
      message === NOT_COMPILED("schedule[1]") || message === "schedule[1] is not a function",
      `${write}: ${message}`,
    );
  }
});

test("a key the record lacks throws as the program does", async () => {
  const message = await thrown(`${ACTIVATIONS}
export function f(x: number, y: number): number {
  return activations[x > 0 ? "gelu" : "relu"](x * y);
}
`);
  assert.equal(message, 'activations[x > 0 ? "gelu" : "relu"] is not a function');
});

test("review: a local const array filled by push elsewhere in the program does not rule out the functions of module data", async () => {
  await checkTwoWays(`const myMath: { cos: (t: number) => number; sin: (t: number) => number } = {
  cos: (t: number) => 1 - (t * t) / 2,
  sin: (t: number) => t * -0.1,
};
function waves(a: number, b: number): number {
  const Math = myMath;
  return Math.cos(a) * b + Math.sin(b);
}
function buildTable(n: number) {
  const rows = [];
  for (let i = 0; i < n; i++) rows.push({ k: i + 1, c: -1.34 * i });
  return rows;
}
const table = buildTable(3);
export function f(x: number, y: number): number {
  let r = waves(x, y);
  table.forEach((row) => {
    r += row.c * x + row.k * y;
  });
  return r;
}`);
});
