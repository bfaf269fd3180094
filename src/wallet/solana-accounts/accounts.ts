/** Solana account resources: create, read, list, update, import (32-byte seed) and export. */
import { generateSolanaKey, solanaKeyFromSeed, type SolanaKey } from "../../crypto/solana.js";
import { openImportEnvelope, sealExportEnvelope } from "../../crypto/rsaEnvelope.js";
import { apiError } from "../../errors/catalogue.js";
import { paginatePages } from "../shared/pagination.js";
import { policiesAfter } from "../policies/attach.js";
import type { Handler, HandlerContext } from "../types.js";
import {
  assertSolanaNameFree,
  findSolanaAccount,
  findSolanaAccountByName,
  solanaAccounts,
  solanaAccountView,
  type SolanaAccountRecord,
} from "../records/solanaAccounts.js";

function addAccount(ctx: HandlerContext, key: SolanaKey, body: { name?: string; accountPolicy?: string }): SolanaAccountRecord {
  assertSolanaNameFree(ctx.store, body.name);
  const policies = policiesAfter(ctx.store, body.accountPolicy, []);
  if (solanaAccounts(ctx.store).get(key.address)) throw apiError("already_exists", `Solana account ${key.address} already exists in this project.`);
  const now = ctx.clock.iso();
  const record: SolanaAccountRecord = {
    address: key.address,
    seedHex: key.seedHex,
    ...(body.name !== undefined ? { name: body.name } : {}),
    policies,
    createdAt: now,
    updatedAt: now,
  };
  solanaAccounts(ctx.store).put(record.address, record);
  return record;
}

export const createSolanaAccount: Handler<"createSolanaAccount"> = (req, ctx) => ({
  status: 201,
  body: solanaAccountView(addAccount(ctx, generateSolanaKey(ctx.random), req.body)),
});

export const getSolanaAccount: Handler<"getSolanaAccount"> = (req, ctx) => ({
  status: 200,
  body: solanaAccountView(findSolanaAccount(ctx.store, req.pathParams.address)),
});

export const getSolanaAccountByName: Handler<"getSolanaAccountByName"> = (req, ctx) => ({
  status: 200,
  body: solanaAccountView(findSolanaAccountByName(ctx.store, req.pathParams.name)),
});

export const listSolanaAccounts: Handler<"listSolanaAccounts"> = (req, ctx) => {
  const page = paginatePages((offset, size) => solanaAccounts(ctx.store).page(offset, size), req.query, "solana-accounts");
  return { status: 200, body: { accounts: page.items.map(solanaAccountView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

export const updateSolanaAccount: Handler<"updateSolanaAccount"> = (req, ctx) => {
  const record = findSolanaAccount(ctx.store, req.pathParams.address);
  const body = req.body;
  if (body.name !== undefined) {
    assertSolanaNameFree(ctx.store, body.name, record.address);
    record.name = body.name;
  }
  record.policies = policiesAfter(ctx.store, body.accountPolicy, record.policies);
  record.updatedAt = ctx.clock.iso();
  solanaAccounts(ctx.store).put(record.address, record);
  return { status: 200, body: solanaAccountView(record) };
};

export const importSolanaAccount: Handler<"importSolanaAccount"> = (req, ctx) =>
  importSolanaAccountKey(ctx, openImportEnvelope(ctx.keys.importKey, req.body.encryptedPrivateKey), req.body);

/** What importSolanaAccount does once the envelope is open (an init file's keys are in the clear already). */
export function importSolanaAccountKey(ctx: HandlerContext, raw: Uint8Array, body: { name?: string; accountPolicy?: string }) {
  // The client sends the 32-byte seed (it truncates 64-byte secret keys); accept the 64-byte form too.
  if (raw.length !== 32 && raw.length !== 64)
    throw apiError("invalid_request", `The decrypted key is ${raw.length} bytes; a Solana private key is a 32-byte seed.`);
  return { status: 201 as const, body: solanaAccountView(addAccount(ctx, solanaKeyFromSeed(raw.subarray(0, 32)), body)) };
}

const exportKey = (record: SolanaAccountRecord, exportEncryptionKey: string) => ({
  status: 200 as const,
  body: { encryptedPrivateKey: sealExportEnvelope(exportEncryptionKey, Buffer.from(record.seedHex, "hex")) },
});

export const exportSolanaAccount: Handler<"exportSolanaAccount"> = (req, ctx) =>
  exportKey(findSolanaAccount(ctx.store, req.pathParams.address), req.body.exportEncryptionKey);

export const exportSolanaAccountByName: Handler<"exportSolanaAccountByName"> = (req, ctx) =>
  exportKey(findSolanaAccountByName(ctx.store, req.pathParams.name), req.body.exportEncryptionKey);
