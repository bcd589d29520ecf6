import { test } from "node:test";
import assert from "node:assert/strict";
import { analyzeActivity } from "../src/compiler/analyze/activity.js";
import { printFunction } from "../src/compiler/ir/printer.js";
import type { IRFunction } from "../src/compiler/ir/types.js";
import { verifyFunction } from "../src/compiler/ir/verify.js";
import { emitted, jvpOf, lower, printLowered, sweepsOf } from "./support/ir.js";

// Golden tests of each pass on small functions: the IR after lowering (and dead-code
// elimination), the IR after linearize ([t] marks tangent ops), and the emitted JavaScript.

interface GoldenCase {
  name: string;
  source: string;
  fn: string;
  wrt: number[];
  lowered: string;
  jvp: string;
  js: string;
}

const cases: GoldenCase[] = [
  {
    name: "straightLine",
    source: `function poly(x: number, n: number): number {
  let acc = 1;
  let scale = n * 2;
  acc *= x;
  acc += scale;
  scale++;
  return acc * Math.sin(x) - scale;
}`,
    fn: "poly",
    wrt: [0],
    lowered: `func @poly(%x.0: number, %n.1: number) -> number {
  %acc.4 = const 1
  %5 = const 2
  %scale.6 = mul %n.1, %5
  %acc.7 = mul %acc.4, %x.0
  %acc.8 = add %acc.7, %scale.6
  %9 = const 1
  %scale.10 = add %scale.6, %9
  %11 = math @sin %x.0
  %12 = mul %acc.8, %11
  %13 = sub %12, %scale.10
  return %13
}`,
    jvp: `func @poly$jvp_0(%x.0: number, %n.1: number, %dx.2: number) -> (number, number) {
  %acc.3 = const 1
  %4 = const 2
  %scale.5 = mul %n.1, %4
  %acc.6 = mul %acc.3, %x.0
  %acc.7 = add %acc.6, %scale.5
  %8 = const 1
  %scale.9 = add %scale.5, %8
  %10 = math @sin %x.0
  %11 = math @cos %x.0
  %12 = mul %dx.2, %11 [t]
  %13 = mul %acc.7, %10
  %14 = mul %dx.2, %10 [t]
  %15 = mul %12, %acc.7 [t]
  %16 = add %14, %15 [t]
  %17 = sub %13, %scale.9
  return %16, %17
}`,
    js: `function poly$jvp_0(x, n, dx) {
  const scale = n * 2;
  const acc = 1 * x + scale;
  const t = Math.sin(x);
  $nabla.out.v1 = acc * t - (scale + 1);
  return dx * t + dx * Math.cos(x) * acc;
}`,
  },
  {
    name: "earlyReturn",
    source: `function reflect(x: number): number {
  if (x < 0) {
    return -x;
  }
  const y = x * 2;
  return y + 1;
}`,
    fn: "reflect",
    wrt: [0],
    lowered: `func @reflect(%x.0: number) -> number {
  %3 = const 0
  %4 = lt %x.0, %3
  %result.13 = if %4 -> (number) {
    %5 = neg %x.0
    yield %5
  } else {
    %7 = const 2
    %y.8 = mul %x.0, %7
    %9 = const 1
    %10 = add %y.8, %9
    yield %10
  }
  return %result.13
}`,
    jvp: `func @reflect$jvp(%x.0: number, %dx.1: number) -> (number, number) {
  %2 = const 0
  %3 = lt %x.0, %2
  %result.11, %dresult.12 = if %3 -> (number, number) {
    %4 = neg %x.0
    %5 = neg %dx.1 [t]
    yield %4, %5
  } else {
    %6 = const 2
    %y.7 = mul %x.0, %6
    %8 = mul %dx.1, %6 [t]
    %9 = const 1
    %10 = add %y.7, %9
    yield %10, %8
  }
  return %dresult.12, %result.11
}`,
    js: `function reflect$jvp(x, dx) {
  let result, dresult;
  if (x < 0) {
    result = -x;
    dresult = -dx;
  } else {
    result = x * 2 + 1;
    dresult = dx * 2;
  }
  $nabla.out.v1 = result;
  return dresult;
}`,
  },
  {
    name: "loopWithExits",
    source: `function search(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    if (s > 10) break;
    if (i % 2 === 1) continue;
    s += x * i;
  }
  return s;
}`,
    fn: "search",
    wrt: [0],
    lowered: `func @search(%x.0: number, %n.1: number) -> number {
  %break.6 = const false
  %s.4 = const 0
  %i.5 = const 0
  %i.36, %s.37, %break.38 = loop (%i.7: number = %i.5, %s.8: number = %s.4, %break.9: boolean = %break.6) {
    %12 = if %break.9 -> (boolean) {
      %10 = const false
      yield %10
    } else {
      %11 = lt %i.7, %n.1
      yield %11
    }
    condition %12, %i.7, %s.8, %break.9
  } do (%i.13: number, %s.14: number, %break.15: boolean) {
    %17 = const 10
    %18 = gt %s.14, %17
    %s.29, %break.30 = if %18 -> (number, boolean) {
      %19 = const true
      yield %s.14, %19
    } else {
      %20 = const 2
      %21 = rem %i.13, %20
      %22 = const 1
      %23 = eq %21, %22
      %s.27 = if %23 -> (number) {
        yield %s.14
      } else {
        %25 = mul %x.0, %i.13
        %s.26 = add %s.14, %25
        yield %s.26
      }
      yield %s.27, %break.15
    }
    %32 = not %break.30
    %i.35 = if %32 -> (number) {
      %33 = const 1
      %i.34 = add %i.13, %33
      yield %i.34
    } else {
      yield %i.13
    }
    yield %i.35, %s.29, %break.30
  }
  return %s.37
}`,
    jvp: `func @search$jvp_0(%x.0: number, %n.1: number, %dx.2: number) -> (number, number) {
  %break.3 = const false
  %s.4 = const 0
  %i.5 = const 0
  %6 = const 0 [t]
  %i.38, %s.39, %break.40, %ds.41 = loop (%i.7: number = %i.5, %s.8: number = %s.4, %break.9: boolean = %break.3, %ds.10: number = %6) {
    %13 = if %break.9 -> (boolean) {
      %11 = const false
      yield %11
    } else {
      %12 = lt %i.7, %n.1
      yield %12
    }
    condition %13, %i.7, %s.8, %break.9, %ds.10
  } do (%i.14: number, %s.15: number, %break.16: boolean, %ds.17: number) {
    %18 = const 10
    %19 = gt %s.15, %18
    %s.31, %break.32, %ds.33 = if %19 -> (number, boolean, number) {
      %20 = const true
      yield %s.15, %20, %ds.17
    } else {
      %21 = const 2
      %22 = rem %i.14, %21
      %23 = const 1
      %24 = eq %22, %23
      %s.29, %ds.30 = if %24 -> (number, number) {
        yield %s.15, %ds.17
      } else {
        %25 = mul %x.0, %i.14
        %26 = mul %dx.2, %i.14 [t]
        %s.27 = add %s.15, %25
        %28 = add %ds.17, %26 [t]
        yield %s.27, %28
      }
      yield %s.29, %break.16, %ds.30
    }
    %34 = not %break.32
    %i.37 = if %34 -> (number) {
      %35 = const 1
      %i.36 = add %i.14, %35
      yield %i.36
    } else {
      yield %i.14
    }
    yield %i.37, %s.31, %break.32, %ds.33
  }
  return %ds.41, %s.39
}`,
    js: `function search$jvp_0(x, n, dx) {
  let i = 0, s = 0, break_1 = false, ds = 0;
  while (!break_1 && i < n) {
    let s_2, break_2, ds_2;
    if (s > 10) {
      s_2 = s;
      break_2 = true;
      ds_2 = ds;
    } else {
      let s_1, ds_1;
      if (i % 2 === 1) {
        s_1 = s;
        ds_1 = ds;
      } else {
        s_1 = s + x * i;
        ds_1 = ds + dx * i;
      }
      s_2 = s_1;
      break_2 = break_1;
      ds_2 = ds_1;
    }
    i = !break_2 ? i + 1 : i;
    s = s_2;
    break_1 = break_2;
    ds = ds_2;
  }
  $nabla.out.v1 = s;
  return ds;
}`,
  },
  {
    name: "shortCircuit",
    source: `function clampSum(x: number, y: number): number {
  const inside = x > 0 && y > 0;
  return inside ? x + y : x || y;
}`,
    fn: "clampSum",
    wrt: [0, 1],
    lowered: `func @clampSum(%x.0: number, %y.1: number) -> number {
  %4 = const 0
  %5 = gt %x.0, %4
  %inside.8 = if %5 -> (boolean) {
    %6 = const 0
    %7 = gt %y.1, %6
    yield %7
  } else {
    yield %5
  }
  %12 = if %inside.8 -> (number) {
    %9 = add %x.0, %y.1
    yield %9
  } else {
    %10 = truthy %x.0
    %11 = if %10 -> (number) {
      yield %x.0
    } else {
      yield %y.1
    }
    yield %11
  }
  return %12
}`,
    jvp: `func @clampSum$jvp(%x.0: number, %y.1: number, %dx.2: number, %dy.3: number) -> (number, number) {
  %4 = const 0
  %5 = gt %x.0, %4
  %inside.8 = if %5 -> (boolean) {
    %6 = const 0
    %7 = gt %y.1, %6
    yield %7
  } else {
    yield %5
  }
  %14, %dt.15 = if %inside.8 -> (number, number) {
    %9 = add %x.0, %y.1
    %10 = add %dx.2, %dy.3 [t]
    yield %9, %10
  } else {
    %11 = truthy %x.0
    %12, %dt.13 = if %11 -> (number, number) {
      yield %x.0, %dx.2
    } else {
      yield %y.1, %dy.3
    }
    yield %12, %dt.13
  }
  return %dt.15, %14
}`,
    js: `function clampSum$jvp(x, y, dx, dy) {
  const t = x > 0;
  let t_2, dt_1;
  if (t && y > 0) {
    t_2 = x + y;
    dt_1 = dx + dy;
  } else {
    let t_1, dt;
    if (!!x) {
      t_1 = x;
      dt = dx;
    } else {
      t_1 = y;
      dt = dy;
    }
    t_2 = t_1;
    dt_1 = dt;
  }
  $nabla.out.v1 = t_2;
  return dt_1;
}`,
  },
  {
    name: "doWhile",
    source: `function halve(x: number): number {
  let v = x;
  do {
    v = v / 2;
  } while (v > 1);
  return v;
}`,
    fn: "halve",
    wrt: [0],
    lowered: `func @halve(%x.0: number) -> number {
  %v.9 = loop (%v.3: number = %x.0) {
    %4 = const 2
    %v.5 = div %v.3, %4
    %6 = const 1
    %7 = gt %v.5, %6
    condition %7, %v.5
  } do (%v.8: number) {
    yield %v.8
  }
  return %v.9
}`,
    jvp: `func @halve$jvp(%x.0: number, %dx.1: number) -> (number, number) {
  %v.12, %dv.13 = loop (%v.2: number = %x.0, %dv.3: number = %dx.1) {
    %4 = const 2
    %v.5 = div %v.2, %4
    %6 = const 0.5
    %7 = mul %dv.3, %6 [t]
    %8 = const 1
    %9 = gt %v.5, %8
    condition %9, %v.5, %7
  } do (%v.10: number, %dv.11: number) {
    yield %v.10, %dv.11
  }
  return %dv.13, %v.12
}`,
    js: `function halve$jvp(x, dx) {
  let v = x, dv = dx;
  let v_1, dv_1;
  while (true) {
    const v_2 = v / 2;
    v_1 = v_2;
    dv_1 = dv * 0.5;
    if (!(v_2 > 1)) break;
    v = v_1;
    dv = dv_1;
  }
  $nabla.out.v1 = v_1;
  return dv_1;
}`,
  },
];

