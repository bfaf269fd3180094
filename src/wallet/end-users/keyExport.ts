/**
 * An end user exports one of their keys: the raw 32-byte secp256k1 key, or the 32-byte ed25519 seed of a Solana
 * account, encrypted with RSA-OAEP-SHA256 under the RSA public key the client made for this export (the same
 * envelope as the server API's export), so only that client can read it. The React kit calls this from its secure
 * iframe (src/admin/exportFrame.ts serves the sandbox's). Needs a recent MFA verification when the user enrolled.
 *
 * Ejection (`eject: true`, which on the platform blocks the account afterwards) is an opt-in the sandbox does not
 * offer: it is refused rather than ignored, so a test never believes an account was ejected.
 */
import { sealExportEnvelope } from "../../crypto/rsaEnvelope.js";
import { apiError } from "../../errors/catalogue.js";
import type { Handler, HandlerContext, RequestFacts } from "../types.js";
import { authorizeAccountUse } from "./delegation.js";
import { findEndUser } from "../records/endUsers.js";

function checkRequest(req: RequestFacts, ctx: HandlerContext, userId: string, address: string, eject: boolean | undefined) {
  if (eject === true) throw apiError("invalid_request", "Account ejection is not enabled in the sandbox; export with eject false or absent.");
  const user = findEndUser(ctx.store, userId);
  authorizeAccountUse(req, ctx, user.userId, address);
  return user;
}

export const exportEndUserEvmAccount: Handler<"exportEndUserEvmAccount"> = (req, ctx) => {
  const { address, exportEncryptionKey, eject } = req.body;
  const user = checkRequest(req, ctx, req.pathParams.userId, address, eject);
  const account = user.evmAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (!account) throw apiError("not_found", `End user ${user.userId} has no EVM account ${address}.`);
  const raw = Buffer.from(account.privateKey.slice(2), "hex");
  return { status: 200, body: { encryptedPrivateKey: sealExportEnvelope(exportEncryptionKey, raw) } };
};

export const exportEndUserSolanaAccount: Handler<"exportEndUserSolanaAccount"> = (req, ctx) => {
  const { address, exportEncryptionKey, eject } = req.body;
  const user = checkRequest(req, ctx, req.pathParams.userId, address, eject);
  const account = user.solanaAccounts.find((a) => a.address === address);
  if (!account) throw apiError("not_found", `End user ${user.userId} has no Solana account ${address}.`);
  return { status: 200, body: { encryptedPrivateKey: sealExportEnvelope(exportEncryptionKey, Buffer.from(account.seedHex, "hex")) } };
};
