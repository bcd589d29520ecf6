import { test } from "node:test";
import assert from "node:assert/strict";
import { derivative, differential, gradient, pullback } from "../src/runtime/index.js";

// The run-time fallback writes source code from what the caller passes (options, the
// function's name, its text, the types of its arguments) and evaluates it. Nothing of that
// may run as code: each attempt below must either fail with a clear error or give the right
// result, and never set the canary. This file is compiled by tsc, not by nabla, so every
// operator here takes the fallback.

const canary = globalThis as { NABLA_CANARY?: unknown };
const SET_CANARY = "globalThis.NABLA_CANARY = 1";

/** An operator, typed loosely enough to pass it what no TypeScript caller could. */
const op = (operator: unknown) =>
  operator as (
    f: (...args: never[]) => unknown,
    options?: unknown,
  ) => (...args: unknown[]) => unknown;

/** Forward mode, reverse mode and central differences agree on f′(x). */
function checkDerivative(f: (x: number) => number, x: number): number {
  const forward = derivative(f)(x);
  const reverse = gradient(f)(x);
  const h = 1e-6;
  const difference = (f(x + h) - f(x - h)) / (2 * h);
  assert.ok(Math.abs(forward - reverse) <= 1e-12 * Math.max(1, Math.abs(forward)));
  assert.ok(Math.abs(forward - difference) <= 1e-6 * Math.max(1, Math.abs(forward)));
  return forward;
}

