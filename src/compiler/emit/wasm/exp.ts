// Math.exp computed in the wasm code itself, written out where it is called. An imported
// Math.exp costs a call out of wasm per element (about 14 ns in Node 20, against 10 for this
// code inlined), and exp is most of the work of loops like log-sum-exp's.
//
// The result must be the engine's to the bit, as for every Math function (math.ts). V8's
// Math.exp is fdlibm's algorithm (argument reduction by ln 2 split in two parts, a rational
// approximation on [-ln2/2, ln2/2], scaling by 2^k), with exp(1) returning Math.E; this is the
// same sequence of IEEE operations, so the same bits (checked on millions of arguments by
// test/wasm-exp.test.ts). Another engine may compute exp otherwise, so the runtime compares
// the module's `exp` export with the engine's Math.exp on a set of probes when it makes an
// instance (runtime/wasm-math.ts) and sets the global `$own_exp` only if they agree; if not,
// each call site calls the imported Math.exp, as before.

/** The locals the inlined exp uses, declared once per function that calls it. */
export const EXP_LOCALS =
  "    (local $exp_x f64) (local $exp_hx i32) (local $exp_k i32) (local $exp_hi f64) (local $exp_lo f64) (local $exp_t f64) (local $exp_c f64) (local $exp_y f64)";

/** The module's exp of one number (the export), for lanes the paired exp does not cover. */
export const SCALAR_EXP = "$exp_one";

/** The global the runtime sets to 1 once the module's exp agrees with the engine's. */
export const OWN_EXP_GLOBAL = `  (global $own_exp (export "own_exp") (mut i32) (i32.const 0))`;

/** The module's exp as an export, for the runtime's comparison. */
export function expExport(engineExp: string): string {
  return [
    `  (func ${SCALAR_EXP} (export "exp") (param $x f64) (result f64)`,
    EXP_LOCALS,
    `    ${inlineExp("(local.get $x)", "$exp", engineExp, true)}`,
    "  )",
  ].join("\n");
}

/** The rational approximation's coefficients P1 … P4 (outermost first), then P5. */
const EXP_POLYNOMIAL = [
  "0x1.555555555553ep-3",
  "-0x1.6c16c16bebd93p-9",
  "0x1.1566aaf25de2cp-14",
  "-0x1.bbd41c5d26bf1p-20",
];
const EXP_P5 = "0x1.6376972bea4d0p-25";

/**
 * Math.exp of both lanes of an f64x2 (elementwise-pairs.ts runs log-sum-exp's loop two
 * elements at a time), for where the module's exp is the engine's: each lane gets the scalar
 * code's operations (f64x2 add, sub, mul and div round as the scalar ones do), so its bits.
 * The scalar code branches on |x|; here both lanes take one path, k = trunc(x/ln2 ± 1/2),
 * hi = x − k·ln2hi, lo = k·ln2lo, which gives the scalar bits on 2^-28 ≤ |x| < 708:
 * - |x| < 0x1.62e42p-2 (below ln2/2 with a margin): k = ±0 as the scalar k = 0, hi = x,
 *   lo = ±0, r = x, and 1 − ((lo − r·c/(2 − c)) − hi) is the scalar 1 − (r·c/(c − 2) − r)
 *   (c − 2 is −(2 − c) exactly; r·c is not 0 there);
 * - from the scalar code's edge 0x1.62e43p-2 (high word > 0x3fd62e42) to 1.5·ln2 (high word
 *   < 0x3ff0a2b2): x/ln2 ± 1/2 is within (1, 2) in magnitude, so k = ±1, as the scalar code
 *   sets it, and ±1 times ln2hi or ln2lo is exact;
 * - beyond: the scalar code's own k;
 * then y·2^k, with k in [−1021, 1022], by its exponent bits: k + 1023 + 2^52 holds k + 1023
 * in its low bits. A pair with a lane outside (NaN, ±∞, tiny, overflow or underflow, exp(1),
 * or between 0x1.62e42p-2 and 0x1.62e43p-2, where k may differ) runs the scalar code on each.
 * The constants live in locals set before the loop (expPairConstants): a constant written
 * in the loop is built again at every iteration.
 */
const EXP_PAIR_CONSTANTS: Record<string, string> = {
  tiny: "0x1p-28",
  big: "708",
  one: "1",
  two: "2",
  edgeLow: "0x1.62e42p-2",
  edgeHigh: "0x1.62e43p-2",
  sign: "-0",
  half: "0.5",
  invln2: "0x1.71547652b82fep+0",
  ln2hi: "0x1.62e42feep-1",
  ln2lo: "0x1.a39ef35793c76p-33",
  p1: EXP_POLYNOMIAL[0]!,
  p2: EXP_POLYNOMIAL[1]!,
  p3: EXP_POLYNOMIAL[2]!,
  p4: EXP_POLYNOMIAL[3]!,
  p5: EXP_P5,
  // 2^52 + 1023: k plus this holds k + 1023 in its low bits.
  bias: "0x1.00000000003ffp+52",
};

