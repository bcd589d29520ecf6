import { f64Text } from "./float-text.js";

// Math.sin and Math.cos computed in the wasm module itself. An imported Math function costs a
// call out of wasm each time (about 14 ns in Node 20), and bundle adjustment's residuals call
// sin and cos once each per observation and gradient.
//
// The result must be the engine's to the bit. V8 (Node 20) computes sin and cos with fdlibm:
// |x| ≤ π/4 goes to the kernels (polynomials in x², with the reduced argument's tail y);
// larger arguments are reduced by π/2 first (n, and x − n·π/2 as y0 + y1, with π/2 split in as
// many parts as the cancellation needs), and the kernel chosen by n mod 4. This is the same
// sequence of IEEE operations (checked on millions of arguments against Math.sin and Math.cos
// by test/wasm-trig.test.ts). Arguments past 2^19·π/2, which fdlibm reduces with a multi-word
// 2/π, call the engine's function. Another engine may compute sin otherwise (later V8 releases
// have their own), so the runtime compares the module's `sin` and `cos` exports with the
// engine's on probes when it makes an instance (runtime/wasm-math.ts) and sets the global
// `$own_trig` only if they agree; otherwise `$math:sin` and `$math:cos` call the imports. (The
// names hold a `:`, which no name made from the program's functions does.)

/** The global the runtime sets to 1 once the module's sin and cos agree with the engine's. */
export const OWN_TRIG_GLOBAL = `  (global $own_trig (export "own_trig") (mut i32) (i32.const 0))`;

const f = (value: number) => `(f64.const ${f64Text(value)})`;
const i = (value: number) => `(i32.const ${value})`;
const get = (name: string) => `(local.get $${name})`;
const set = (name: string, value: string) => `(local.set $${name} ${value})`;
/** The high 32 bits of a double. */
const high = (x: string) => `(i32.wrap_i64 (i64.shr_u (i64.reinterpret_f64 ${x}) (i64.const 32)))`;
/** The high word of |x|. */
const absHigh = (x: string) => `(i32.and ${high(x)} ${i(0x7fffffff)})`;
/** c0 + z·(c1 + z·(… + z·cn)). */
const horner = (z: string, coefficients: number[]) =>
  coefficients
    .slice(0, -1)
    .reduceRight(
      (inner, c) => `(f64.add ${f(c)} (f64.mul ${z} ${inner}))`,
      f(coefficients[coefficients.length - 1]!),
    );

// fdlibm's coefficients (k_sin.c, k_cos.c) and parts of π/2 (e_rem_pio2.c).
const S1 = -1.66666666666666324348e-1;
const S = [8.33333333332248946124e-3, -1.98412698298579493134e-4, 2.75573137070700676789e-6];
const S_REST = [-2.50507602534068634195e-8, 1.58969099521155010221e-10];
const C = [
  4.16666666666666019037e-2, -1.38888888888741095749e-3, 2.48015872894767294178e-5,
  -2.75573143513906633035e-7, 2.0875723212981748279e-9, -1.13596475577881948265e-11,
];
const INV_PIO2 = 6.36619772367581382433e-1;
const PIO2_1 = 1.57079632673412561417;
const PIO2_1T = 6.07710050650619224932e-11;
const PIO2_2 = 6.0771005063039659766e-11;
const PIO2_2T = 2.02226624879595063154e-21;
const PIO2_3 = 2.0222662487111664558e-21;
const PIO2_3T = 8.47842766036889956997e-32;

/** fdlibm's __kernel_sin(x, y, iy): sin(x + y) for |x + y| ≤ π/4; iy 0 when y is 0. */
const KERNEL_SIN = [
  "  (func $math:k_sin (param $x f64) (param $y f64) (param $iy i32) (result f64)",
  "    (local $z f64) (local $v f64) (local $r f64)",
  `    (if (i32.lt_u ${absHigh(get("x"))} ${i(0x3e400000)}) (then (return ${get("x")})))`,
  `    ${set("z", `(f64.mul ${get("x")} ${get("x")})`)}`,
  `    ${set("v", `(f64.mul ${get("z")} ${get("x")})`)}`,
  `    ${set("r", horner(get("z"), [...S, ...S_REST]))}`,
  `    (if (i32.eqz ${get("iy")}) (then (return (f64.add ${get("x")} (f64.mul ${get("v")} (f64.add ${f(S1)} (f64.mul ${get("z")} ${get("r")})))))))`,
  `    (f64.sub ${get("x")} (f64.sub (f64.sub (f64.mul ${get("z")} (f64.sub (f64.mul ${f(0.5)} ${get("y")}) (f64.mul ${get("v")} ${get("r")}))) ${get("y")}) (f64.mul ${get("v")} ${f(S1)})))`,
  "  )",
];