const attempts: { name: string; run: () => unknown; error?: RegExp }[] = [
  {
    name: "an option key that closes the object (issue 17 item 11)",
    run: () =>
      op(gradient)((a: number, b: number) => a * b, {
        [`wrt: 0 }); ${SET_CANARY}; const $z = ({ a`]: 1,
      })(2, 3),
    error:
      /^nabla: unknown option "wrt: 0 }\); globalThis\.NABLA_CANARY = 1; const \$z.*" given to gradient; its options are 'wrt', 'hasAux', 'backend'$/,
  },
  {
    name: "an unknown option, named escaped",
    run: () => op(gradient)((a: number) => a, { "wrt\n": 0 }),
    error:
      /^nabla: unknown option "wrt\\n" given to gradient; its options are 'wrt', 'hasAux', 'backend'$/,
  },
  {
    name: "a symbol option key",
    run: () => op(gradient)((a: number) => a, { [Symbol("wrt")]: 0 }),
    error: /unknown option "Symbol\(wrt\)" given to gradient/,
  },
  {
    name: "a string as wrt",
    run: () => op(gradient)((a: number) => a, { wrt: `0 }); ${SET_CANARY}; ({` })(1),
    error:
      /^nabla: 'wrt' given to gradient must list parameter indices \(integers from 0\), and holds "0 }\);/,
  },
  {
    name: "a string inside a wrt list",
    run: () =>
      op(differential)((a: number, b: number) => a * b, { wrt: [0, `1]); ${SET_CANARY}; ([`] })(
        1,
        2,
      ),
    error: /'wrt' given to differential must list parameter indices/,
  },
  {
    name: "an object whose toString injects, as wrt",
    run: () =>
      op(gradient)((a: number) => a, {
        wrt: {
          toString: () => `0 }); ${SET_CANARY}; ({`,
          valueOf: () => {
            canary.NABLA_CANARY = "valueOf ran";
            return 0;
          },
        },
      })(1),
    error:
      /'wrt' given to gradient must list parameter indices \(integers from 0\), and holds an object/,
  },
  {
    name: "a wrt list whose element reads differently the second time",
    run: () => {
      let reads = 0;
      const wrt = [0];
      Object.defineProperty(wrt, 0, { get: () => (reads++ === 0 ? 0 : `0]); ${SET_CANARY}; ([`) });
      const f = (a: number) => a * a;
      assert.equal(op(gradient)(f, { wrt })(3), 6);
      return checkDerivative(f, 3);
    },
  },
  {
    name: "fractional, negative, repeated and out-of-range indices",
    run: () => {
      const f = (a: number, b: number) => a * b;
      const fails = (wrt: unknown, message: RegExp) =>
        assert.throws(() => op(gradient)(f, { wrt }), { name: "TypeError", message });
      fails(0.5, /holds 0\.5$/);
      fails(-1, /holds -1$/);
      fails([1, 1], /lists parameter 1 twice$/);
      fails([], /must name at least one parameter$/);
      fails(
        [0, 2],
        /^nabla: 'wrt' index 2 given to gradient is out of range: the function has 2 parameters$/,
      );
      throw new Error("checked");
    },
    error: /^checked$/,
  },
  {
    name: "options that are not a plain object",
    run: () => op(gradient)((a: number) => a, [0]),
    error:
      /^nabla: the options of gradient must be an object such as \{ wrt: \[0, 1\] \}, and are an array$/,
  },
  {
    name: "a function name that closes the declaration",
    run: () => {
      const f = (x: number) => x * x * x;
      Object.defineProperty(f, "name", { value: `f = 1; ${SET_CANARY}; const g` });
      return checkDerivative(f, 0.7);
    },
  },
  {
    name: "a function named after a global it uses, or after the runtime",
    run: () => {
      const f = (x: number) => Math.sin(x) * x;
      Object.defineProperty(f, "name", { value: "Math" });
      checkDerivative(f, 0.7);
      const g = (x: number) => Math.exp(x) * x;
      Object.defineProperty(g, "name", { value: "$nabla" });
      return checkDerivative(g, 0.7);
    },
  },
  {
    // The field name stays a quoted key of the type TypeScript's checker reads: the function
    // compiles, and nothing of the name runs.
    name: "an argument's field name that closes the type",
    run: () => {
      const g = op(gradient)((x: number, _p: object) => x * x, { wrt: 0 })(2, {
        [`a: number }) => { ${SET_CANARY}; return (p`]: 1,
      });
      assert.equal(g, 4);
      return g;
    },
  },
  {
    name: "an argument with an own __proto__ field",
    run: () =>
      op(gradient)((p: { y: number }) => p.y * p.y)(JSON.parse('{"__proto__": 1, "y": 2}')),
    error:
      /^nabla: argument 1 has a field named "__proto__", which a function compiled at run time cannot take$/,
  },
  {
    name: "an argument that holds itself",
    run: () => {
      const p: { y: number; self?: unknown } = { y: 2 };
      p.self = p;
      return op(gradient)((q: { y: number }) => q.y * q.y)(p);
    },
    error: /^nabla: argument 1\.self holds itself/,
  },
  {
    name: "object keys in the function's code that are not identifiers",
    run: () => {
      const key = `a: ${SET_CANARY}, b`;
      const f = (x: number) => ({ "a: globalThis.NABLA_CANARY = 1, b": x * x, "c-d": Math.sin(x) });
      const x = 0.7;
      const forward = derivative(f)(x) as Record<string, number>;
      // Reverse mode: the pullback reads the adjoint's fields by the same names.
      const reverseA = op(pullback)(f)(x) as unknown as (adjoint: object) => number;
      const ra = reverseA({ [key]: 1, "c-d": 0 });
      const rc = reverseA({ [key]: 0, "c-d": 1 });
      assert.deepEqual(Object.keys(forward), [key, "c-d"]);
      assert.ok(Math.abs(forward[key]! - 2 * x) < 1e-12 && Math.abs(ra - 2 * x) < 1e-12);
      const h = 1e-6;
      const difference = (f(x + h)["c-d"] - f(x - h)["c-d"]) / (2 * h);
      assert.ok(Math.abs(forward["c-d"]! - rc) < 1e-12);
      assert.ok(Math.abs(forward["c-d"]! - difference) < 1e-6);
      return forward;
    },
  },
  {
    name: "string literals in the function's code",
    run: () =>
      checkDerivative((x: number) => {
        const s: string = '"); globalThis.NABLA_CANARY = 1; ("';
        const t = '"); globalThis.NABLA_CANARY = 1; ("\u2028*/';
        return s === t ? x : x * x * x;
      }, 0.7),
  },
  {
    name: "a method whose computed key holds code",
    run: () => {
      const shapes = {
        ['k"); globalThis.NABLA_CANARY = 1; ("'](x: number) {
          return x / (1 + x * x);
        },
      };
      return checkDerivative(Object.values(shapes)[0]!, 0.7);
    },
  },
];

for (const attempt of attempts) {
  test(`fallback injection: ${attempt.name}`, () => {
    delete canary.NABLA_CANARY;
    try {
      if (attempt.error) assert.throws(attempt.run, { message: attempt.error });
      else attempt.run();
    } finally {
      assert.equal(canary.NABLA_CANARY, undefined, "the injected code ran");
    }
  });
}