/** The v128 locals the paired exp uses (shared by its call sites in a function). */
export const EXP_PAIR_LOCALS = [
  ..."x a k hi lo r t c".split(" ").map((name) => `$exp2_${name}`),
  ...Object.keys(EXP_PAIR_CONSTANTS).map((name) => `$exp2_c_${name}`),
];

/** Sets the paired exp's constants, before a loop that computes it. */
export function expPairConstants(): string[] {
  return Object.entries(EXP_PAIR_CONSTANTS).map(
    ([name, value]) => `(local.set $exp2_c_${name} (f64x2.splat (f64.const ${value})))`,
  );
}

/**
 * Sets v128 local `result` to Math.exp of each lane of `x` (the module's exp of each lane
 * alone for a pair the vector code does not cover).
 */
export function expPairStatements(x: string, result: string): string[] {
  const get = (name: string) => `(local.get $exp2_${name})`;
  const c = (name: string) => `(local.get $exp2_c_${name})`;
  const set = (name: string, value: string) => `(local.set $exp2_${name} ${value})`;
  const covered = `(v128.andnot (v128.and (v128.and (f64x2.ge ${get("a")} ${c("tiny")}) (f64x2.lt ${get("a")} ${c("big")})) (f64x2.ne ${get("x")} ${c("one")})) (v128.and (f64x2.ge ${get("a")} ${c("edgeLow")}) (f64x2.lt ${get("a")} ${c("edgeHigh")})))`;
  const lane = (l: number) => `(call ${SCALAR_EXP} (f64x2.extract_lane ${l} ${get("x")}))`;
  const polynomial = ["p4", "p3", "p2", "p1"].reduce(
    (inner, p) => `(f64x2.add ${c(p)} (f64x2.mul ${get("t")} ${inner}))`,
    c("p5"),
  );
  return [
    set("x", x),
    set("a", `(f64x2.abs ${get("x")})`),
    `(if (i64x2.all_true ${covered})`,
    "  (then",
    `    ${set("k", `(f64x2.trunc (f64x2.add (f64x2.mul ${c("invln2")} ${get("x")}) (v128.or (v128.and ${get("x")} ${c("sign")}) ${c("half")})))`)}`,
    `    ${set("hi", `(f64x2.sub ${get("x")} (f64x2.mul ${get("k")} ${c("ln2hi")}))`)}`,
    `    ${set("lo", `(f64x2.mul ${get("k")} ${c("ln2lo")})`)}`,
    `    ${set("r", `(f64x2.sub ${get("hi")} ${get("lo")})`)}`,
    `    ${set("t", `(f64x2.mul ${get("r")} ${get("r")})`)}`,
    `    ${set("c", `(f64x2.sub ${get("r")} (f64x2.mul ${get("t")} ${polynomial}))`)}`,
    `    (local.set ${result} (f64x2.mul (f64x2.sub ${c("one")} (f64x2.sub (f64x2.sub ${get("lo")} (f64x2.div (f64x2.mul ${get("r")} ${get("c")}) (f64x2.sub ${c("two")} ${get("c")}))) ${get("hi")})) (i64x2.shl (f64x2.add ${get("k")} ${c("bias")}) (i32.const 52)))))`,
    `  (else (local.set ${result} (f64x2.replace_lane 1 (f64x2.splat ${lane(0)}) ${lane(1)}))))`,
  ];
}

/**
 * `Math.exp(x)` as one expression: `x` is evaluated once, then this code where the global
 * says it agrees with the engine, else a call of `engineExp` (the import). `label` names the
 * block, unique in the function. `always`: no test of the global (the export the runtime
 * compares).
 */
