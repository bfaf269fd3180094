/**
 * End User Account Management: create, import, read, list, look up and add
 * accounts. New accounts are made as sign-in makes them (identity/newAccounts.ts).
 */
import { bytesToHex } from "viem";
import type { Schema } from "../../contract/types.js";
import { evmAccountOf, isValidEvmPrivateKey } from "../../crypto/evm.js";
import { openImportEnvelope } from "../../crypto/rsaEnvelope.js";
import { solanaKeyFromSeed } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import { smartAccountOwners } from "../evm-smart-accounts/accounts.js";
import { newEvmAccount, newSmartAccount as newSmartAccountOf, newSolanaAccount } from "../identity/newAccounts.js";
import { paginatePages } from "../shared/pagination.js";
import type { Handler, HandlerContext } from "../types.js";
import { withMfaMethods } from "./mfa.js";
import { endUsers, endUserView, findEndUser, identityOf, type AuthenticationMethod, type EndUserRecord } from "../records/endUsers.js";

function assertIdentitiesFree(ctx: HandlerContext, methods: AuthenticationMethod[], userId: string) {
  for (const identity of new Set(methods.map(identityOf))) {
    const other = endUsers(ctx.store).findBy("identity", identity);
    if (other && other.userId !== userId) throw apiError("invalid_request", `Another end user (${other.userId}) already signs in with ${identity}.`);
  }
}

/** With spend permissions enabled, the SpendPermissionManager is the second owner, and the address follows the owners. */
const newSmartAccount = (ctx: HandlerContext, owner: string, taken: number, enableSpendPermissions: boolean) =>
  newSmartAccountOf(ctx, smartAccountOwners(owner, enableSpendPermissions), taken);

export const createEndUser: Handler<"createEndUser"> = (req, ctx) => {
  const body = req.body;
  const userId = body.userId ?? ctx.random.uuid();
  if (endUsers(ctx.store).get(userId)) throw apiError("invalid_request", `An end user with userId ${userId} already exists in this project.`);
  assertIdentitiesFree(ctx, body.authenticationMethods, userId);
  const evm = newEvmAccount(ctx);
  const user: EndUserRecord = {
    userId,
    authenticationMethods: body.authenticationMethods,
    evmAccounts: [evm],
    evmSmartAccounts: body.evmAccount?.createSmartAccount ? [newSmartAccount(ctx, evm.address, 0, body.evmAccount.enableSpendPermissions === true)] : [],
    solanaAccounts: body.solanaAccount ? [newSolanaAccount(ctx)] : [],
    createdAt: ctx.clock.iso(),
  };
  endUsers(ctx.store).put(userId, user);
  return { status: 201, body: endUserView(user) };
};

export const importEndUser: Handler<"importEndUser"> = (req, ctx) => {
  const body = req.body;
  if (endUsers(ctx.store).get(body.userId)) throw apiError("already_exists", `An end user with userId ${body.userId} already exists in this project.`);
  assertIdentitiesFree(ctx, body.authenticationMethods, body.userId);
  const raw = openImportEnvelope(ctx.keys.importKey, body.encryptedPrivateKey);
  const now = ctx.clock.iso();
  const user: EndUserRecord = {
    userId: body.userId,
    authenticationMethods: body.authenticationMethods,
    evmAccounts: [],
    evmSmartAccounts: [],
    solanaAccounts: [],
    createdAt: now,
  };
  if (body.keyType === "evm") {
    if (!isValidEvmPrivateKey(raw)) throw apiError("invalid_request", `The decrypted key is ${raw.length} bytes; an EVM private key is 32 bytes.`);
    const privateKey = bytesToHex(raw);
    user.evmAccounts.push({ address: evmAccountOf(privateKey).address, privateKey, createdAt: now });
  } else {
    if (raw.length !== 32 && raw.length !== 64)
      throw apiError("invalid_request", `The decrypted key is ${raw.length} bytes; a Solana private key is a 32-byte seed.`);
    const key = solanaKeyFromSeed(raw.subarray(0, 32));
    user.solanaAccounts.push({ address: key.address, seedHex: key.seedHex, createdAt: now });
  }
  endUsers(ctx.store).put(user.userId, user);
  return { status: 201, body: endUserView(user) };
};

