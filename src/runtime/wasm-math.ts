// The Math functions a wasm module computes itself (compiler/emit/wasm/exp.ts, trig.ts), used
// only where they give the engine's own results: when an instance is made, its `exp` export is
// compared with the engine's Math.exp on probes (its `sin` and `cos` with Math.sin and
// Math.cos), and its global `own_exp` (`own_trig`) set to 1 only if they agree on every one;
// otherwise its code calls the imported functions.

/**
 * Arguments on which an exp of another algorithm would likely differ: the edges of fdlibm's
 * ranges, exp(1), specials, and a spread of others.
 */
const PROBES: readonly number[] = (() => {
  const edges = [
    0,
    -0,
    1,
    -1,
    0.5,
    -0.5,
    2,
    -2,
    10,
    -10,
    100,
    -100,
    1e-300,
    -1e-300,
    3e-9,
    -3e-9,
    2 ** -28,
    -(2 ** -28),
    0.34657359027997264,
    -0.34657359027997264,
    1.0397207708399179,
    -1.0397207708399179,
    709.782712893384,
    709.7827128933841,
    709.79,
    -708.39,
    -708.4,
    -745.1332191019411,
    -745.1332191019412,
    -745.2,
    800,
    -800,
    NaN,
    Infinity,
    -Infinity,
  ];
  const spread: number[] = [];
  // A fixed sequence (no Math.random: the same probes at every run).
  for (let k = 1; k <= 400; k++) {
    const unit = ((k * 0.6180339887498949) % 1) - 0.5;
    spread.push(unit * 1490, unit * 40, unit * 2);
  }
  return [...edges, ...spread];
})();

interface OwnMath {
  exp?: (x: number) => number;
  own_exp?: WebAssembly.Global;
}

/** Lets the instance use its own exp if it gives the engine's results; whether it does. */
export function chooseOwnMath(exports: unknown): boolean {
  const own = exports as OwnMath;
  if (!own.own_exp || !own.exp) return false;
  const exp = own.exp;
  const agrees = PROBES.every((x) => Object.is(exp(x), Math.exp(x)));
  own.own_exp.value = agrees ? 1 : 0;
  return agrees;
}

/**
 * Arguments on which a sin or cos of another algorithm would likely differ: the edges of
 * fdlibm's ranges (π/4, 3π/4, multiples of π/2 and their neighbours, 2^19·π/2), tiny and
 * special values, and a spread of others.
 */
const TRIG_PROBES: readonly number[] = (() => {
  const edges = [0, -0, 1e-300, -1e-300, 2 ** -27, 2 ** -28, 0.3, 0.78125, 0.7853981633974483];
  edges.push(2.356194490192345, 1.5707963267948966, Math.PI, 1e6, 823549.6, 823550.1, 1e9);
  edges.push(NaN, Infinity, -Infinity);
  for (let n = 1; n <= 40; n++) {
    const x = (n * Math.PI) / 2;
    edges.push(x, -x, x * (1 + 2 ** -40), x * (1 - 2 ** -50));
  }
  const spread: number[] = [];
  for (let k = 1; k <= 300; k++) {
    const unit = ((k * 0.6180339887498949) % 1) - 0.5;
    spread.push(unit * 2, unit * 20, unit * 2000, unit * 2e6);
  }
  return [...edges, ...spread];
})();

interface OwnTrig {
  sin?: (x: number) => number;
  cos?: (x: number) => number;
  own_trig?: WebAssembly.Global;
}

/** Lets the instance use its own sin and cos if they give the engine's results; whether it does. */
export function chooseOwnTrig(exports: unknown): boolean {
  const own = exports as OwnTrig;
  if (!own.own_trig || !own.sin || !own.cos) return false;
  const { sin, cos } = own;
  const agrees = TRIG_PROBES.every(
    (x) => Object.is(sin(x), Math.sin(x)) && Object.is(cos(x), Math.cos(x)),
  );
  own.own_trig.value = agrees ? 1 : 0;
  return agrees;
}
