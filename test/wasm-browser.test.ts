import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";
import type { Browser, Page } from "playwright-core";
import nabla from "../src/plugin/index.js";
import { launchChromium, SKIP_WITHOUT_BROWSER } from "./support/chromium.js";
import { loadProgram, writeProgram } from "./support/harness.js";

// The WebAssembly backend on a browser's main thread, with a module well over 4 KB: the
// gradient of GradBench's gmm objective (gradbench/evals/gmm.ts, about 10 KB of wasm), bundled
// by esbuild with nabla's plugin and run in headless Chromium, every call compared to the
// JavaScript backend's gradient to the bit.
//
// Chromium compiles such a module synchronously (since Chrome 114 up to 8 MB). Chrome before
// 114, and the Electron and WebView builds on it, refused `new WebAssembly.Module` and
// `new WebAssembly.Instance` on the main thread for modules over 4 KB: one test puts that
// policy back in the page (REFUSE_OVER_4KB) and checks that the calls run as JavaScript only
// until the asynchronous compilation is done, then in wasm. A Content-Security-Policy without
// 'wasm-unsafe-eval' refuses compilation for real, synchronous and asynchronous: JavaScript
// for good, with the same results.

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

const MAIN = `import { gradient, wasmStats } from "nabla";
import { gmmObjective, type GmmParams } from "./gmm.js";

/** A pseudo-random generator (a Lehmer one): the same data on every run. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647 - 0.5;
}

const next = random(7);
const k = 3;
const d = 4;
const rows = (count: number, length: number) =>
  Array.from({ length: count }, () => Float64Array.from({ length }, next));
const params: GmmParams = {
  alpha: Float64Array.from({ length: k }, next),
  mu: rows(k, d),
  q: rows(k, d),
  l: rows(k, (d * (d - 1)) / 2),
};
let x = rows(20, d);
const wishart = { gamma: 1, m: 0 };

const inJs = gradient(gmmObjective, { wrt: 0 });
const inWasm = gradient(gmmObjective, { wrt: 0, backend: "wasm" });

function numbers(g: GmmParams): number[] {
  return [g.alpha, ...g.mu, ...g.q, ...g.l].flatMap((row) => [...row]);
}

/** One step: both gradients, then the means move a little (as an optimizer would move them). */
function step() {
  const js = numbers(inJs(params, x, wishart));
  const wasm = numbers(inWasm(params, x, wishart));
  for (const row of params.mu) for (let t = 0; t < d; t++) row[t] += 1e-3 * js[k + t];
  const same = js.length === wasm.length && js.every((v, i) => Object.is(v, wasm[i]));
  return { same, first: [js[0], wasm[0]], stats: { ...wasmStats } };
}

/** More points: the calls need a larger memory (arguments and tape) from then on. */
function grow() {
  x = rows(3000, d);
}

(globalThis as unknown as { gmm: unknown }).gmm = { step, grow };
`;

/** Chrome's main-thread policy before Chrome 114: no synchronous compilation over 4 KB. */
const REFUSE_OVER_4KB = () => {
  const LIMIT = 4096;
  const { Module, Instance, compile, instantiate } = WebAssembly;
  const large = new WeakSet<WebAssembly.Module>();
  const refused: number[] = [];
  (globalThis as unknown as { refused: number[] }).refused = refused;
  const sizeOf = (bytes: BufferSource) => bytes.byteLength;
  const refuse = (what: string, size: number): never => {
    refused.push(size);
    throw new RangeError(
      `WebAssembly.${what} is disallowed on the main thread, if the buffer size is larger than 4KB.`,
    );
  };
  const remember = (module: WebAssembly.Module, size: number) => {
    if (size > LIMIT) large.add(module);
    return module;
  };
  function RefusingModule(bytes: BufferSource) {
    if (sizeOf(bytes) > LIMIT) refuse("Compile", sizeOf(bytes));
    return new Module(bytes);
  }
  function RefusingInstance(module: WebAssembly.Module, imports?: WebAssembly.Imports) {
    if (large.has(module)) refuse("Instance", -1);
    return new Instance(module, imports);
  }
  RefusingModule.prototype = Module.prototype;
  RefusingInstance.prototype = Instance.prototype;
  Object.assign(WebAssembly, {
    Module: RefusingModule,
    Instance: RefusingInstance,
    compile: (bytes: BufferSource) =>
      compile(bytes).then((module) => remember(module, sizeOf(bytes))),
    instantiate: (source: BufferSource | WebAssembly.Module, imports?: WebAssembly.Imports) =>
      source instanceof Module
        ? instantiate(source, imports)
        : instantiate(source, imports).then((both) => {
            remember(both.module, sizeOf(source));
            return both;
          }),
  });
};

