import { statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { chromium, type Browser } from "playwright-core";

// The system's Chromium for end-to-end tests. Without one, browser tests are skipped, or fail
// when NABLA_REQUIRE_BROWSER=1 (as CI sets it).

export const INSTALL_HINT =
  "no Chromium found: install it (apt-get install chromium) or set CHROMIUM_PATH to its executable";

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** CHROMIUM_PATH, else /usr/bin/chromium, else `chromium` on the PATH. */
function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (isFile("/usr/bin/chromium")) return "/usr/bin/chromium";
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && isFile(join(dir, "chromium"))) return join(dir, "chromium");
  }
  return undefined;
}

export const CHROMIUM = findChromium();
export const REQUIRED = process.env.NABLA_REQUIRE_BROWSER === "1";

/** The `skip` option of a browser test. */
export const SKIP_WITHOUT_BROWSER: string | false = !CHROMIUM && !REQUIRED ? INSTALL_HINT : false;

/** Headless Chromium; fails the test when there is none. */
export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) assert(`${INSTALL_HINT} (NABLA_REQUIRE_BROWSER=1: it may not be skipped)`);
  if (!isFile(CHROMIUM!)) assert(`Chromium executable ${CHROMIUM} does not exist`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Chromium's sandbox does not run as root (containers, CI).
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
}

function assert(message: string): never {
  throw new Error(message);
}