for (const c of cases) {
  test(`lowering: ${c.name}`, () => assert.equal(printLowered(c.source, c.fn), c.lowered));
  test(`linearize: ${c.name}`, () =>
    assert.equal(printFunction(jvpOf(c.source, c.fn, c.wrt)), c.jvp));
  test(`emit: ${c.name}`, () => assert.equal(emitted(jvpOf(c.source, c.fn, c.wrt)), c.js));
}

test("activity: values depending only on inactive inputs get no tangent", () => {
  const fn = lower(
    `function f(x: number, n: number): number {
  const k = n * 3;
  const unused = x * 5;
  const y = x * k;
  if (y > k) return y;
  return k;
}`,
    "f",
  );
  const activity = analyzeActivity(fn, [0]);
  const active = new Set<string>();
  const visit = (ops: IRFunction["body"]["ops"]) => {
    for (const op of ops) {
      for (const r of op.results) if (activity.isActive(r)) active.add(r.hint || `%${r.id}`);
      op.regions.forEach((region) => visit(region.ops));
    }
  };
  visit(fn.body.ops);
  // `k` is inactive (depends on n only); `unused` was removed as dead code; the result is active.
  assert.ok(active.has("y"));
  assert.ok(!active.has("k"));
  assert.ok(!activity.isActive(fn.params[1]!));
  assert.ok(activity.isActive(fn.params[0]!));
  // Only the active multiplication gets a tangent op, scaled by the inactive `k`.
  const jvp = printFunction(
    jvpOf(`function g(x: number, n: number): number { const k = n * 3; return x * k; }`, "g", [0]),
  );
  assert.deepEqual(
    jvp
      .split("\n")
      .filter((l) => l.includes("[t]"))
      .map((l) => l.trim()),
    ["%6 = mul %dx.2, %k.4 [t]"],
  );
});