export function inlineExp(x: string, label: string, engineExp: string, always = false): string {
  const get = (name: string) => `(local.get $exp_${name})`;
  const set = (name: string, value: string) => `(local.set $exp_${name} ${value})`;
  const f = (value: string) => `(f64.const ${value})`;
  const i = (value: string) => `(i32.const ${value})`;
  const done = (value: string) => `(br ${label} ${value})`;
  /** 2^e as an f64, from its exponent bits (e + 1023 in bits 52…62). */
  const twoTo = (e: string) =>
    `(f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.add ${i("0x3ff00000")} (i32.shl ${e} ${i("20")}))) (i64.const 32)))`;
  const negative = `(i32.lt_s (i32.wrap_i64 (i64.shr_u (i64.reinterpret_f64 ${get("x")}) (i64.const 32))) ${i("0")})`;
  const body = [
    // The high word of |x|.
    set(
      "hx",
      `(i32.and (i32.wrap_i64 (i64.shr_u (i64.reinterpret_f64 ${get("x")}) (i64.const 32))) ${i("0x7fffffff")})`,
    ),
    // |x| ≥ 709.78: NaN, ±∞, overflow to ∞ or underflow to 0.
    `(if (i32.ge_u ${get("hx")} ${i("0x40862e42")}) (then`,
    `  (if (i32.ge_u ${get("hx")} ${i("0x7ff00000")}) (then`,
    `    (if (f64.ne ${get("x")} ${get("x")}) (then ${done(`(f64.add ${get("x")} ${get("x")})`)}))`,
    `    ${done(`(select ${f("0")} ${get("x")} ${negative})`)}))`,
    `  (if (f64.gt ${get("x")} ${f("0x1.62e42fefa39efp+9")}) (then ${done(f("inf"))}))`,
    `  (if (f64.lt ${get("x")} ${f("-0x1.74910d52d3051p+9")}) (then ${done(f("0"))}))))`,
    `(if (i32.gt_u ${get("hx")} ${i("0x3fd62e42")})`,
    // |x| > ln2/2: x = k·ln2 + r, with ln2 = hi + lo.
    "  (then",
    `    (if (i32.lt_u ${get("hx")} ${i("0x3ff0a2b2")})`,
    // |x| < 1.5·ln2: k = ±1. exp(1) is Math.E in V8.
    "      (then",
    `        (if (f64.eq ${get("x")} ${f("1")}) (then ${done(f("0x1.5bf0a8b145769p+1"))}))`,
    `        (if ${negative}`,
    `          (then ${set("hi", `(f64.add ${get("x")} ${f("0x1.62e42feep-1")})`)} ${set("lo", f("-0x1.a39ef35793c76p-33"))} ${set("k", i("-1"))})`,
    `          (else ${set("hi", `(f64.sub ${get("x")} ${f("0x1.62e42feep-1")})`)} ${set("lo", f("0x1.a39ef35793c76p-33"))} ${set("k", i("1"))})))`,
    "      (else",
    `        ${set("k", `(i32.trunc_sat_f64_s (f64.add (f64.mul ${f("0x1.71547652b82fep+0")} ${get("x")}) (select ${f("-0.5")} ${f("0.5")} ${negative})))`)}`,
    `        ${set("t", `(f64.convert_i32_s ${get("k")})`)}`,
    `        ${set("hi", `(f64.sub ${get("x")} (f64.mul ${get("t")} ${f("0x1.62e42feep-1")}))`)}`,
    `        ${set("lo", `(f64.mul ${get("t")} ${f("0x1.a39ef35793c76p-33")})`)}))`,
    `    ${set("x", `(f64.sub ${get("hi")} ${get("lo")})`)})`,
    // |x| < 2^-28: 1 + x.
    `  (else (if (i32.lt_u ${get("hx")} ${i("0x3e300000")}) (then ${done(`(f64.add ${f("1")} ${get("x")})`)})) ${set("k", i("0"))}))`,
    set("t", `(f64.mul ${get("x")} ${get("x")})`),
    set(
      "c",
      `(f64.sub ${get("x")} (f64.mul ${get("t")} ${EXP_POLYNOMIAL.reduceRight(
        (inner, p) => `(f64.add ${f(p)} (f64.mul ${get("t")} ${inner}))`,
        f(EXP_P5),
      )}))`,
    ),
    `(if (i32.eqz ${get("k")}) (then ${done(`(f64.sub ${f("1")} (f64.sub (f64.div (f64.mul ${get("x")} ${get("c")}) (f64.sub ${get("c")} ${f("2")})) ${get("x")}))`)}))`,
    set(
      "y",
      `(f64.sub ${f("1")} (f64.sub (f64.sub ${get("lo")} (f64.div (f64.mul ${get("x")} ${get("c")}) (f64.sub ${f("2")} ${get("c")}))) ${get("hi")}))`,
    ),
    `(if (i32.ge_s ${get("k")} ${i("-1021")}) (then`,
    `  (if (i32.eq ${get("k")} ${i("1024")}) (then ${done(`(f64.mul (f64.mul ${get("y")} ${f("2")}) ${f("0x1p1023")})`)}))`,
    `  ${done(`(f64.mul ${get("y")} ${twoTo(get("k"))})`)}))`,
    `(f64.mul (f64.mul ${get("y")} ${twoTo(`(i32.add ${get("k")} ${i("1000")})`)}) ${f("0x1p-1000")})`,
  ];
  const own = `(block ${label} (result f64) ${body.join(" ")})`;
  const evaluated = set("x", x);
  if (always) return `(block (result f64) ${evaluated} ${own})`;
  return `(block (result f64) ${evaluated} (if (result f64) (global.get $own_exp) (then ${own}) (else (call ${engineExp} ${get("x")}))))`;
}
