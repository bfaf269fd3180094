import { generateKeyPairSync } from "node:crypto";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { beginWalletSignatureCheck, createJtiRegistry, verifyWalletAuth } from "./walletToken.js";

describe("the wallet tokens' jti registry", () => {
  it("refuses a jti again for as long as its token is accepted", () => {
    const jtis = createJtiRegistry();
    expect(jtis.claim("a", 1_000, 1_090)).toBe(true);
    expect(jtis.claim("a", 1_000, 1_090)).toBe(false);
    expect(jtis.claim("a", 1_090, 1_180)).toBe(false); // the token's last second
    expect(jtis.claim("b", 1_089, 1_179)).toBe(true);
  });

  it("forgets the jtis of tokens no longer accepted, so it holds one token lifetime of them whatever the rate", () => {
    const jtis = createJtiRegistry();
    for (let i = 0; i < 5_000; i++) jtis.claim(`old-${i}`, 1_000, 1_090);
    expect(jtis.size).toBe(5_000);
    expect(jtis.claim("new", 1_091, 1_181)).toBe(true);
    expect(jtis.size).toBe(1);
  });
});

describe("a wallet token's signature checked early", () => {
  const target = { method: "POST", host: "sandbox.test", path: "/platform/v2/evm/accounts" };
  const now = Math.floor(Date.now() / 1000);
  const signer = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const stranger = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const mint = (privateKey: typeof signer.privateKey, jti: string) =>
    new SignJWT({ uris: [`POST ${target.host}${target.path}`] }).setProtectedHeader({ alg: "ES256", typ: "JWT" }).setIssuedAt(now).setJti(jti).sign(privateKey);

  it("accepts the token it was begun for", async () => {
    const token = await mint(signer.privateKey, "early-1");
    const early = beginWalletSignatureCheck(token, signer.publicKey);
    await expect(verifyWalletAuth(token, target, undefined, signer.publicKey, createJtiRegistry(), { nowSeconds: now, early })).resolves.toBeUndefined();
  });

  it("is not taken for another token or another key: those are checked themselves", async () => {
    const good = await mint(signer.privateKey, "early-2");
    const forged = await mint(stranger.privateKey, "early-3");
    // An early answer of true for another token, and for this token under another key, must not let the forgery in.
    const forOther = { ...beginWalletSignatureCheck(good, signer.publicKey)!, valid: Promise.resolve(true) };
    const forOtherKey = { ...beginWalletSignatureCheck(forged, stranger.publicKey)!, valid: Promise.resolve(true) };
    for (const early of [forOther, forOtherKey]) {
      await expect(verifyWalletAuth(forged, target, undefined, signer.publicKey, createJtiRegistry(), { nowSeconds: now, early })).rejects.toThrow(
        /bad signature/,
      );
    }
  });

  it("is not begun for a token refused before its signature is looked at", () => {
    expect(beginWalletSignatureCheck("not.a-token", signer.publicKey)).toBeUndefined();
  });
});
