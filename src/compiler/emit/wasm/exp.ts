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

/** The global the runtime sets to 1 once the module's exp agrees with the engine's. */
export const OWN_EXP_GLOBAL = `  (global $own_exp (export "own_exp") (mut i32) (i32.const 0))`;

/** The module's exp as an export, for the runtime's comparison. */
export function expExport(engineExp: string): string {
  return [
    `  (func (export "exp") (param $x f64) (result f64)`,
    EXP_LOCALS,
    `    ${inlineExp("(local.get $x)", "$exp", engineExp, true)}`,
    "  )",
  ].join("\n");
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
      `(f64.sub ${get("x")} (f64.mul ${get("t")} ${[
        "0x1.555555555553ep-3",
        "-0x1.6c16c16bebd93p-9",
        "0x1.1566aaf25de2cp-14",
        "-0x1.bbd41c5d26bf1p-20",
      ].reduceRight(
        (inner, p) => `(f64.add ${f(p)} (f64.mul ${get("t")} ${inner}))`,
        f("0x1.6376972bea4d0p-25"),
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
