/**
 * The dashboard in a real browser: Debian's headless Chromium driven by
 * playwright-core (no browser download), a fresh profile per test file, a
 * 1280×800 window, and a screenshot of each test in test-results/ui/ (not
 * committed). Without a Chromium binary the browser tests are skipped, and
 * test/globalSetup.ts says once how to run them; with CI=true it fails the run
 * instead. `.ci/run` installs chromium when it is missing.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Whether the browser tests can run here: `describe.skipIf(!browserFound)`. */
export const browserFound = existsSync(CHROMIUM);
const SCREENSHOTS = join(process.cwd(), "test-results", "ui");

export interface Browser {
  page: Page;
  /** Writes test-results/ui/<name>.png. */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "cdp-sandbox-ui-"));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    page,
    screenshot: async (name) => {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the dashboard of `sandboxUrl` at a view and waits until it has drawn. */
export async function openDashboard(page: Page, sandboxUrl: string, view = "accounts"): Promise<void> {
  // A fresh load each time: going from one view's URL to another's would only change the hash.
  await page.goto("about:blank");
  await page.goto(`${sandboxUrl}/_sandbox/ui/#/${view}`);
  await page.waitForSelector("body[data-ready=true]");
}
