/** Custom authentication over HTTP: the developer's JWT checked against a JWKS served on this machine. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { endUserCount } from "#test/helpers/embeddedWallets.js";

let sandbox: Sandbox;
let projectId: string;
const auth = (p: string) => `/platform/v2/embedded-wallet-api/projects/${projectId}/auth/${p}`;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "end-user-sign-in-custom", validateResponses: true });
  projectId = sandbox.credentials.projectId;
});
afterAll(() => sandbox.close());

describe("custom authentication with a JWKS served on this machine", () => {
  it("verifies the developer's JWT with keys fetched from a loopback URL, and refuses another audience or a remote URL", async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256" }] };
    const idp = createServer((_req, res) => res.setHeader("content-type", "application/json").end(JSON.stringify(jwks)));
    await new Promise<void>((resolve) => idp.listen(0, "127.0.0.1", resolve));
    const jwksUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/.well-known/jwks.json`;
    try {
      const configure = (customAuth: object) =>
        request(sandbox.url)
          .patch(`/_sandbox/projects/${projectId}`)
          .send({ settings: { embeddedWallets: { customAuth } } });
      const jwt = (audience: string) =>
        new SignJWT({})
          .setProtectedHeader({ alg: "RS256", kid: "k1" })
          .setIssuer("https://idp.example")
          .setAudience(audience)
          .setSubject("dev-user-1")
          .setExpirationTime(Math.floor(sandbox.clock.now() / 1000) + 300)
          .sign(privateKey);
      const authenticate = async (audience: string) =>
        request(sandbox.url)
          .post(auth("custom/authenticate"))
          .set("authorization", `Bearer ${await jwt(audience)}`);
      await configure({ jwksUrl, issuer: "https://idp.example", audience: "shop" });
      const before = await endUserCount(sandbox);
      expect((await authenticate("another-app")).status).toBe(401);
      expect(await endUserCount(sandbox)).toBe(before);
      const ok = await authenticate("shop");
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ isNewEndUser: true, endUser: { authenticationMethods: [{ type: "jwt", kid: "k1", sub: "dev-user-1" }] } });
      await configure({ jwksUrl: "https://idp.example/jwks.json", issuer: "https://idp.example", audience: "shop" });
      expect((await authenticate("shop")).status).toBe(401);
    } finally {
      idp.close();
      await request(sandbox.url)
        .patch(`/_sandbox/projects/${projectId}`)
        .send({ settings: { embeddedWallets: {} } });
    }
  });
});
