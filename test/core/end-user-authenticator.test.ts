/**
 * The pipeline asks one end-user authenticator both questions about an end user's request: whom the bearer token
 * signs in, and the key of the Temporary Wallet Secret that signed X-Wallet-Auth. Given another one, the sandbox
 * takes both answers from it and none from its own tokens.
 */
import { generateKeyPairSync } from "node:crypto";
import { verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, withSandbox, type EndUserSession } from "#test/helpers/sandbox.js";

const EW = "/platform/v2/embedded-wallet-api/end-users";
const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const walletSecret = privateKey.export({ type: "pkcs8", format: "der" }).toString("base64");

let sandbox: Sandbox;
/** Who the stand-in signs in with the token "stand-in", once the end user exists. */
let signedIn: { projectId: string; endUserId: string } | undefined;
const asked: string[] = [];
let evm: `0x${string}`;

beforeAll(async () => {
  sandbox = await withSandbox({
    endUserAuth: {
      authenticate: async (token) => {
        asked.push(`token ${token}`);
        return token === "stand-in" ? signedIn : undefined;
      },
      walletKey: (projectId, endUserId, walletSecretId) => {
        asked.push(`wallet secret ${walletSecretId} of ${endUserId} in ${projectId === signedIn?.projectId ? "their project" : projectId}`);
        return walletSecretId === "stand-in-secret" ? { key: publicKey } : { problem: `The stand-in does not know ${walletSecretId}.` };
      },
    },
  });
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId: "alice", authenticationMethods: [{ type: "email", email: "alice@example.com" }] },
    wallet: true,
  });
  expect(created.status).toBe(201);
  evm = created.body.evmAccounts[0];
  signedIn = { projectId: sandbox.exportState().projects?.find((p) => p.default)?.id as string, endUserId: "alice" };
});
afterAll(() => sandbox.close());

const session = (o: Partial<EndUserSession> = {}): EndUserSession => ({
  userId: "alice",
  accessToken: "stand-in",
  walletSecretId: "stand-in-secret",
  walletSecret,
  ...o,
});
const signAs = (endUser: EndUserSession) => call(sandbox, "POST", `${EW}/alice/evm/sign/message`, { body: { address: evm, message: "gm" }, endUser });

describe("an end-user authenticator given to startSandbox", () => {
  it("signs the end user in and checks their X-Wallet-Auth: the message is signed by their account", async () => {
    asked.length = 0;
    const res = await signAs(session());
    expect(res.status).toBe(200);
    expect(await verifyMessage({ address: evm, message: "gm", signature: res.body.signature })).toBe(true);
    expect(asked).toEqual(["token stand-in", "wallet secret stand-in-secret of alice in their project"]);
  });

  it("refuses with 401, giving its reason, a wallet secret it does not know", async () => {
    const res = await signAs(session({ walletSecretId: "revoked" }));
    expect([res.status, res.body.errorType, res.body.errorMessage]).toEqual([401, "unauthorized", "The stand-in does not know revoked."]);
  });

  it("replaces the sandbox's own tokens: one the sandbox issued signs no one in", async () => {
    const issued = await endUserSession(sandbox, "alice");
    asked.length = 0;
    const res = await signAs(issued);
    expect([res.status, res.body.errorType]).toEqual([401, "unauthorized"]);
    expect(asked).toEqual([`token ${issued.accessToken}`]);
  });
});
