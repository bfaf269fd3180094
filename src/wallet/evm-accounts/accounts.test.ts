import { constants, generateKeyPairSync, privateDecrypt, publicEncrypt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox, type Credentials } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let other: Credentials;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "evm-accounts" });
  other = await sandbox.createProject("other");
});
afterAll(() => sandbox.close());

const ACCOUNTS = "/platform/v2/evm/accounts";
const create = (body: object = {}, credentials?: Credentials) => call(sandbox, "POST", ACCOUNTS, { body, wallet: true, credentials });

function encryptForImport(rawHex: string): string {
  return publicEncrypt(
    { key: sandbox.importKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" },
    Buffer.from(rawHex.slice(2), "hex"),
  ).toString("base64");
}

describe("EVM accounts", () => {
  it("creates an account with an EIP-55 address, optional name and timestamps", async () => {
    const res = await create({ name: "treasury" });
    expect(res.status).toBe(201);
    expect(res.body.address).toBe(getAddress(res.body.address));
    expect(res.body).toMatchObject({ name: "treasury", policies: [] });
    expect(res.body.createdAt).toEqual(expect.any(String));
    expect(res.body).not.toHaveProperty("privateKey");
  });

  it("refuses a second account with the same name in a project with 409 already_exists, and changes nothing", async () => {
    await create({ name: "dup-name" });
    const before = (await call(sandbox, "GET", `${ACCOUNTS}?pageSize=100`)).body.accounts.length;
    const res = await create({ name: "dup-name" });
    expect(res.status).toBe(409);
    expect(res.body.errorType).toBe("already_exists");
    expect((await call(sandbox, "GET", `${ACCOUNTS}?pageSize=100`)).body.accounts.length).toBe(before);
  });

  it("lets another project use the same name", async () => {
    await create({ name: "shared-name" });
    expect((await create({ name: "shared-name" }, other)).status).toBe(201);
  });

  it("rejects a name that breaks the contract's pattern with 400 naming the field", async () => {
    const res = await create({ name: "-bad name-" });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect(res.body.errorMessage).toMatch(/name/);
  });

  it("gets an account by address in any casing, and by name", async () => {
    const created = (await create({ name: "lookup" })).body;
    const lower = await call(sandbox, "GET", `${ACCOUNTS}/${created.address.toLowerCase()}`);
    expect(lower.status).toBe(200);
    expect(lower.body.address).toBe(created.address);
    const byName = await call(sandbox, "GET", `${ACCOUNTS}/by-name/lookup`);
    expect(byName.body.address).toBe(created.address);
  });

  it("answers 404 not_found for an unknown address or name, and for another project's account", async () => {
    const mine = (await create()).body;
    const unknown = await call(sandbox, "GET", `${ACCOUNTS}/0x${"12".repeat(20)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorType).toBe("not_found");
    expect((await call(sandbox, "GET", `${ACCOUNTS}/by-name/nobody-here`)).status).toBe(404);
    expect((await call(sandbox, "GET", `${ACCOUNTS}/${mine.address}`, { credentials: other })).status).toBe(404);
  });

  it("pages through the list with pageSize and nextPageToken", async () => {
    const fresh = await sandbox.createProject("paging");
    for (let i = 0; i < 5; i++) await create({ name: `page-${i}` }, fresh);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const res = await call(sandbox, "GET", `${ACCOUNTS}?pageSize=2${token ? `&pageToken=${token}` : ""}`, { credentials: fresh });
      expect(res.status).toBe(200);
      seen.push(...res.body.accounts.map((a: { name: string }) => a.name));
      token = res.body.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(["page-0", "page-1", "page-2", "page-3", "page-4"]);
  });

  it("rejects a pageToken that did not come from the list", async () => {
    const res = await call(sandbox, "GET", `${ACCOUNTS}?pageToken=garbage`);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/pageToken/);
  });

  it("renames an account; a taken name is 409", async () => {
    const a = (await create({ name: "rename-a" })).body;
    await create({ name: "rename-b" });
    const renamed = await call(sandbox, "PUT", `${ACCOUNTS}/${a.address}`, { body: { name: "rename-c" }, wallet: true });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe("rename-c");
    const taken = await call(sandbox, "PUT", `${ACCOUNTS}/${a.address}`, { body: { name: "rename-b" }, wallet: true });
    expect(taken.status).toBe(409);
  });

  it("refuses to attach a policy that does not exist", async () => {
    const a = (await create()).body;
    const res = await call(sandbox, "PUT", `${ACCOUNTS}/${a.address}`, { body: { accountPolicy: "11111111-2222-4333-8444-555555555555" }, wallet: true });
    expect(res.status).toBe(404);
    expect(res.body.errorMessage).toMatch(/11111111-2222-4333-8444-555555555555/);
  });
});

describe("import and export", () => {
  it("imports a key encrypted under the sandbox's import key, at the key's own address", async () => {
    const key = generatePrivateKey();
    const res = await call(sandbox, "POST", `${ACCOUNTS}/import`, { body: { encryptedPrivateKey: encryptForImport(key), name: "imported" }, wallet: true });
    expect(res.status).toBe(201);
    expect(res.body.address).toBe(privateKeyToAccount(key).address);
  });

  it("explains how to fix a key it cannot decrypt", async () => {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const foreign = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.alloc(32, 7)).toString("base64");
    const res = await call(sandbox, "POST", `${ACCOUNTS}/import`, { body: { encryptedPrivateKey: foreign }, wallet: true });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/import-key|encryptionPublicKey/);
  });

  it("refuses to import the same key twice", async () => {
    const key = generatePrivateKey();
    await call(sandbox, "POST", `${ACCOUNTS}/import`, { body: { encryptedPrivateKey: encryptForImport(key) }, wallet: true });
    const again = await call(sandbox, "POST", `${ACCOUNTS}/import`, { body: { encryptedPrivateKey: encryptForImport(key) }, wallet: true });
    expect(again.status).toBe(409);
  });

  it("exports the raw key encrypted under the caller's RSA key, by address and by name", async () => {
    const key = generatePrivateKey();
    const imported = (
      await call(sandbox, "POST", `${ACCOUNTS}/import`, { body: { encryptedPrivateKey: encryptForImport(key), name: "exportable" }, wallet: true })
    ).body;
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const exportEncryptionKey = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    for (const path of [`${ACCOUNTS}/${imported.address}/export`, `${ACCOUNTS}/export/by-name/exportable`]) {
      const res = await call(sandbox, "POST", path, { body: { exportEncryptionKey }, wallet: true });
      expect(res.status).toBe(200);
      const raw = privateDecrypt(
        { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" },
        Buffer.from(res.body.encryptedPrivateKey, "base64"),
      );
      expect(`0x${raw.toString("hex")}`).toBe(key);
    }
  });

  it("rejects an export key that is not RSA SPKI", async () => {
    const a = (await create()).body;
    const res = await call(sandbox, "POST", `${ACCOUNTS}/${a.address}/export`, { body: { exportEncryptionKey: "bm90LWEta2V5" }, wallet: true });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/exportEncryptionKey/);
  });
});
