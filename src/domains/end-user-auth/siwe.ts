/**
 * Sign-In with Ethereum (EIP-4361): the sandbox writes the message (its nonce
 * and expiry are the flow's), the end user signs it with personal_sign, and
 * the signature is checked against the message's address with viem.
 * The domain must be the page's own (the request's Origin), as the platform
 * asks, so a message made for another site is refused. Smart wallets sign too
 * (ERC-1271, ERC-6492 before deployment), for the wallets the sandbox knows.
 */
import { type Hex, getAddress, hashMessage, isErc6492Signature, isHex, parseErc6492Signature, recoverMessageAddress } from "viem";
import { createSiweMessage } from "viem/siwe";
import { isValidSmartWalletSignature } from "../../crypto/smartWallet.js";
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { smartWalletOwners } from "../evm-smart-accounts/owners.js";
import { walletCreatedBy } from "../evm-smart-accounts/smartWalletFactory.js";
import type { HandlerContext, RequestFacts } from "../types.js";
import { FLOW_TTL_MS, openFlow, signInFlows } from "./flows.js";
import { assertMethodEnabled, projectSettings, signedInUser } from "./project.js";
import { endUserFor, startSession } from "./session.js";

interface SiweInit {
  address: string;
  chainId: number;
  domain: string;
  uri: string;
  statement?: string;
  resources?: string[];
}

export function startSiweFlow(req: RequestFacts, ctx: HandlerContext, projectId: string, init: SiweInit) {
  assertMethodEnabled(projectSettings(projectId, ctx), "siwe");
  const pageOrigin = req.headers.origin;
  if (pageOrigin && pageOrigin !== "null") {
    let host: string | undefined;
    try {
      host = new URL(pageOrigin).host;
    } catch {
      host = undefined;
    }
    if (host !== init.domain) throw apiError("invalid_request", `domain ${init.domain} is not the domain of the requesting page (${pageOrigin}).`);
  }
  const flowId = ctx.random.uuid();
  const nonce = ctx.random.hex(8);
  const expiresAtMs = ctx.clock.now() + FLOW_TTL_MS;
  let message: string;
  try {
    message = createSiweMessage({
      address: getAddress(init.address),
      chainId: init.chainId,
      domain: init.domain,
      uri: init.uri,
      nonce,
      version: "1",
      issuedAt: new Date(ctx.clock.now()),
      expirationTime: new Date(expiresAtMs),
      statement: init.statement,
      resources: init.resources,
    });
  } catch (error) {
    // viem names the field EIP-4361 refuses (a domain or uri that is not one).
    throw apiError("invalid_request", `The Sign-In with Ethereum message cannot be made: ${(error as Error).message.split("\n")[0]}`);
  }
  signInFlows(ctx.store).insert(flowId, {
    flowId,
    kind: "siwe",
    address: getAddress(init.address),
    chainId: init.chainId,
    domain: init.domain,
    uri: init.uri,
    nonce,
    message,
    status: "open",
    createdAt: ctx.clock.iso(),
    expiresAtMs,
    linkToUserId: signedInUser(req.auth),
  });
  return { flowId, message, nonce, expirationTime: new Date(expiresAtMs).toISOString() };
}

/**
 * Whether `signature` is the address's signature of `message`. An ECDSA signature (65 bytes) is recovered with
 * viem; a smart wallet's goes through `smartWalletSignatureValid`, the seam for the sandbox's shared
 * contract-signature verification.
 */
async function siweSignatureValid(tx: ProjectTx, chainId: number, address: string, message: string, signature: Hex): Promise<boolean> {
  if (signature.length === 132 && !isErc6492Signature(signature)) {
    try {
      return (await recoverMessageAddress({ message, signature })) === getAddress(address);
    } catch {
      return false;
    }
  }
  return smartWalletSignatureValid(tx, chainId, getAddress(address), hashMessage(message), signature);
}

/**
 * ERC-1271 / ERC-6492 for the wallets the sandbox knows (Coinbase Smart Wallets: the project's smart accounts, its
 * end users', those its bundler deployed, and undeployed ones whose ERC-6492 wrapper names the factory call), checked
 * as their code checks an owner's replay-safe signature. A contract the sandbox does not know is refused.
 */
function smartWalletSignatureValid(tx: ProjectTx, chainId: number, wallet: `0x${string}`, hash: Hex, signature: Hex): boolean {
  let owners = smartWalletOwners(tx, wallet);
  let inner = signature;
  if (isErc6492Signature(signature)) {
    const { address: factory, data, signature: wrapped } = parseErc6492Signature(signature);
    inner = wrapped;
    if (!owners && factory && data) {
      const created = walletCreatedBy(factory, data);
      if (!("error" in created) && created.address.toLowerCase() === wallet.toLowerCase()) owners = created.owners;
    }
  }
  return owners !== undefined && isValidSmartWalletSignature({ owners, chainId, wallet, hash, signature: inner });
}

export async function verifySiwe(req: RequestFacts, ctx: HandlerContext, projectId: string, body: { flowId: string; signature: string }) {
  projectSettings(projectId, ctx);
  const flow = openFlow(ctx.store, body.flowId, "siwe", ctx.clock.now());
  if (!isHex(body.signature) || !(await siweSignatureValid(ctx.store, flow.chainId, flow.address, flow.message, body.signature))) {
    throw apiError("invalid_signature", `The signature is not ${flow.address}'s signature of the flow's Sign-In with Ethereum message.`);
  }
  const { user, isNew } = endUserFor(ctx.store, ctx, { type: "siwe", address: flow.address }, flow.linkToUserId ?? signedInUser(req.auth));
  signInFlows(ctx.store).put(flow.flowId, { ...flow, status: "verified" });
  const session = await startSession(req, ctx, user);
  return { status: 200 as const, body: { ...session.body, isNewEndUser: isNew, message: "Signed in." }, headers: session.headers };
}
