/**
 * What the end user's client does right after sign-in, on its own access
 * token: read itself, register its Temporary Wallet Secret, and create the
 * accounts `createOnLogin` asks for. Accounts are made as the developer's
 * server makes them (newAccounts.ts) and answered as the whole end user,
 * which the client stores.
 */
import { apiError } from "../../errors/catalogue.js";
import { smartAccountOwners } from "../evm-smart-accounts/accounts.js";
import { endUsers, endUserView, findEndUser } from "../records/endUsers.js";
import { registerTemporaryWalletSecret as registerSecret } from "./walletSecrets.js";
import type { Handler, HandlerContext, RequestAuth } from "../types.js";
import { newEvmAccount, newSmartAccount, newSolanaAccount } from "./newAccounts.js";

/** Up to 10 EVM and 10 Solana accounts per end user (the platform's limit). */
const MAX_ACCOUNTS = 10;
/** A wallet secret lives at most a day, whatever the client asks. */
const MAX_SECRET_LIFETIME_MS = 24 * 3600_000;

/** The end user of the path, who must be the signed-in one: nobody reads or changes another end user. */
function self(auth: RequestAuth, userId: string, ctx: HandlerContext) {
  if (auth.kind !== "endUser" || auth.endUserId !== userId) throw apiError("unauthorized", `The access token is not end user ${userId}'s.`);
  return findEndUser(ctx.store, userId);
}

export const getAuthenticatedEndUser: Handler<"getAuthenticatedEndUser"> = (req, ctx) => ({
  status: 200,
  body: endUserView(self(req.auth, req.pathParams.userId, ctx)),
});

export const registerTemporaryWalletSecret: Handler<"registerTemporaryWalletSecret"> = (req, ctx) => {
  const user = self(req.auth, req.pathParams.userId, ctx);
  const validUntilMs = Date.parse(req.body.validUntil);
  if (!(validUntilMs > ctx.clock.now())) throw apiError("invalid_request", `validUntil ${req.body.validUntil} is not in the future.`);
  const walletSecretId = req.body.walletSecretId ?? ctx.random.uuid();
  const expiresAtMs = Math.min(validUntilMs, ctx.clock.now() + MAX_SECRET_LIFETIME_MS);
  const result = registerSecret(ctx.store, { walletSecretId, userId: user.userId, publicKey: req.body.publicKey, expiresAtMs });
  if (result.problem === "taken") throw apiError("already_exists", `walletSecretId ${walletSecretId} is another end user's.`);
  if (result.problem === "not-p256") throw apiError("invalid_request", "publicKey is not a base64 DER SPKI P-256 public key.");
  return { status: 200, body: { walletSecretId, validUntil: new Date(expiresAtMs).toISOString() } };
};

export const createEndUserEvmAccount: Handler<"createEndUserEvmAccount"> = (req, ctx) => {
  const user = self(req.auth, req.pathParams.userId, ctx);
  if (user.evmAccounts.length >= MAX_ACCOUNTS) throw apiError("invalid_request", `End user ${user.userId} already has ${MAX_ACCOUNTS} EVM accounts.`);
  user.evmAccounts.push(newEvmAccount(ctx));
  endUsers(ctx.store).put(user.userId, user);
  return { status: 201, body: endUserView(user) };
};

export const createEndUserEvmSmartAccount: Handler<"createEndUserEvmSmartAccount"> = (req, ctx) => {
  const user = self(req.auth, req.pathParams.userId, ctx);
  const owner = user.evmAccounts.find((a) => a.address.toLowerCase() === req.body.owner.toLowerCase());
  if (!owner) throw apiError("invalid_request", `${req.body.owner} is not an EVM account of end user ${user.userId}.`);
  const owned = (a: { ownerAddresses: string[] }) => a.ownerAddresses[0]?.toLowerCase() === owner.address.toLowerCase();
  if (user.evmSmartAccounts.some(owned)) throw apiError("already_exists", `${owner.address} already owns a smart account of end user ${user.userId}.`);
  const owners = smartAccountOwners(owner.address, req.body.enableSpendPermissions);
  for (const extra of req.body.additionalOwners ?? []) if (!owners.some((o) => o.toLowerCase() === extra.toLowerCase())) owners.push(extra);
  user.evmSmartAccounts.push(newSmartAccount(ctx, owners, user.evmSmartAccounts.length));
  endUsers(ctx.store).put(user.userId, user);
  return { status: 201, body: endUserView(user) };
};

export const createEndUserSolanaAccount: Handler<"createEndUserSolanaAccount"> = (req, ctx) => {
  const user = self(req.auth, req.pathParams.userId, ctx);
  if (user.solanaAccounts.length >= MAX_ACCOUNTS) throw apiError("invalid_request", `End user ${user.userId} already has ${MAX_ACCOUNTS} Solana accounts.`);
  user.solanaAccounts.push(newSolanaAccount(ctx));
  endUsers(ctx.store).put(user.userId, user);
  return { status: 201, body: endUserView(user) };
};