export const getEndUser: Handler<"getEndUser"> = (req, ctx) => ({
  status: 200,
  body: withMfaMethods(ctx.store, endUserView(findEndUser(ctx.store, req.pathParams.userId))),
});

export const listEndUsers: Handler<"listEndUsers"> = (req, ctx) => {
  const sort = [req.query.sort ?? []].flat().flatMap((s) => s.split(","));
  const descending = sort.includes("createdAt=desc");
  // Oldest first (ties by userId), or newest first: the collection keeps that order, so only the page is read.
  const page = paginatePages((offset, size) => endUsers(ctx.store).page(offset, size, { descending }), req.query, `end-users:${descending ? "desc" : "asc"}`);
  return {
    status: 200,
    body: { endUsers: page.items.map((u) => withMfaMethods(ctx.store, endUserView(u))), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) },
  };
};

export const lookupEndUser: Handler<"lookupEndUser"> = (req, ctx) => {
  // The query was checked against the contract: each of these is a single string (a repeated name is refused with 400).
  const q = req.query;
  const wanted: string[] = [];
  if (q.email) wanted.push(identityOf({ type: "email", email: String(q.email) }));
  if (q.phoneNumber) wanted.push(identityOf({ type: "sms", phoneNumber: String(q.phoneNumber) }));
  if (q.siweAddress) wanted.push(identityOf({ type: "siwe", address: String(q.siweAddress) }));
  if (q.oauthProvider || q.oauthSubject) {
    if (!q.oauthProvider || !q.oauthSubject) throw apiError("invalid_request", "oauthProvider and oauthSubject go together.");
    // ...and oauthProvider is one of the contract's providers.
    wanted.push(identityOf({ type: String(q.oauthProvider) as Schema<"OAuth2ProviderType">, sub: String(q.oauthSubject) }));
  }
  if (wanted.length === 0) throw apiError("invalid_request", "Give one of email, phoneNumber, siweAddress, or oauthProvider with oauthSubject.");
  const found = new Map<string, EndUserRecord>();
  for (const identity of wanted) {
    const user = endUsers(ctx.store).findBy("identity", identity);
    if (user) found.set(user.userId, user);
  }
  const matches = [...found.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || (a.userId < b.userId ? -1 : 1));
  return { status: 200, body: { endUsers: matches.map(endUserView) } };
};

export const addEndUserEvmAccount: Handler<"addEndUserEvmAccount"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const account = newEvmAccount(ctx);
  user.evmAccounts.push(account);
  endUsers(ctx.store).put(user.userId, user);
  return { status: 201, body: { evmAccount: { address: account.address, createdAt: account.createdAt } } };
};

export const addEndUserEvmSmartAccount: Handler<"addEndUserEvmSmartAccount"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const owner = user.evmAccounts[0]?.address;
  if (!owner) throw apiError("invalid_request", `End user ${user.userId} has no EVM account to own a smart account; add one first.`);
  const account = newSmartAccount(ctx, owner, user.evmSmartAccounts.length, req.body?.enableSpendPermissions === true);
  user.evmSmartAccounts.push(account);
  endUsers(ctx.store).put(user.userId, user);
  return { status: 201, body: { evmSmartAccount: account } };
};

export const addEndUserSolanaAccount: Handler<"addEndUserSolanaAccount"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  const account = newSolanaAccount(ctx);
  user.solanaAccounts.push(account);
  endUsers(ctx.store).put(user.userId, user);
  return { status: 201, body: { solanaAccount: { address: account.address, createdAt: account.createdAt } } };
};