test("activity: a value that only steers a branch is not useful", () => {
  const fn = lower(
    `function f(x: number): number { const c = x * 2; if (c > 1) return 3; return 4; }`,
    "f",
  );
  const activity = analyzeActivity(fn, [0]);
  const c = fn.body.ops.find((op) => op.opcode === "mul")!.results[0]!;
  assert.ok(activity.varied.has(c.id));
  assert.ok(!activity.useful.has(c.id));
});

test("verifier rejects malformed IR", () => {
  const good = () =>
    lower(
      `function f(x: number): number { let s = x; for (let i = 0; i < 3; i++) s += x; return s; }`,
      "f",
    );
  const broken: [string, (fn: IRFunction) => void, RegExp][] = [
    [
      "use outside scope",
      (fn) => fn.body.ops.at(-1)!.operands.splice(0, 1, { id: 999, type: "number", hint: "" }),
      /outside its scope/,
    ],
    ["missing terminator", (fn) => fn.body.ops.pop(), /must end with return|cannot end/],
    [
      "terminator in the middle",
      (fn) => fn.body.ops.unshift({ ...fn.body.ops.at(-1)! }),
      /must end a region/,
    ],
    [
      "wrong return type",
      (fn) => (fn.resultTypes = ["boolean"]),
      /return: .* is number, expected boolean/,
    ],
    [
      "loop yield arity",
      (fn) => {
        const loop = fn.body.ops.find((op) => op.opcode === "loop")!;
        loop.regions[1]!.ops.at(-1)!.operands.pop();
      },
      /loop yield: \d+ values for \d+ slots/,
    ],
    [
      "value defined twice",
      (fn) => {
        const first = fn.body.ops.find((op) => op.results.length)!;
        fn.body.ops.splice(1, 0, { ...first });
      },
      /defined twice/,
    ],
  ];
  verifyFunction(good());
  for (const [what, damage, message] of broken) {
    const fn = good();
    damage(fn);
    assert.throws(() => verifyFunction(fn), message, what);
  }
});

