import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { createLogger, createServer, type ViteDevServer } from "vite";
import nabla from "../src/plugin/index.js";
import { launchChromium, SKIP_WITHOUT_BROWSER } from "./support/chromium.js";

// nabla's plugin in Vite's dev server, in headless Chromium, edited as a person edits: the
// page first uses lib.ts's `mse` plainly; then main.ts is changed to ask for its derivative,
// which nabla emits into lib.ts — a module the server already served. The page must show the
// new result after the edit and after a reload, without restarting the server.

const LIB = `export function mse(a: number, b: number): number {
  const d = a - b;
  return d * d;
}
`;
const PLAIN = `import { mse } from "./lib";
document.querySelector("#out")!.textContent = \`value \${mse(3, 1)}\`;
`;
const WITH_DERIVATIVE = `import { derivative } from "nabla";
import { mse } from "./lib";
const slope = derivative((a: number) => mse(a, 1));
document.querySelector("#out")!.textContent = \`slope \${slope(3)}\`;
`;
const WITH_GRADIENT = `import { gradient } from "nabla";
import { mse } from "./lib";
const g = gradient(mse);
document.querySelector("#out")!.textContent = \`gradient \${g(3, 1).join(" ")}\`;
`;

async function shows(page: Page, text: string): Promise<void> {
  await page.waitForFunction((t) => document.querySelector("#out")?.textContent === t, text, {
    timeout: 15_000,
  });
}

test(
  "Vite's dev server serves new derivatives of modules it served before, after an edit and a reload",
  { skip: SKIP_WITHOUT_BROWSER, timeout: 90_000 },
  async () => {
    const root = mkdtempSync(join(tmpdir(), "nabla-dev-"));
    writeFileSync(join(root, "lib.ts"), LIB);
    writeFileSync(join(root, "main.ts"), PLAIN);
    writeFileSync(
      join(root, "index.html"),
      `<!doctype html><html><body><p id="out">loading</p><script type="module" src="/main.ts"></script></body></html>`,
    );
    const logger = createLogger("warn");
    const warnings: string[] = [];
    logger.warn = (message) => void warnings.push(message);
    logger.warnOnce = logger.warn;
    let server: ViteDevServer | undefined;
    const browser = await launchChromium();
    try {
      server = await createServer({
        root,
        configFile: false,
        customLogger: logger,
        plugins: [nabla.vite()],
        server: { port: 0, host: "127.0.0.1" },
      });
      await server.listen();
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(server.resolvedUrls!.local[0]!);
      await shows(page, "value 4");

      writeFileSync(join(root, "main.ts"), WITH_DERIVATIVE);
      await shows(page, "slope 4");
      await page.reload();
      await shows(page, "slope 4");

      // A second edit asks lib.ts for another derivative (reverse mode this time).
      writeFileSync(join(root, "main.ts"), WITH_GRADIENT);
      await shows(page, "gradient 4 -4");
      await page.reload();
      await shows(page, "gradient 4 -4");

      // And back: lib.ts loses its derivatives, the page still works.
      writeFileSync(join(root, "main.ts"), PLAIN);
      await shows(page, "value 4");

      assert.deepEqual(errors, [], "no page errors");
      assert.deepEqual(warnings, [], "the server logged no warnings");
    } finally {
      await browser.close();
      await server?.close();
      rmSync(root, { recursive: true, force: true });
    }
  },
);
