import { test } from "node:test";
import assert from "node:assert/strict";
import { adaptiveBackend, backendChoices } from "../src/runtime/adaptive-backend.js";
import { loadProgram } from "./support/harness.js";

// `backend: "auto"` at run time: a call site alternates between its wasm twin and its
// JavaScript derivative, times both (after a warm-up) and keeps the faster. The choice is
// tested with a clock the test drives, not with real timings.

/** A clock that advances by what the function last run says it cost. */
function fakeClock() {
  const clock = { t: 0, now: () => clock.t };
  return clock;
}

function candidates(cost: { wasm: number; js: number }, clock: { t: number }) {
  const ran: string[] = [];
  const make = (which: "wasm" | "js") => (x: unknown) => {
    ran.push(which);
    clock.t += cost[which];
    return [which, x];
  };
  return { ran, wasm: make("wasm"), js: make("js") };
}

test("alternates from wasm, then keeps the faster for good", () => {
  for (const [cost, winner] of [
    [{ wasm: 1, js: 3 }, "wasm"],
    [{ wasm: 5, js: 2 }, "js"],
  ] as const) {
    const clock = fakeClock();
    const { ran, wasm, js } = candidates(cost, clock);
    const before = { ...backendChoices };
    const f = adaptiveBackend(wasm, js, clock);
    for (let i = 0; i < 40; i++) assert.deepEqual(f(i), [ran[ran.length - 1], i]);
    // 3 warm-up calls and 5 timed calls of each, alternating, wasm first; then the winner.
    assert.deepEqual(
      ran.slice(0, 16),
      [...Array(16).keys()].map((i) => (i % 2 ? "js" : "wasm")),
    );
    assert.deepEqual(new Set(ran.slice(16)), new Set([winner]));
    assert.equal(backendChoices[winner] - before[winner], 1);
  }
});

test("a slow warm-up and one slow timed call do not decide", () => {
  const clock = fakeClock();
  let call = 0;
  const ran: string[] = [];
  // Wasm is faster, but its first calls (compiling) and one later call (a pause) are slow.
  const wasm = () => {
    ran.push("wasm");
    call++;
    clock.t += call <= 3 || call === 9 ? 100 : 1;
  };
  const js = () => {
    ran.push("js");
    call++;
    clock.t += 2;
  };
  const f = adaptiveBackend(wasm, js, clock);
  for (let i = 0; i < 30; i++) f();
  assert.deepEqual(new Set(ran.slice(16)), new Set(["wasm"]));
});

test("an operator call with backend 'auto' gives JavaScript's results whichever runs", async () => {
  const m = await loadProgram<{
    gJs: (a: Float64Array, b: Float64Array) => Float64Array[];
    gAuto: (a: Float64Array, b: Float64Array) => Float64Array[];
    backendChoices: { wasm: number; js: number };
  }>({
    "main.ts": `import { gradient } from "nabla";
export { backendChoices } from "nabla";
function energy(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.sin(a[i]) * b[i] + a[i] * a[i] * b[i];
  return s;
}
export const gJs = gradient(energy);
export const gAuto = gradient(energy, { backend: "auto" });
`,
  });
  const before = m.backendChoices.wasm + m.backendChoices.js;
  for (let k = 0; k < 40; k++) {
    const a = Float64Array.from({ length: 50 }, (_, i) => Math.cos(i + k));
    const b = Float64Array.from({ length: 50 }, (_, i) => 1 / (i + 1 + k));
    assert.deepEqual(m.gAuto(a, b), m.gJs(a, b));
  }
  assert.equal(m.backendChoices.wasm + m.backendChoices.js - before, 1, "one choice made");
});