/** fdlibm's __kernel_cos(x, y): cos(x + y) for |x + y| ≤ π/4. */
const KERNEL_COS = [
  "  (func $math:k_cos (param $x f64) (param $y f64) (result f64)",
  "    (local $ix i32) (local $z f64) (local $r f64) (local $qx f64)",
  `    ${set("ix", absHigh(get("x")))}`,
  `    (if (i32.lt_u ${get("ix")} ${i(0x3e400000)}) (then (return ${f(1)})))`,
  `    ${set("z", `(f64.mul ${get("x")} ${get("x")})`)}`,
  `    ${set("r", `(f64.mul ${get("z")} ${horner(get("z"), C)})`)}`,
  `    (if (i32.lt_u ${get("ix")} ${i(0x3fd33333)}) (then (return (f64.sub ${f(1)} (f64.sub (f64.mul ${f(0.5)} ${get("z")}) (f64.sub (f64.mul ${get("z")} ${get("r")}) (f64.mul ${get("x")} ${get("y")})))))))`,
  // qx: 0.28125 past 0.78125, else |x|/4 with its low word cleared.
  `    ${set(
    "qx",
    `(select ${f(0.28125)} (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.sub ${get("ix")} ${i(0x00200000)})) (i64.const 32))) (i32.gt_u ${get("ix")} ${i(0x3fe90000)}))`,
  )}`,
  `    (f64.sub (f64.sub ${f(1)} ${get("qx")}) (f64.sub (f64.sub (f64.mul ${f(0.5)} ${get("z")}) ${get("qx")}) (f64.sub (f64.mul ${get("z")} ${get("r")}) (f64.mul ${get("x")} ${get("y")}))))`,
  "  )",
];

/**
 * fdlibm's __ieee754_rem_pio2 for π/4 < |x| ≤ 2^19·π/2: n, and x − n·π/2 as y0 + y1. fdlibm's
 * table of the high words of n·π/2 (n < 32) is the high word of n times the double π/2.
 */
const REM_PIO2 = (() => {
  /** One more part of π/2 taken off r (fdlibm's second and third iterations). */
  const round = (part: number, tail: number) => [
    set("t", get("r")),
    set("w", `(f64.mul ${get("fn")} ${f(part)})`),
    set("r", `(f64.sub ${get("t")} ${get("w")})`),
    set(
      "w",
      `(f64.sub (f64.mul ${get("fn")} ${f(tail)}) (f64.sub (f64.sub ${get("t")} ${get("r")}) ${get("w")}))`,
    ),
    set("y0", `(f64.sub ${get("r")} ${get("w")})`),
  ];
  /** How many binary orders of magnitude y0 lost against x. */
  const lost = `(i32.sub ${get("j")} (i32.and (i32.shr_s ${high(get("y0"))} ${i(20)}) ${i(0x7ff)}))`;
  /** |x| < 3π/4, n = ±1: x ∓ π/2 (`add` for negative x). */
  const nearHalfPi = (op: "sub" | "add", n: number) => [
    set("z", `(f64.${op} ${get("x")} ${f(PIO2_1)})`),
    `(if (i32.ne ${get("ix")} ${i(0x3ff921fb)})`,
    `  (then ${set("y0", `(f64.${op} ${get("z")} ${f(PIO2_1T)})`)} ${set("y1", `(f64.${op} (f64.sub ${get("z")} ${get("y0")}) ${f(PIO2_1T)})`)})`,
    // Near π/2 itself: one more part.
    `  (else ${set("z", `(f64.${op} ${get("z")} ${f(PIO2_2)})`)} ${set("y0", `(f64.${op} ${get("z")} ${f(PIO2_2T)})`)} ${set("y1", `(f64.${op} (f64.sub ${get("z")} ${get("y0")}) ${f(PIO2_2T)})`)}))`,
    `(return ${i(n)} ${get("y0")} ${get("y1")})`,
  ];
  return [
    "  (func $math:rem_pio2 (param $x f64) (result i32 f64 f64)",
    "    (local $hx i32) (local $ix i32) (local $n i32) (local $j i32) (local $z f64) (local $t f64) (local $fn f64) (local $r f64) (local $w f64) (local $y0 f64) (local $y1 f64)",
    `    ${set("hx", high(get("x")))}`,
    `    ${set("ix", `(i32.and ${get("hx")} ${i(0x7fffffff)})`)}`,
    `    (if (i32.lt_u ${get("ix")} ${i(0x4002d97c)}) (then`,
    `      (if (i32.gt_s ${get("hx")} ${i(0)}) (then ${nearHalfPi("sub", 1).join(" ")}))`,
    `      ${nearHalfPi("add", -1).join(" ")}))`,
    `    ${set("t", `(f64.abs ${get("x")})`)}`,
    `    ${set("n", `(i32.trunc_sat_f64_s (f64.add (f64.mul ${get("t")} ${f(INV_PIO2)}) ${f(0.5)}))`)}`,
    `    ${set("fn", `(f64.convert_i32_s ${get("n")})`)}`,
    `    ${set("r", `(f64.sub ${get("t")} (f64.mul ${get("fn")} ${f(PIO2_1)}))`)}`,
    `    ${set("w", `(f64.mul ${get("fn")} ${f(PIO2_1T)})`)}`,
    `    ${set("y0", `(f64.sub ${get("r")} ${get("w")})`)}`,
    // Cancellation to fear only near a multiple of π/2 (n ≥ 32, or the same high word).
    `    (if (i32.or (i32.ge_s ${get("n")} ${i(32)}) (i32.eq ${get("ix")} ${high(`(f64.mul ${get("fn")} ${f(Math.PI / 2)})`)})) (then`,
    `      ${set("j", `(i32.shr_s ${get("ix")} ${i(20)})`)}`,
    `      (if (i32.gt_s ${lost} ${i(16)}) (then ${round(PIO2_2, PIO2_2T).join(" ")}`,
    `        (if (i32.gt_s ${lost} ${i(49)}) (then ${round(PIO2_3, PIO2_3T).join(" ")}))))))`,
    `    ${set("y1", `(f64.sub (f64.sub ${get("r")} ${get("y0")}) ${get("w")})`)}`,
    `    (if (i32.lt_s ${get("hx")} ${i(0)}) (then (return (i32.sub ${i(0)} ${get("n")}) (f64.neg ${get("y0")}) (f64.neg ${get("y1")}))))`,
    `    ${get("n")} ${get("y0")} ${get("y1")}`,
    "  )",
  ];
})();

