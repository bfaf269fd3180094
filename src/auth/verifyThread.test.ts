import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { createRequire } from "node:module";
import { SignJWT, CompactSign } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_THREAD_KEYS, VerifyThread, sodiumPath, verifyNow, type SignatureAlg } from "./verifyThread.js";

const ed = generateKeyPairSync("ed25519");
const p256 = generateKeyPairSync("ec", { namedCurve: "P-256" });
const otherP256 = generateKeyPairSync("ec", { namedCurve: "P-256" });

/** A token signed by jose (an independent signer), split into what is signed and the signature. */
async function token(alg: SignatureAlg, key: KeyObject, payload: Record<string, unknown>) {
  const jwt = await new SignJWT(payload).setProtectedHeader({ alg }).sign(key);
  const dot = jwt.lastIndexOf(".");
  return { signingInput: jwt.slice(0, dot), signature: jwt.slice(dot + 1) };
}

/** Flips one bit of a base64url signature's first byte. */
function tampered(signature: string): string {
  const bytes = Buffer.from(signature, "base64url");
  bytes[0] ^= 1;
  return bytes.toString("base64url");
}

const thread = new VerifyThread();
afterAll(() => thread.close());

describe("signature checks off the event loop", () => {
  it("accepts EdDSA and ES256 tokens signed by jose and refuses tampered ones", async () => {
    const e = await token("EdDSA", ed.privateKey, { sub: "k" });
    const s = await token("ES256", p256.privateKey, { sub: "k" });
    expect(await thread.check("EdDSA", ed.publicKey, e.signingInput, e.signature)).toBe(true);
    expect(await thread.check("ES256", p256.publicKey, s.signingInput, s.signature)).toBe(true);
    expect(await thread.check("EdDSA", ed.publicKey, e.signingInput, tampered(e.signature))).toBe(false);
    expect(await thread.check("ES256", p256.publicKey, s.signingInput, tampered(s.signature))).toBe(false);
    expect(await thread.check("ES256", p256.publicKey, `${s.signingInput}x`, s.signature)).toBe(false);
  });

  it("refuses a signature under another key, a key of another type and a signature of the wrong size", async () => {
    const s = await token("ES256", p256.privateKey, { n: 1 });
    expect(await thread.check("ES256", otherP256.publicKey, s.signingInput, s.signature)).toBe(false);
    expect(await thread.check("ES256", ed.publicKey, s.signingInput, s.signature)).toBe(false);
    expect(await thread.check("EdDSA", p256.publicKey, s.signingInput, s.signature)).toBe(false);
    const der = Buffer.concat([Buffer.from(s.signature, "base64url"), Buffer.from([0])]).toString("base64url");
    expect(await thread.check("ES256", p256.publicKey, s.signingInput, der)).toBe(false);
    expect(await thread.check("EdDSA", ed.publicKey, s.signingInput, "")).toBe(false);
  });

  it("answers many concurrent checks, each with its own result", async () => {
    const signed = await Promise.all(
      Array.from({ length: 120 }, async (_, i) => {
        const alg: SignatureAlg = i % 2 ? "EdDSA" : "ES256";
        const pair = alg === "EdDSA" ? ed : p256;
        const t = await token(alg, pair.privateKey, { i });
        const valid = i % 3 !== 0;
        return { alg, key: pair.publicKey, ...t, signature: valid ? t.signature : tampered(t.signature), valid };
      }),
    );
    const results = await Promise.all(signed.map((t) => thread.check(t.alg, t.key, t.signingInput, t.signature)));
    expect(results).toEqual(signed.map((t) => t.valid));
  });

  it("still answers the checks in flight when the thread stops, and starts a new thread for later ones", async () => {
    const good = await token("EdDSA", ed.privateKey, { late: true });
    const inFlight = Array.from({ length: 30 }, (_, i) =>
      thread.check("EdDSA", ed.publicKey, good.signingInput, i % 2 ? good.signature : tampered(good.signature)),
    );
    await thread.close();
    expect(await Promise.all(inFlight)).toEqual(Array.from({ length: 30 }, (_, i) => i % 2 === 1));
    expect(await thread.check("EdDSA", ed.publicKey, good.signingInput, good.signature)).toBe(true);
  });

  it("checks the same way on the event loop", async () => {
    const s = await token("ES256", p256.privateKey, { x: "ü" });
    expect(verifyNow("ES256", p256.publicKey, s.signingInput, s.signature)).toBe(true);
    expect(verifyNow("ES256", p256.publicKey, s.signingInput, tampered(s.signature))).toBe(false);
    const payload = new TextEncoder().encode("raw");
    const jws = await new CompactSign(payload).setProtectedHeader({ alg: "EdDSA" }).sign(ed.privateKey);
    const dot = jws.lastIndexOf(".");
    expect(verifyNow("EdDSA", ed.publicKey, jws.slice(0, dot), jws.slice(dot + 1))).toBe(true);
  });

  it("has libsodium's binding for Ed25519 on this platform, agreeing with jose", async () => {
    const path = sodiumPath();
    expect(path).toBeDefined();
    const sodium = createRequire(import.meta.url)(path!) as { crypto_sign_verify_detached(sig: Buffer, msg: Buffer, pk: Buffer): boolean };
    const e = await token("EdDSA", ed.privateKey, { sodium: true });
    const raw = ed.publicKey.export({ format: "der", type: "spki" }).subarray(12);
    const input = Buffer.from(e.signingInput, "latin1");
    expect(sodium.crypto_sign_verify_detached(Buffer.from(e.signature, "base64url"), input, raw)).toBe(true);
    expect(sodium.crypto_sign_verify_detached(Buffer.from(tampered(e.signature), "base64url"), input, raw)).toBe(false);
  });

  it("keeps at most MAX_THREAD_KEYS keys on the thread, and still checks with a key it forgot", async () => {
    thread.warm();
    const started = thread.threadsStarted;
    const pairs = Array.from({ length: MAX_THREAD_KEYS + 20 }, () => generateKeyPairSync("ec", { namedCurve: "P-256" }));
    const tokens = await Promise.all(pairs.map((p, i) => token("ES256", p.privateKey, { i })));
    const results = await Promise.all(pairs.map((p, i) => thread.check("ES256", p.publicKey, tokens[i]!.signingInput, tokens[i]!.signature)));
    expect(results.every(Boolean)).toBe(true);
    expect(thread.keysHeld).toBeLessThanOrEqual(MAX_THREAD_KEYS + 1);
    // The first keys were forgotten; using one again sends it again, and the check still holds both ways.
    expect(await thread.check("ES256", pairs[0]!.publicKey, tokens[0]!.signingInput, tokens[0]!.signature)).toBe(true);
    expect(await thread.check("ES256", pairs[0]!.publicKey, tokens[1]!.signingInput, tokens[1]!.signature)).toBe(false);
    // Newest first: every key the thread should still hold is used before any forgotten one comes back.
    const newestFirst = pairs.map((p, i) => ({ key: p.publicKey, ...tokens[i]! })).reverse();
    const again = await Promise.all(newestFirst.map((t) => thread.check("ES256", t.key, t.signingInput, t.signature)));
    expect(again.every(Boolean)).toBe(true);
    // A thread that died on a missing key would have answered through the fallback; the next check would start another.
    expect(await thread.check("ES256", pairs[0]!.publicKey, tokens[0]!.signingInput, tokens[0]!.signature)).toBe(true);
    expect(thread.threadsStarted).toBe(started); // the same thread throughout: no key went missing on it
  }, 30_000);
});
