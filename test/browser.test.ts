import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchChromium, SKIP_WITHOUT_BROWSER } from "./support/chromium.js";
import { build, createLogger } from "vite";
import nabla from "../src/plugin/index.js";

// examples/curve-fit end to end: Vite builds the app with its own vite.config.ts (which loads
// nabla's plugin as `nabla/plugin`), a static server serves the build, and headless Chromium
// plays with it the way a person would — watching the loss the page shows fall, reading the
// canvases' pixels, dragging a point with the mouse, adding and removing points. Without a
// Chromium the test is skipped, or fails when NABLA_REQUIRE_BROWSER=1.

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const APP = join(REPO_ROOT, "examples/curve-fit");
const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".map": "application/json",
};

/** Serves the files of `dir` on a free port of 127.0.0.1. */
async function serve(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
    const file = resolve(dir, `.${path.endsWith("/") ? `${path}index.html` : path}`);
    const notFound = () => response.writeHead(404).end("not found");
    if (!file.startsWith(dir + sep)) {
      notFound();
      return;
    }
    readFile(file).then((body) => {
      const type = CONTENT_TYPES[extname(file)] ?? "application/octet-stream";
      response.writeHead(200, { "content-type": type }).end(body);
    }, notFound);
  });
  await new Promise<void>((listening, failed) => {
    server.once("error", failed);
    server.listen(0, "127.0.0.1", listening);
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

/** What the page shows in its readout. */
interface Shown {
  /** The whole readout, "step N · loss X". */
  status: string;
  step: number;
  loss: number;
  /** "training", "paused" or "fitted". */
  state: string;
  count: number;
}

async function shown(page: Page): Promise<Shown> {
  return page.evaluate(() => {
    const text = (id: string) =>
      (document.querySelector(`[data-testid="${id}"]`)?.textContent ?? "")
        .replace(/\s+/g, " ")
        .trim();
    return {
      status: text("status"),
      step: Number(text("step")),
      loss: Number(text("loss")),
      state: text("state"),
      count: Number(text("count")),
    };
  });
}

/** Polls the readout until `done` holds of it; fails with what the page shows at the timeout. */
async function waitFor(
  page: Page,
  what: string,
  done: (shown: Shown) => boolean,
  timeout = 10_000,
): Promise<Shown> {
  const start = Date.now();
  for (;;) {
    const now = await shown(page);
    if (done(now)) return now;
    if (Date.now() - start > timeout) {
      assert.fail(`waited ${timeout} ms for ${what}; the page shows ${JSON.stringify(now)}`);
    }
    await page.waitForTimeout(20);
  }
}

type Rgb = [number, number, number];

/** A colour of style.css (a custom property such as --curve), as the canvas paints it. */
async function cssColor(page: Page, property: string): Promise<Rgb> {
  return page.evaluate((property) => {
    const value = getComputedStyle(document.documentElement).getPropertyValue(property);
    // A canvas normalizes any CSS colour ("#fff", "rgb(…)") to "#rrggbb".
    const context = document.createElement("canvas").getContext("2d")!;
    context.fillStyle = value.trim();
    const hex = String(context.fillStyle);
    return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
  }, property);
}

/** Counts the pixels of a canvas near `color`, and those not near `background`. */
async function pixels(page: Page, canvasId: string, color: Rgb, background: Rgb) {
  return page.evaluate(
    ({ canvasId, color, background }) => {
      const canvas = document.getElementById(canvasId) as HTMLCanvasElement;
      const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
      const near = (i: number, [r, g, b]: number[]) =>
        Math.abs(data[i]! - r!) + Math.abs(data[i + 1]! - g!) + Math.abs(data[i + 2]! - b!) < 48;
      let colored = 0;
      let drawn = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (near(i, color)) colored++;
        if (!near(i, background)) drawn++;
      }
      return { colored, drawn };
    },
    { canvasId, color, background },
  );
}

/** The mean row of the pixels near `color` in one column of the plot (CSS pixels), or NaN. */
async function curveRow(page: Page, column: number, color: Rgb): Promise<number> {
  return page.evaluate(
    ({ column, color: [r, g, b] }) => {
      const canvas = document.getElementById("plot") as HTMLCanvasElement;
      const scale = canvas.width / canvas.clientWidth;
      const { data } = canvas
        .getContext("2d")!
        .getImageData(Math.round(column * scale), 0, 1, canvas.height);
      let sum = 0;
      let count = 0;
      for (let row = 0; row < canvas.height; row++) {
        const i = 4 * row;
        if (Math.abs(data[i]! - r) + Math.abs(data[i + 1]! - g) + Math.abs(data[i + 2]! - b) < 48) {
          sum += row;
          count++;
        }
      }
      return sum / count / scale;
    },
    { column, color },
  );
}

/** The colour of the plot at a point of the viewport. */
async function colorAt(page: Page, x: number, y: number): Promise<Rgb> {
  return page.evaluate(
    ({ x, y }) => {
      const canvas = document.getElementById("plot") as HTMLCanvasElement;
      const rect = canvas.getBoundingClientRect();
      const scale = canvas.width / rect.width;
      const column = Math.round((x - rect.left) * scale);
      const row = Math.round((y - rect.top) * scale);
      const [r, g, b] = canvas.getContext("2d")!.getImageData(column, row, 1, 1).data;
      return [r!, g!, b!] as Rgb;
    },
    { x, y },
  );
}

interface Position {
  x: number;
  y: number;
}

/** The app's test hook (examples/curve-fit/main.ts): the points, and where they are on screen. */
async function points(page: Page): Promise<{ data: Position[]; onScreen: Position[] }> {
  return page.evaluate(() => {
    const hook = (
      window as unknown as { __curveFit: { points(): Position[]; pointPositions(): Position[] } }
    ).__curveFit;
    return { data: hook.points(), onScreen: hook.pointPositions() };
  });
}

const STATUS = /^step \d+ · loss \d\.\d\de[-+]\d+$/;

/** The part of the app's test hook (examples/curve-fit/main.ts) about training. */
interface TrainingHook {
  fitted: boolean;
  step: number;
  loss: number;
  wasmCalls(): { wasm: number; javascript: number };
}

/**
 * Builds the app into `outDir` with its own vite.config.ts, or with the same config but
 * `nabla.vite({ backend: "wasm" })`; returns the build's warnings (nabla's diagnostics would be
 * warnings).
 */
async function buildApp(outDir: string, backend?: "wasm"): Promise<string[]> {
  const logger = createLogger("warn");
  const warnings: string[] = [];
  logger.warn = (message) => void warnings.push(message);
  logger.warnOnce = logger.warn;
  const config = backend
    ? { configFile: false as const, base: "./", plugins: [nabla.vite({ backend })] }
    : { configFile: join(APP, "vite.config.ts") };
  await build({
    root: APP,
    ...config,
    logLevel: "warn",
    customLogger: logger,
    build: { outDir, emptyOutDir: true },
  });
  return warnings;
}

test(
  "examples/curve-fit fits points live in headless Chromium, and follows a dragged point",
  { skip: SKIP_WITHOUT_BROWSER, timeout: 90_000 },
  async (t) => {
    const outDir = mkdtempSync(join(tmpdir(), "nabla-curve-fit-"));
    let browser: Browser | undefined;
    let server: Server | undefined;
    try {
      // The app's own config, as `vite examples/curve-fit` uses it.
      const warnings = await buildApp(outDir);
      assert.deepEqual(warnings, [], "the build has no warnings");

      const served = await serve(outDir);
      server = served.server;
      browser = await launchChromium();
      const page = await browser.newPage({
        viewport: { width: 1200, height: 800 },
        deviceScaleFactor: 1,
      });
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`console: ${message.text()}`);
      });
      page.on("pageerror", (error) => errors.push(`page error: ${error.stack ?? error.message}`));
      await page.goto(served.url);
      const [background, curve, point, lossLine] = await Promise.all(
        ["--plot-bg", "--curve", "--point", "--loss"].map((name) => cssColor(page, name)),
      );

      await t.test("the loss shown falls below 1e-3 within 300 steps", async () => {
        const first = await waitFor(page, "the first steps", (s) => s.step > 0);
        assert.match(first.status, STATUS);
        assert.equal(first.count, 8);
        const later = await waitFor(
          page,
          "300 steps",
          (s) => s.step >= 300 || s.state === "fitted",
        );
        assert.match(later.status, STATUS);
        assert.ok(later.loss < 1e-3, `loss ${later.loss} at step ${later.step}`);
      });

      await t.test("the canvases show the curve, the points and the loss", async () => {
        const plot = await pixels(page, "plot", curve!, background!);
        // A 3 px curve across a canvas 760 px wide; grid lines, residuals and points besides.
        assert.ok(plot.colored > 1500, `${plot.colored} pixels of the curve`);
        assert.ok(plot.drawn > plot.colored + 2000, `${plot.drawn} pixels drawn`);
        const dots = await pixels(page, "plot", point!, background!);
        assert.ok(dots.colored > 8 * 80, `${dots.colored} pixels of the points`);
        const loss = await pixels(page, "loss-plot", lossLine!, background!);
        assert.ok(loss.colored > 100, `${loss.colored} pixels of the loss curve`);
      });

      await t.test("a click on empty space adds a point; a double-click removes it", async () => {
        const box = (await page.getByTestId("plot").boundingBox())!;
        // Bottom right of the plot: no point there.
        const x = box.x + box.width * 0.8;
        const y = box.y + box.height * 0.85;
        await page.mouse.click(x, y);
        await waitFor(page, "9 points", (s) => s.count === 9);
        const added = (await points(page)).onScreen[8]!;
        assert.ok(Math.hypot(added.x - x, added.y - y) < 1.5, "the point is where it was clicked");
        assert.deepEqual(await colorAt(page, x, y), point, "and it is drawn there");
        await page.mouse.dblclick(x, y);
        await waitFor(page, "8 points again", (s) => s.count === 8);
      });

      await t.test("dragging a point makes the loss jump, and training fits it again", async () => {
        await waitFor(page, "the fit of the 8 points", (s) => s.loss < 1e-4);
        // Paused, the curve stays put while the point moves, so the jump is there to read.
        await page.getByTestId("pause").click();
        const before = await waitFor(page, "the pause", (s) => s.state === "paused");
        assert.equal(await page.getByTestId("pause").textContent(), "Resume");

        const { data, onScreen } = await points(page);
        const from = onScreen[3]!;
        const to = { x: from.x, y: from.y + 150 };
        // Two columns of the plot beside the point (the point hides the curve at its own x).
        const box = (await page.getByTestId("plot").boundingBox())!;
        const columns = [from.x - box.x - 15, from.x - box.x + 15];
        const rowsBefore = await Promise.all(columns.map((c) => curveRow(page, c, curve!)));
        await page.mouse.move(from.x, from.y);
        await page.mouse.down();
        await page.mouse.move(to.x, to.y, { steps: 10 });
        await page.mouse.up();

        const jumped = await waitFor(page, "the loss to jump", (s) => s.loss > 1e-2);
        assert.equal(jumped.step, before.step, "no training while paused");
        assert.ok(jumped.loss > 100 * before.loss, `loss ${before.loss} → ${jumped.loss}`);
        const moved = (await points(page)).data[3]!;
        assert.ok(Math.abs(moved.x - data[3]!.x) < 1e-6, `x stays ${data[3]!.x}: ${moved.x}`);
        assert.ok(moved.y < data[3]!.y - 0.5, `the point moved down: ${data[3]!.y} → ${moved.y}`);
        assert.deepEqual(
          await colorAt(page, to.x, to.y),
          point,
          "the point is drawn where dropped",
        );

        await page.getByTestId("pause").click();
        const refit = await waitFor(
          page,
          "the loss to fall again",
          (s) => (s.state === "fitted" || s.step >= before.step + 300) && s.loss < 1e-3,
        );
        assert.ok(refit.step > before.step, "trained again");
        assert.match(refit.status, STATUS);
        // The curve followed the point: beside it, it moved down most of the 150 px.
        const rowsAfter = await Promise.all(columns.map((c) => curveRow(page, c, curve!)));
        for (const [k, column] of columns.entries()) {
          const shift = rowsAfter[k]! - rowsBefore[k]!;
          assert.ok(shift > 100, `the curve at column ${column} moved ${shift} px down`);
        }
      });

      await t.test("Reset starts again from new weights", async () => {
        if ((await shown(page)).state === "paused") await page.getByTestId("pause").click();
        const before = await shown(page);
        await page.getByTestId("reset").click();
        await waitFor(page, "the step count to restart", (s) => s.step < before.step);
        await waitFor(page, "the new fit", (s) => s.loss < 1e-3);
      });

      await t.test("no console errors and no page errors", () => {
        assert.deepEqual(errors, []);
      });

      // CURVE_FIT_SCREENSHOT=/tmp/curve-fit.png keeps a picture of the page as the test left it.
      if (process.env.CURVE_FIT_SCREENSHOT) {
        await page.screenshot({ path: process.env.CURVE_FIT_SCREENSHOT });
      }
    } finally {
      await browser?.close();
      if (server) {
        server.closeAllConnections();
        await new Promise((closed) => server!.close(closed));
      }
      rmSync(outDir, { recursive: true, force: true });
    }
  },
);