interface Step {
  same: boolean;
  first: [number, number];
  stats: {
    wasm: number;
    javascript: number;
    instances: number;
    inPlace: number;
    memories: number;
    ownExp: number;
    ownTrig: number;
  };
}

const step = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { gmm: { step(): Step } }).gmm.step());

/** Steps until `done` holds, each result checked against JavaScript's; the last step. */
async function stepUntil(page: Page, what: string, done: (now: Step) => boolean): Promise<Step> {
  // Each step is a round trip to the page, so its event loop runs in between.
  for (let i = 0; ; i++) {
    const now = await step(page);
    assert.ok(now.same, `step ${i}: wasm ${now.first[1]}, JavaScript ${now.first[0]}`);
    if (done(now)) return now;
    assert.ok(i < 500, `${what}: not after ${i} steps (${JSON.stringify(now.stats)})`);
  }
}

/**
 * The bundle in a fresh page: `head` goes into the page's <head>, `before` runs before the
 * bundle. Fails on page errors.
 */
async function openBundle(
  browser: Browser,
  bundle: string,
  options: { head?: string; before?: () => void } = {},
) {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.setContent(
    `<!doctype html><html><head>${options.head ?? ""}</head><body></body></html>`,
  );
  if (options.before) await page.evaluate(options.before);
  await page.addScriptTag({ content: bundle, type: "module" });
  await page.waitForFunction(() => "gmm" in globalThis, undefined, { timeout: 30_000 });
  return { page, errors };
}

