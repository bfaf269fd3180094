/**
 * Runs once before the tests of the `shared` project (vitest.config.ts). The browser tests (test/ui) need a
 * Chromium binary: without one, a developer's `npm test` skips them and says here, once, how to run them; with
 * CI=true a missing browser fails the run, so CI never passes with them skipped.
 */
import { browserFound, CHROMIUM } from "./ui/browser.js";

export default function setup(): void {
  if (browserFound) return;
  const how = `no Chromium at ${CHROMIUM}: \`apt-get install chromium\`, or set CHROMIUM_PATH to a Chromium or Chrome binary`;
  if (process.env.CI === "true" || process.env.CI === "1") throw new Error(`CI=true and the browser tests cannot run: ${how}`);
  console.log(`browser tests (test/ui) skipped: ${how}, to run them`);
}
