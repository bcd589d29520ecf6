import { test } from "node:test";
import assert from "node:assert/strict";
import { analyzeActivity } from "../src/compiler/analysis/activity.js";
import { printFunction } from "../src/compiler/ir/printer.js";
import type { IRFunction, Type } from "../src/compiler/ir/types.js";
import { verifyFunction } from "../src/compiler/ir/verify.js";
import { jvpOf, lower } from "./support/ir.js";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compileProgram } from "../src/compiler/compile.js";
import { eliminateDeadCode } from "../src/compiler/ir/dce.js";
import { parseFunction } from "../src/compiler/ir/parser.js";
import { definedValues } from "../src/compiler/ir/walk.js";
import { REPO_ROOT } from "./support/harness.js";

// Unit tests of the IR: activity analysis, the verifier, the printer. The golden tests of each
// pass are fixture folders (test/passes.test.ts).

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
    ["%6: number = mul %dx.2, %k.4 [t]"],
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
    [
      "operand count off the op table",
      (fn) => {
        const add = fn.body.ops
          .flatMap((op) => [op, ...op.regions.flatMap((r) => r.ops)])
          .find((op) => op.opcode === "add")!;
        add.operands.pop();
      },
      /add takes 2 operands, not 1/,
    ],
  ];
  verifyFunction(good());
  for (const [what, damage, message] of broken) {
    const fn = good();
    damage(fn);
    assert.throws(() => verifyFunction(fn), message, what);
  }
});

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
    `  %3: number = call @g %a.0 {calleeName = "g", checkpoint, frozen = [0, -1], method = "step", primal = @g, tapeless, wrt = [0]}`,
  );
});

/** The object types `fn` names, by name, for the parser. */
function objectTypesOf(fn: IRFunction): Map<string, Type> {
  const types = new Map<string, Type>();
  const see = (t: Type): void => {
    if (typeof t === "string") return;
    if (t.kind === "object") {
      if (types.has(t.name)) return;
      types.set(t.name, t);
      for (const f of t.fields) see(f.type);
    } else if (t.kind === "keyed") {
      see(t.value);
    } else {
      see(t.element);
      for (const e of t.elements ?? []) see(e);
    }
  };
  for (const v of definedValues(fn)) see(v.type);
  for (const t of fn.resultTypes) see(t);
  return types;
}

test("the IR parser reads back what the printer prints, for every function of the pass fixtures", () => {
  const root = join(REPO_ROOT, "test/fixtures/passes");
  let count = 0;
  for (const folder of readdirSync(root)) {
    const file = `/virtual/${folder}.ts`;
    const source = readFileSync(join(root, folder, "input.ts"), "utf8");
    const result = compileProgram([file], { sources: new Map([[file, source]]) });
    for (const fn of result.functions.values()) {
      const text = printFunction(fn);
      assert.equal(printFunction(parseFunction(text, objectTypesOf(fn))), text);
      count++;
    }
  }
  assert.ok(count > 30, `${count} functions`);
});

test("IR in, IR out: a pass run on IR written by hand", () => {
  const fn = parseFunction(
    `
func @f(%x.0: number, %n.1: number) -> number {
  %2: number = const 2
  %unused.3: number = mul %x.0, %2
  %4: number = mul %n.1, %n.1
  %5: boolean = gt %x.0, %4
  %6 = if %5 -> (number) {
    %7: number = sin %x.0
    yield %7
  } else {
    yield %4
  }
  return %6
}`.replace("sin %x.0", "math @sin %x.0"),
  );
  eliminateDeadCode(fn);
  assert.equal(
    printFunction(fn),
    `func @f(%x.0: number, %n.1: number) -> number {
  %4: number = mul %n.1, %n.1
  %5: boolean = gt %x.0, %4
  %6 = if %5 -> (number) {
    %7: number = math @sin %x.0
    yield %7
  } else {
    yield %4
  }
  return %6
}`,
  );
  assert.throws(
    () => parseFunction("func @g() -> number {\n  return %9\n}"),
    /used before it is defined/,
  );
  assert.throws(
    () => parseFunction("func @g(%p.0: Params) -> number {\n}"),
    /unknown type 'Params'/,
  );
  assert.throws(
    () => parseFunction("func @g() -> number {\n  %1: number = frobnicate\n}"),
    /unknown opcode 'frobnicate'/,
  );
});