/** `$math:fd_sin` or `$math:fd_cos` (exported for the runtime's probes): fdlibm's, the engine's past 2^19·π/2. */
function fdlibm(name: "sin" | "cos", engine: string): string[] {
  const sin = (x: string, y: string) => `(call $math:k_sin ${x} ${y} ${i(1)})`;
  const cos = (x: string, y: string) => `(call $math:k_cos ${x} ${y})`;
  const neg = (x: string) => `(f64.neg ${x})`;
  const [y0, y1] = [get("y0"), get("y1")];
  // By n mod 4.
  const quadrants =
    name === "sin"
      ? [sin(y0, y1), cos(y0, y1), neg(sin(y0, y1)), neg(cos(y0, y1))]
      : [cos(y0, y1), neg(sin(y0, y1)), neg(cos(y0, y1)), sin(y0, y1)];
  const small =
    name === "sin"
      ? `(call $math:k_sin ${get("x")} ${f(0)} ${i(0)})`
      : `(call $math:k_cos ${get("x")} ${f(0)})`;
  const odd = `(i32.and ${get("n")} ${i(1)})`;
  return [
    `  (func $math:fd_${name} (export "${name}") (param $x f64) (result f64)`,
    "    (local $ix i32) (local $n i32) (local $y0 f64) (local $y1 f64)",
    `    ${set("ix", absHigh(get("x")))}`,
    `    (if (i32.le_u ${get("ix")} ${i(0x3fe921fb)}) (then (return ${small})))`,
    // NaN and ±∞: NaN.
    `    (if (i32.ge_u ${get("ix")} ${i(0x7ff00000)}) (then (return (f64.sub ${get("x")} ${get("x")}))))`,
    `    (if (i32.gt_u ${get("ix")} ${i(0x413921fb)}) (then (return (call ${engine} ${get("x")}))))`,
    `    (call $math:rem_pio2 ${get("x")})`,
    `    (local.set $y1) (local.set $y0) (local.set $n)`,
    `    (if (result f64) (i32.and ${get("n")} ${i(2)})`,
    `      (then (if (result f64) ${odd} (then ${quadrants[3]}) (else ${quadrants[2]})))`,
    `      (else (if (result f64) ${odd} (then ${quadrants[1]}) (else ${quadrants[0]}))))`,
    "  )",
  ];
}

/** `$math:sin` or `$math:cos`, which call sites call: fdlibm's where the runtime found it the engine's. */
function chosen(name: "sin" | "cos", engine: string): string[] {
  return [
    `  (func $math:${name} (param $x f64) (result f64)`,
    `    (if (result f64) (global.get $own_trig) (then (call $math:fd_${name} ${get("x")})) (else (call ${engine} ${get("x")})))`,
    "  )",
  ];
}

/** The functions of a module that calls Math.sin or Math.cos (both, for the probes). */
export function trigFunctions(engineSin: string, engineCos: string): string {
  return [
    ...KERNEL_SIN,
    ...KERNEL_COS,
    ...REM_PIO2,
    ...fdlibm("sin", engineSin),
    ...fdlibm("cos", engineCos),
    ...chosen("sin", engineSin),
    ...chosen("cos", engineCos),
  ].join("\n");
}