test(
  "in headless Chromium's main thread, a 10 KB wasm module: wasm with JavaScript's gradients, compiled asynchronously where synchronous compilation is refused",
  { skip: SKIP_WITHOUT_BROWSER, timeout: 120_000 },
  async (t) => {
    const dir = writeProgram({
      "gmm.ts": readFileSync(join(REPO_ROOT, "gradbench/evals/gmm.ts"), "utf8"),
      "main.ts": MAIN,
    });
    const out = join(dir, "bundle.js");
    await esbuild({
      entryPoints: [join(dir, "main.ts")],
      bundle: true,
      format: "esm",
      platform: "browser",
      outfile: out,
      logLevel: "silent",
      plugins: [nabla.esbuild()],
    });
    const bundle = readFileSync(out, "utf8");
    const browser = await launchChromium();
    try {
      await t.test("Chromium compiles it synchronously: the first call runs in wasm", async () => {
        const { page, errors } = await openBundle(browser, bundle);
        for (let i = 0; i < 5; i++) {
          const now = await step(page);
          assert.ok(now.same, `step ${i}: wasm ${now.first[1]}, JavaScript ${now.first[0]}`);
          assert.deepEqual(now.stats, {
            wasm: i + 1,
            javascript: 0,
            instances: 1,
            inPlace: 0,
            memories: 1,
            ownExp: 1,
            // (This Chromium computes sin and cos as fdlibm does, so the module's own are used.)
            ownTrig: 1,
          });
        }
        assert.deepEqual(errors, []);
        await page.close();
      });

      await t.test(
        "refused synchronously (Chrome before 114): JavaScript until the asynchronous compilation is done, then wasm",
        async () => {
          const { page, errors } = await openBundle(browser, bundle, { before: REFUSE_OVER_4KB });
          const first = await step(page);
          assert.ok(first.same);
          assert.deepEqual(first.stats, {
            wasm: 0,
            javascript: 1,
            instances: 0,
            inPlace: 0,
            // Made for the asynchronous instance.
            memories: 1,
            ownExp: 0,
            ownTrig: 0,
          });
          const refused = await page.evaluate(
            () => (globalThis as unknown as { refused: number[] }).refused,
          );
          assert.equal(refused.length, 1, "one synchronous compilation refused");
          assert.ok(refused[0]! > 8000, `the module has ${refused[0]} bytes`);
          let now = await stepUntil(page, "a call in wasm", (s) => s.stats.wasm > 0);
          const ranAsJs = now.stats.javascript;
          for (let i = 0; i < 20; i++) now = await stepUntil(page, "", () => true);
          assert.equal(now.stats.javascript, ranAsJs, "once in wasm, every call runs in wasm");
          assert.equal(now.stats.instances, 1);

          // Larger arguments need a larger instance, made asynchronously too.
          await page.evaluate(() =>
            (globalThis as unknown as { gmm: { grow(): void } }).gmm.grow(),
          );
          const before = now.stats;
          now = await stepUntil(
            page,
            "a call in wasm on the larger memory",
            (s) => s.stats.wasm > before.wasm,
          );
          assert.ok(now.stats.instances > 1, `${now.stats.instances} instances`);
          const ranAsJsAgain = now.stats.javascript - before.javascript;
          const settled = now.stats;
          for (let i = 0; i < 5; i++) now = await stepUntil(page, "", () => true);
          assert.deepEqual(now.stats, { ...settled, wasm: settled.wasm + 5 });
          assert.equal(
            (await page.evaluate(() => (globalThis as unknown as { refused: number[] }).refused))
              .length,
            1,
            "no synchronous compilation or instantiation tried again",
          );
          assert.deepEqual(errors, []);
          t.diagnostic(
            `JavaScript calls while compiling: ${ranAsJs}; while making the larger instance(s): ${ranAsJsAgain}`,
          );
          await page.close();
        },
      );

      await t.test(
        "a Content-Security-Policy without 'wasm-unsafe-eval': JavaScript for good, same results",
        async () => {
          const { page, errors } = await openBundle(browser, bundle, {
            head: `<meta http-equiv="Content-Security-Policy" content="script-src 'unsafe-inline'">`,
          });
          let now = await step(page);
          for (let i = 0; i < 30; i++) {
            await page.waitForTimeout(5);
            now = await step(page);
            assert.ok(now.same);
          }
          assert.deepEqual(now.stats, {
            wasm: 0,
            javascript: 31,
            instances: 0,
            inPlace: 0,
            memories: 1,
            ownExp: 0,
            ownTrig: 0,
          });
          assert.deepEqual(errors, []);
          await page.close();
        },
      );
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test("where synchronous compilation is refused (emulated in Node), calls run as JavaScript until the asynchronous one is done, and in wasm from then on", async () => {
  const m = await loadProgram<{
    step(): { same: boolean; first: number[]; stats: Step["stats"] };
    grow(): void;
  }>({
    "gmm.ts": readFileSync(join(REPO_ROOT, "gradbench/evals/gmm.ts"), "utf8"),
    "main.ts": MAIN.replace(
      "(globalThis as unknown as { gmm: unknown }).gmm = { step, grow };",
      "export { step, grow };",
    ),
  });
  const { Module } = WebAssembly;
  const refused: number[] = [];
  WebAssembly.Module = function (bytes: BufferSource) {
    refused.push(bytes.byteLength);
    throw new RangeError("WebAssembly.Compile is disallowed on the main thread");
  } as unknown as typeof WebAssembly.Module;
  try {
    const first = m.step();
    assert.ok(first.same);
    // (Memories made are counted for the whole process, which other tests' programs share.)
    assert.deepEqual(
      { ...first.stats, memories: 0 },
      {
        wasm: 0,
        javascript: 1,
        instances: 0,
        inPlace: 0,
        memories: 0,
        ownExp: 0,
        ownTrig: 0,
      },
    );
    const before = first.stats;
    let now = m.step();
    for (let i = 0; now.stats.wasm === before.wasm; i++) {
      assert.ok(i < 100, "the asynchronous compilation never finished");
      await new Promise((resolve) => setTimeout(resolve, 10));
      now = m.step();
      assert.ok(now.same);
    }
    const settled = now.stats;
    for (let i = 0; i < 5; i++) now = m.step();
    assert.ok(now.same);
    assert.deepEqual(now.stats, { ...settled, wasm: settled.wasm + 5 });
    assert.equal(refused.length, 1, "synchronous compilation is tried once");
  } finally {
    WebAssembly.Module = Module;
  }
});