test(
  'examples/curve-fit built with nabla.vite({ backend: "wasm" }): every gradient runs in wasm, and the fit is the JavaScript build\'s to the bit',
  { skip: SKIP_WITHOUT_BROWSER, timeout: 90_000 },
  async (t) => {
    const outDir = mkdtempSync(join(tmpdir(), "nabla-curve-fit-"));
    let browser: Browser | undefined;
    let server: Server | undefined;
    try {
      assert.deepEqual(await buildApp(join(outDir, "js")), []);
      assert.deepEqual(await buildApp(join(outDir, "wasm"), "wasm"), []);
      const served = await serve(outDir);
      server = served.server;
      browser = await launchChromium();
      /** Training from the same weights on the same points stops at the same step. */
      const fit = async (build: "js" | "wasm") => {
        const page = await browser!.newPage({ viewport: { width: 1200, height: 800 } });
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        page.on("console", (message) => {
          if (message.type() === "error") errors.push(message.text());
        });
        await page.goto(`${served.url}${build}/`);
        const state = () =>
          page.evaluate(() => {
            const hook = (window as unknown as { __curveFit: TrainingHook }).__curveFit;
            return {
              fitted: hook.fitted,
              step: hook.step,
              loss: hook.loss,
              calls: hook.wasmCalls(),
            };
          });
        const start = Date.now();
        let fitted = await state();
        while (!fitted.fitted) {
          assert.ok(
            Date.now() - start < 60_000,
            `not fitted after 60 s: ${JSON.stringify(fitted)}`,
          );
          await page.waitForTimeout(50);
          fitted = await state();
        }
        assert.deepEqual(errors, [], `the ${build} build's page has no errors`);
        await page.close();
        return fitted;
      };
      const js = await fit("js");
      const wasm = await fit("wasm");
      assert.deepEqual(js.calls, { wasm: 0, javascript: 0 });
      assert.deepEqual(wasm.calls, { wasm: wasm.step, javascript: 0 }, "every step's gradient");
      assert.ok(js.step > 100, `fitted at step ${js.step}`);
      assert.equal(wasm.step, js.step, "fitted at the same step");
      assert.ok(Object.is(wasm.loss, js.loss), `loss ${wasm.loss}, JavaScript ${js.loss}`);
      t.diagnostic(`both fitted at step ${js.step}, loss ${js.loss}`);
    } finally {
      await browser?.close();
      if (server) {
        server.closeAllConnections();
        await new Promise((closed) => server!.close(closed));
      }
      rmSync(outDir, { recursive: true, force: true });
    }
  },
);
