/**
 * Delegated signing granted by the end user through @coinbase/cdp-core itself (createDelegation, getDelegation,
 * revokeDelegation), in Node with an in-memory storage shim: the user signs in by email (code read from the inbox),
 * grants the developer a project-wide delegation, and the developer's server then signs for them with
 * @coinbase/cdp-sdk — checked with viem — until the user revokes it.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import request from "supertest";
import { type Hex, recoverMessageAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { installBrowserGlobals } from "#test/helpers/browserGlobals.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

installBrowserGlobals();

type Core = typeof import("@coinbase/cdp-core");
let core: Core;
let sandbox: Sandbox;
let cdp: CdpClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "cdp-core-delegation", validateResponses: true });
  const { projectId } = sandbox.credentials;
  cdp = cdpClientFor(sandbox);
  core = await import("@coinbase/cdp-core");
  await core.initialize({ projectId, basePath: sandbox.basePath, ethereum: { createOnLogin: "eoa" }, disableAnalytics: true });
});
afterAll(async () => {
  await core?.signOut().catch(() => undefined);
  await sandbox.close();
});

async function signIn(email: string) {
  const { flowId } = await core.signInWithEmail({ email });
  const res = await request(sandbox.url).get(`/_sandbox/messages?to=${encodeURIComponent(email)}`);
  const code = (res.body.messages as Array<{ flowId: string; code: string }>).find((m) => m.flowId === flowId)!.code;
  return (await core.verifyEmailOTP({ flowId, otp: code })).user;
}

/**
 * An hour ahead of both clocks: the client itself refuses an expiresAt before its own Date.now(), the sandbox one
 * before its clock.
 */
const inOneHour = () => new Date(Math.max(Date.now(), sandbox.clock.now()) + 3600_000).toISOString();

describe("@coinbase/cdp-core grants the developer delegated signing", () => {
  it("createDelegation lets the developer's server sign for the user until revokeDelegation", async () => {
    const user = await signIn("delegating@example.com");
    const address = user.evmAccountObjects![0]!.address as Hex;
    await expect(cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "too early" })).rejects.toMatchObject({
      statusCode: 403,
      errorType: "delegation_not_found",
    });

    const expiresAt = inOneHour();
    const granted = await core.createDelegation({ expiresAt });
    expect(granted).toEqual({ expiresAt });
    expect(await core.getDelegation()).toEqual({ expiresAt });
    expect((await cdp.endUser.getDelegationForEndUser({ userId: user.userId })).expiresAt).toBe(expiresAt);

    const { signature } = await cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "signed by the developer" });
    expect(await recoverMessageAddress({ message: "signed by the developer", signature: signature as Hex })).toBe(address);

    // One grant at a time: a second is refused and the first stays.
    await expect(core.createDelegation({ expiresAt: inOneHour() })).rejects.toMatchObject({ statusCode: 409, errorType: "already_exists" });
    expect(await core.getDelegation()).toEqual({ expiresAt });

    await core.revokeDelegation();
    await expect(cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "too late" })).rejects.toMatchObject({
      statusCode: 403,
      errorType: "delegation_revoked",
    });
  });
});
