import assert from "node:assert/strict";
import { test } from "node:test";
import { compileFiles, diagnosticsText, loadProgram } from "./support/harness.js";
import { checkAgainstPlain } from "./support/two-ways.js";

// A local array of object literals holding functions written in them (object-lists.ts), as
// lists of terms or strategies are written: `const terms: Term[] = [{ eval: (x) => k * x },
// …]`. Each program runs as plain JavaScript too: nabla's value must be its value, the
// gradient its central differences, and forward mode must agree with reverse mode.

const TERMS = `interface Term {
  name: string;
  weight: number;
  eval(x: number): number;
}

export function f(k: number, y: number): number {
  const terms: Term[] = [
    { name: "quad", weight: 1, eval: (x) => k * x * x },
    { name: "lin", weight: y, eval: (x) => 2 * x + k },
    { name: "skip", weight: 3, eval: (x) => 100 * x },
    {
      name: "sin",
      weight: 2,
      eval(x) {
        return Math.sin(k * x) * this.weight;
      },
    },
  ];
  let total = 0;
  for (const t of terms) {
    if (t.name === "skip") continue;
    let inner = 0;
    for (let j = 0; j < 3; j++) {
      if (j === 2) break;
      inner += t.eval(1.5 + j);
    }
    total += t.weight * inner;
    if (total > 1e6) break;
  }
  const viaReduce = terms.reduce((s, t, i) => s + (i % 2 === 0 ? t.eval(0.5) : 0), 0);
  const mapped = terms.map((t) => t.eval(k));
  let picked = 0;
  for (let i = 0; i < terms.length; i++) picked += terms[i].eval(i) * terms[i].weight;
  terms.forEach((t, i) => {
    picked += i * t.eval(y);
  });
  return total + viaReduce + mapped[1] * mapped[3] + picked + terms[3].eval(0.25);
}`;

test("a list of terms written as object literals with arrows and methods: for…of (continue, break), reduce, map, forEach, [i]", async () => {
  await checkAgainstPlain(TERMS);
});

test("a list of strategies chosen by a condition, the first that applies ending the loop", async () => {
  await checkAgainstPlain(`type Rule = { applies: (v: number) => boolean; cost: (v: number) => number };

export function f(x: number, y: number): number {
  const rules: Rule[] = [
    { applies: (v) => v < 0, cost: (v) => -v * y },
    { applies: (v) => v < 1, cost: (v) => v * v },
    { applies: () => true, cost: (v) => Math.log(v) + x },
  ];
  let total = 0;
  for (const v of [x - 1, x, x + y * y]) {
    for (const rule of rules) {
      if (rule.applies(v)) {
        total += rule.cost(v);
        break;
      }
    }
  }
  return total + rules.length;
}`);
});

test("an index past the end of such a list throws JavaScript's TypeError", async () => {
  const m = await loadProgram<{ g: (k: number, i: number) => number }>({
    "main.ts": `import { gradient } from "nabla";
interface Term {
  eval(x: number): number;
}
function pickTerm(k: number, i: number): number {
  const terms: Term[] = [{ eval: (x) => k * x }, { eval: (x) => x + k }];
  return terms[i].eval(2);
}
export const g = gradient(pickTerm, { wrt: 0 });
`,
  });
  assert.equal(m.g(3, 1), 1);
  assert.throws(() => m.g(3, 2), {
    name: "TypeError",
    message: "Cannot read properties of undefined (reading 'eval')",
  });
});

test("other uses of such a list are refused, saying what can be done with it", () => {
  const text = diagnosticsText(
    compileFiles({
      "main.ts": `import { gradient } from "nabla";
interface Term {
  eval(x: number): number;
}
function total(k: number): number {
  const terms: Term[] = [{ eval: (x) => k * x }, { eval: (x) => x + k }];
  return terms.filter((t) => t.eval(1) > 0).length;
}
export const g = gradient(total);
`,
    }),
  );
  assert.match(
    text,
    /error NABLA112: 'terms' is a list of objects holding functions written here; differentiable code can loop over it \('for \(const t of terms\)', 'terms.forEach', '.reduce', '.map'\), read and call its elements' members \('terms\[i\].eval\(…\)'\) and read its length, but not pass it on, store it or use it as another kind of value/,
  );
  assert.match(text, /help: to keep such objects in data, make them instances of classes/);
});

test("one object literal typed by an interface that declares the method it writes as an arrow", async () => {
  await checkAgainstPlain(`interface Model {
  bias: number;
  predict(x: number): number;
}

export function f(w: number, y: number): number {
  const linear: Model = { bias: y, predict: (x) => w * x + y };
  const curved: Model = {
    bias: 0.5,
    predict(x) {
      return Math.exp(w * x) + this.bias;
    },
  };
  return linear.predict(2) * curved.predict(0.3) + linear.bias;
}`);
});

test("such a list destructured in for…of, in nested loops over it, with a switch, a callback and 'continue outer' in the body", async () => {
  await checkAgainstPlain(`interface Rule {
  name: string;
  gain: number;
  apply(v: number): number;
}

export function f(x: number, y: number): number {
  const rules: Rule[] = [
    { name: "a", gain: 2, apply: (v) => v * x },
    { name: "b", gain: y, apply: (v) => v + y * y },
    { name: "c", gain: 0.5, apply: (v) => Math.tanh(v) },
  ];
  let total = 0;
  for (const { name, gain } of rules) total += name === "b" ? gain * 3 : gain;
  for (const r of rules) {
    total += [1, 2, 3].map((v) => r.apply(v)).reduce((s, v) => s + v, 0);
    switch (r.name) {
      case "a":
        total += 1;
        break;
      case "c":
        continue;
    }
    total += r.gain;
  }
  for (const a of rules) for (const b of rules) total += a.apply(b.gain);
  outer: for (let i = 0; i < 3; i++) {
    for (const r of rules) {
      if (r.name === "b" && i === 1) continue outer;
      total += r.apply(i);
    }
  }
  return total;
}`);
});

test("a labelled for…of over such a list, left and continued by its label from an inner loop", async () => {
  // It was a NABLA112 saying that for…of over the list works, at the labelled loop.
  await checkAgainstPlain(`interface T { w: number; f(x: number): number }
export function f(x: number, y: number): number {
  const ts: T[] = [{ w: 1, f: (v) => v * x }, { w: 2, f: (v) => v + y }, { w: 3, f: (v) => v * v }];
  let s = 0;
  outer: for (const t of ts) {
    for (let j = 0; j < 3; j++) {
      if (j === 1 && t.w === 2) continue outer;
      if (t.w === 3 && j === 2) break outer;
      s += t.f(j + x);
    }
    s += 100;
  }
  return s;
}`);
});

test("a labelled for…of over a list of functions, continued by its label", async () => {
  await checkAgainstPlain(`export function f(x: number, y: number): number {
  const stages = [(v: number) => v * x, Math.tanh, (v: number) => v + y];
  let s = 0;
  outer: for (const g of stages) {
    for (let j = 0; j < 3; j++) {
      if (j === 2) continue outer;
      s += g(j + x);
    }
  }
  return s;
}`);
});
