/**
 * EVM account resources: create, read, list, rename/attach a policy, import
 * and export. Keys are real secp256k1 keys from the injected randomness.
 */
import { bytesToHex } from "viem";
import { evmAddressOf, generateEvmPrivateKey, isValidEvmPrivateKey } from "../../crypto/evm.js";
import { openImportEnvelope, sealExportEnvelope } from "../../crypto/rsaEnvelope.js";
import { apiError } from "../../errors/catalogue.js";
import { paginatePages } from "../shared/pagination.js";
import { policiesAfter } from "../policies/attach.js";
import type { Handler, HandlerContext } from "../types.js";
import { assertEvmNameFree, evmAccounts, evmAccountView, findEvmAccount, findEvmAccountByName, type EvmAccountRecord } from "../records/evmAccounts.js";

function addAccount(ctx: HandlerContext, privateKey: `0x${string}`, body: { name?: string; accountPolicy?: string }): EvmAccountRecord {
  assertEvmNameFree(ctx.store, body.name);
  const policies = policiesAfter(ctx.store, body.accountPolicy, []);
  const address = evmAddressOf(privateKey);
  if (evmAccounts(ctx.store).get(address.toLowerCase())) throw apiError("already_exists", `EVM account ${address} already exists in this project.`);
  const now = ctx.clock.iso();
  const record: EvmAccountRecord = {
    address,
    privateKey,
    ...(body.name !== undefined ? { name: body.name } : {}),
    policies,
    createdAt: now,
    updatedAt: now,
  };
  evmAccounts(ctx.store).put(address.toLowerCase(), record);
  return record;
}

export const createEvmAccount: Handler<"createEvmAccount"> = (req, ctx) => {
  const record = addAccount(ctx, generateEvmPrivateKey(ctx.random), req.body);
  return { status: 201, body: evmAccountView(record) };
};

export const getEvmAccount: Handler<"getEvmAccount"> = (req, ctx) => ({ status: 200, body: evmAccountView(findEvmAccount(ctx.store, req.pathParams.address)) });

export const getEvmAccountByName: Handler<"getEvmAccountByName"> = (req, ctx) => ({
  status: 200,
  body: evmAccountView(findEvmAccountByName(ctx.store, req.pathParams.name)),
});

export const listEvmAccounts: Handler<"listEvmAccounts"> = (req, ctx) => {
  const page = paginatePages((offset, size) => evmAccounts(ctx.store).page(offset, size), req.query, "evm-accounts");
  return { status: 200, body: { accounts: page.items.map(evmAccountView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

export const updateEvmAccount: Handler<"updateEvmAccount"> = (req, ctx) => {
  const record = findEvmAccount(ctx.store, req.pathParams.address);
  const body = req.body;
  if (body.name !== undefined) {
    assertEvmNameFree(ctx.store, body.name, record.address);
    record.name = body.name;
  }
  record.policies = policiesAfter(ctx.store, body.accountPolicy, record.policies);
  record.updatedAt = ctx.clock.iso();
  evmAccounts(ctx.store).put(record.address.toLowerCase(), record);
  return { status: 200, body: evmAccountView(record) };
};

export const importEvmAccount: Handler<"importEvmAccount"> = (req, ctx) =>
  importEvmAccountKey(ctx, openImportEnvelope(ctx.keys.importKey, req.body.encryptedPrivateKey), req.body);

/**
 * What importEvmAccount does once the envelope is open: an init file's keys are in the clear already, and sealing
 * then opening each under RSA cost ~2 ms an account.
 */
export function importEvmAccountKey(ctx: HandlerContext, raw: Uint8Array, body: { name?: string; accountPolicy?: string }) {
  if (!isValidEvmPrivateKey(raw)) {
    throw apiError("invalid_request", `The decrypted key is ${raw.length} bytes; an EVM private key is 32 bytes and a valid secp256k1 scalar.`);
  }
  const record = addAccount(ctx, bytesToHex(raw), body);
  return { status: 201 as const, body: evmAccountView(record) };
}

function exportKey(record: EvmAccountRecord, exportEncryptionKey: string) {
  return { status: 200 as const, body: { encryptedPrivateKey: sealExportEnvelope(exportEncryptionKey, Buffer.from(record.privateKey.slice(2), "hex")) } };
}

export const exportEvmAccount: Handler<"exportEvmAccount"> = (req, ctx) =>
  exportKey(findEvmAccount(ctx.store, req.pathParams.address), req.body.exportEncryptionKey);

export const exportEvmAccountByName: Handler<"exportEvmAccountByName"> = (req, ctx) =>
  exportKey(findEvmAccountByName(ctx.store, req.pathParams.name), req.body.exportEncryptionKey);