// Reverse mode: the forward sweep (primal plus residuals saved on the tape at the end of the
// region that defines them) and the backward sweep (the transposed tangent code).
interface SweepCase {
  name: string;
  source: string;
  fn: string;
  wrt: number[];
  /** Array parameters unchanged until the backward sweep (read again, not taped). */
  frozen?: number[];
  forward: string;
  backward: string;
}

const sweepCases: SweepCase[] = [
  {
    // Arrays: reads become additions into the shadow, the write moves the shadow's adjoint
    // out and clears it. A and x are frozen, so their elements are read again, and the loop
    // counters come from the backward loops' own counts: the inner loop tapes nothing.
    name: "matvecFrozen",
    source: `function matvec(out: Float64Array, A: Float64Array, x: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += A[i * n + j] * x[j];
    out[i] = s;
  }
}`,
    fn: "matvec",
    wrt: [0, 1, 2],
    frozen: [1, 2],
    forward: `function matvec$fwd_0_1_2$r1_2(out, A, x, n, dout, dA, dx) {
  let i = 0;
  while (i < n) {
    let j = 0, s = 0;
    while (j < n) {
      s = s + A[i * n + j] * x[j];
      j = j + 1;
    }
    out[i] = s;
    i = i + 1;
  }
  return;
}`,
    backward: `function matvec$bwd_0_1_2$r1_2(A, x, n, dout, dA, dx) {
  const t = Math.ceil(n);
  let trips = t > 0 ? t : 0;
  while (trips > 0) {
    const i = trips - 1;
    const s_adj = dout[i];
    dout[i] = 0;
    const t_1 = Math.ceil(n);
    const trips_1 = t_1 > 0 ? t_1 : 0;
    let j = 0, s_adj_1 = s_adj;
    while (j < trips_1) {
      const t_2 = s_adj_1 * A[i * n + j];
      const t_3 = s_adj_1 * x[j];
      dx[j] += t_2;
      dA[i * n + j] += t_3;
      j = j + 1;
    }
    trips = trips - 1;
  }
  return;
}`,
  },
  {
    // Without the frozen guarantee, what was read is taped (x could change before the sweep).
    name: "arrayOverwrite",
    source: `function overwrite(a: number[], t: number): number {
  const before = a[0] * t;
  a[0] = a[0] * a[0] + t;
  return before + a[0] * a[1];
}`,
    fn: "overwrite",
    wrt: [0, 1],
    forward: `function overwrite$fwd(a, t, da) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  const t_1 = a[0];
  const t_2 = a[0];
  const t_3 = a[0];
  a[0] = t_2 * t_3 + t;
  const t_4 = da[0] == null;
  if (t_4) {
    da[0] = 0;
  }
  const t_5 = a[0];
  const t_6 = a[1];
  if ($top + 5 > $tape.length) $tape = $nabla.growTape($top, 5);
  $tape[$top++] = t_1;
  $tape[$top++] = t_3;
  $tape[$top++] = t_2;
  $tape[$top++] = t_6;
  $tape[$top++] = t_5;
  if ($top > $nabla.tape.peak) $nabla.tape.peak = $top;
  $nabla.tape.top = $top;
  return t_1 * t + t_5 * t_6;
}`,
    backward: `function overwrite$bwd(seed, t, da) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  const t_1 = $tape[--$top];
  const t_2 = $tape[--$top];
  const t_3 = $tape[--$top];
  const t_4 = $tape[--$top];
  const t_5 = $tape[--$top];
  if (da[1] !== undefined) da[1] += seed * t_1;
  if (da[0] !== undefined) da[0] += seed * t_2;
  const t_adj = da[0];
  da[0] = 0;
  if (da[0] !== undefined) da[0] += t_adj * t_3;
  if (da[0] !== undefined) da[0] += t_adj * t_4;
  if (da[0] !== undefined) da[0] += seed * t;
  $nabla.tape.top = $top;
  return t_adj + seed * t_5;
}`,
  },
  {
    name: "earlyReturn",
    source: `function reflect(x: number): number {
  if (x < 0) {
    return -x;
  }
  const y = x * 2;
  return y + 1;
}`,
    fn: "reflect",
    wrt: [0],
    forward: `function reflect$fwd(x) {
  return x < 0 ? -x : x * 2 + 1;
}`,
    backward: `function reflect$bwd(seed, x) {
  return x < 0 ? -seed : seed * 2;
}`,
  },
  {
    name: "loopWithExits",
    source: `function search(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    if (s > 10) break;
    if (i % 2 === 1) continue;
    s += x * i;
  }
  return s;
}`,
    fn: "search",
    wrt: [0],
    forward: `function search$fwd_0(x, n) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  let i = 0, s = 0, break_1 = false, trips = 0;
  while (!break_1 && i < n) {
    const t = s > 10;
    let s_1, break_2;
    if (t) {
      s_1 = s;
      break_2 = true;
    } else {
      const t_1 = i % 2 === 1;
      if ($top + 1 > $tape.length) $tape = $nabla.growTape($top, 1);
      $tape[$top++] = t_1 ? 1 : 0;
      s_1 = t_1 ? s : s + x * i;
      break_2 = break_1;
    }
    if ($top + 2 > $tape.length) $tape = $nabla.growTape($top, 2);
    $tape[$top++] = t ? 1 : 0;
    $tape[$top++] = i;
    i = !break_2 ? i + 1 : i;
    s = s_1;
    break_1 = break_2;
    trips = trips + 1;
  }
  if ($top + 1 > $tape.length) $tape = $nabla.growTape($top, 1);
  $tape[$top++] = trips;
  if ($top > $nabla.tape.peak) $nabla.tape.peak = $top;
  $nabla.tape.top = $top;
  return s;
}`,
    backward: `function search$bwd_0(seed) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  const trips = $tape[--$top] | 0;
  let trips_1 = trips, s_adj = seed, x_adj = 0;
  while (trips_1 > 0) {
    const i = $tape[--$top];
    const t = $tape[--$top] !== 0;
    let x_adj_1;
    if (t) {
      x_adj_1 = x_adj;
    } else {
      const t_1 = $tape[--$top] !== 0;
      x_adj_1 = t_1 ? x_adj : x_adj + s_adj * i;
    }
    trips_1 = trips_1 - 1;
    x_adj = x_adj_1;
  }
  $nabla.tape.top = $top;
  return x_adj;
}`,
  },
  {
    name: "loopInvariantResidual",
    source: `function power(x: number, n: number): number {
  let p = 1;
  for (let i = 0; i < n; i++) p *= x;
  return p;
}`,
    fn: "power",
    wrt: [0],
    forward: `function power$fwd_0(x, n) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  const t = Math.ceil(n);
  if ($top + (t > 0 ? t : 0) > $tape.length) $tape = $nabla.growTape($top, t > 0 ? t : 0);
  let i = 0, p = 1;
  while (i < n) {
    $tape[$top++] = p;
    i = i + 1;
    p = p * x;
  }
  if ($top > $nabla.tape.peak) $nabla.tape.peak = $top;
  $nabla.tape.top = $top;
  return p;
}`,
    backward: `function power$bwd_0(seed, x, n) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  const t = Math.ceil(n);
  let trips = t > 0 ? t : 0, p_adj = seed, x_adj = 0;
  while (trips > 0) {
    const p = $tape[--$top];
    trips = trips - 1;
    x_adj = x_adj + p_adj * p;
    p_adj = p_adj * x;
  }
  $nabla.tape.top = $top;
  return x_adj;
}`,
  },
  {
    name: "sharedCarried",
    source: `function energy(x: number, n: number): number {
  let v = 1;
  let s = 0;
  for (let i = 0; i < n; i++) {
    v = v * x + Math.sin(v);
    s += v * v;
  }
  return s;
}`,
    fn: "energy",
    wrt: [0],
    forward: `function energy$fwd_0(x, n) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  const t = Math.ceil(n);
  if ($top + (t > 0 ? t : 0) * 2 > $tape.length) $tape = $nabla.growTape($top, (t > 0 ? t : 0) * 2);
  let i = 0, v = 1, s = 0;
  while (i < n) {
    const v_1 = v * x + Math.sin(v);
    $tape[$top++] = v;
    $tape[$top++] = Math.cos(v);
    i = i + 1;
    v = v_1;
    s = s + v_1 * v_1;
  }
  if ($top + 1 > $tape.length) $tape = $nabla.growTape($top, 1);
  $tape[$top++] = v;
  if ($top > $nabla.tape.peak) $nabla.tape.peak = $top;
  $nabla.tape.top = $top;
  return s;
}`,
    backward: `function energy$bwd_0(seed, x, n) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  const v = $tape[--$top];
  const t = Math.ceil(n);
  let trips = t > 0 ? t : 0, v_adj = 0, s_adj = seed, x_adj = 0, v_1 = v;
  while (trips > 0) {
    const t_1 = $tape[--$top];
    const v_2 = $tape[--$top];
    const t_adj = v_adj + s_adj * v_1 + s_adj * v_1;
    trips = trips - 1;
    v_adj = t_adj * t_1 + t_adj * x;
    x_adj = x_adj + t_adj * v_2;
    v_1 = v_2;
  }
  $nabla.tape.top = $top;
  return x_adj;
}`,
  },
  {
    name: "call",
    source: `function sq(t: number): number {
  return t * t;
}
function f(x: number, y: number): number {
  return sq(x * y) + Math.sin(y);
}`,
    fn: "f",
    wrt: [0, 1],
    forward: `function f$fwd(x, y) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  $nabla.tape.top = $top;
  const t = sq$fwd(x * y);
  $tape = $nabla.tape.buffer;
  $top = $nabla.tape.top;
  if ($top + 1 > $tape.length) $tape = $nabla.growTape($top, 1);
  $tape[$top++] = Math.cos(y);
  if ($top > $nabla.tape.peak) $nabla.tape.peak = $top;
  $nabla.tape.top = $top;
  return t + Math.sin(y);
}`,
    backward: `function f$bwd(seed, x, y) {
  let $tape = $nabla.tape.buffer, $top = $nabla.tape.top;
  const t = $tape[--$top];
  $nabla.tape.top = $top;
  const t_adj = sq$bwd(seed);
  $tape = $nabla.tape.buffer;
  $top = $nabla.tape.top;
  $nabla.tape.top = $top;
  $nabla.out.v1 = seed * t + t_adj * x;
  return t_adj * y;
}`,
  },
];

for (const c of sweepCases) {
  test(`reverse sweeps: ${c.name}`, () => {
    const [forward, backward] = sweepsOf(c.source, c.fn, c.wrt, c.frozen);
    assert.equal(emitted(forward), c.forward);
    assert.equal(emitted(backward), c.backward);
  });
}

test("the printer shows every attribute of an op, sorted, function keys by name", () => {
  const fn = lower(
    `function g(a: number[]): number { return a[0]; }
function f(a: number[]): number { return g(a); }`,
    "f",
  );
  const call = fn.body.ops.find((op) => op.opcode === "call")!;
  Object.assign(call.attrs, {
    primal: "/virtual/main.ts#g",
    wrt: [0],
    frozen: [0, -1],
    tapeless: true,
    checkpoint: true,
    reserved: false,
    method: "step",
  });
  const line = printFunction(fn)
    .split("\n")
    .find((l) => l.includes("call"));
  assert.equal(
    line,
    `  %3 = call @g %a.0 {calleeName = "g", checkpoint, frozen = [0, -1], method = "step", primal = @g, tapeless, wrt = [0]}`,
  );
});
