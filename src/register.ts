/**
 * `node --import cdp-sandbox/register app.js`: runs a program written for the
 * production platform against a sandbox, unmodified. Every request the
 * program makes with fetch or node:http/https to the platform's API host, its
 * x402 facilitator or the public JSON-RPC endpoint of a network the sandbox
 * simulates lands on the sandbox named by CDP_SANDBOX_BASE_PATH; the official
 * client's analytics are answered in the process; account imports encrypt
 * with the sandbox's import key; every other host is left alone.
 * `cdp-sandbox run` sets the environment and this hook for its command.
 *
 * It loads only node: built-ins and a few small modules (the layer check keeps
 * it so): about 20 ms of CPU with the environment `cdp-sandbox run` sets
 * (docs/register.md).
 */
import { installFetchRedirect } from "./register/fetch.js";
import { installHttpRedirect } from "./register/http.js";
import { installImportKey } from "./register/importKey.js";
import { completeTarget, targetFromEnv } from "./register/sandbox.js";

const say = (message: string) => process.stderr.write(`cdp-sandbox/register: ${message}\n`);

let target: ReturnType<typeof targetFromEnv>;
try {
  target = targetFromEnv(process.env);
} catch (error) {
  say(`CDP_SANDBOX_BASE_PATH is not a URL (${(error as Error).message}); nothing is redirected.`);
}
if (!target && !process.env.CDP_SANDBOX_BASE_PATH) say("CDP_SANDBOX_BASE_PATH is not set; nothing is redirected.");
if (target) {
  for (const gap of await completeTarget(target, process.env)) say(gap);
  installFetchRedirect(target);
  installHttpRedirect(target);
  if (target.importKeyPem) installImportKey(target.importKeyPem);
}
