/**
 * Sign-In with Ethereum (EIP-4361): the sandbox writes the message (its nonce
 * and expiry are the flow's), the end user signs it with personal_sign, and
 * the signature is checked against the message's address with viem.
 * The domain must be the page's own (the request's Origin), as the platform
 * asks, so a message made for another site is refused. Smart wallets sign too
 * (ERC-1271, ERC-6492 before deployment): the sandbox's own and bytecode accounts on the message's chain.
 */
import { type Hex, getAddress, hashMessage, isErc6492Signature, isHex } from "viem";
import { createSiweMessage } from "viem/siwe";
import { networkOfChainId } from "../../chain/evm/index.js";
import { isValidSmartWalletSignature } from "../../crypto/smartWallet.js";
import { apiError } from "../../errors/catalogue.js";
import { smartWalletOwners } from "../evm-smart-accounts/owners.js";
import { checkEvmSignature, type SignatureChain, signatureChain } from "../evm-smart-accounts/evmSignatures.js";
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
  const nonce = ctx.random.secrets().hex(8);
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

/** The chain a SIWE message names: a sandbox network (with its bytecode accounts), else that chain id with nothing deployed. */
function siweChain(ctx: HandlerContext, chainId: number): SignatureChain {
  const network = networkOfChainId(chainId);
  return network ? signatureChain(ctx, network) : { store: ctx.store, clock: ctx.clock, network: `eip155:${chainId}`, chainId };
}

/**
 * Whether `signature` is the address's EIP-191 signature of `message`, by the platform's one check
 * (`checkEvmSignature`): ECDSA, ERC-1271 (the sandbox's smart wallets and any bytecode account on the message's
 * chain) or ERC-6492 before deployment.
 *
 * One leniency: a Coinbase Smart Wallet the project knows (its own or an end user's) that is not deployed on the
 * message's chain is still asked as if it were, with its known owners — the platform's smart accounts sign in before
 * their first user operation deploys them.
 */
async function siweSignatureValid(ctx: HandlerContext, chainId: number, address: string, message: string, signature: Hex): Promise<boolean> {
  const wallet = getAddress(address);
  if ((await checkEvmSignature(siweChain(ctx, chainId), wallet, { message }, signature)).valid) return true;
  const owners = isErc6492Signature(signature) ? undefined : smartWalletOwners(ctx.store, wallet);
  return owners !== undefined && isValidSmartWalletSignature({ owners, chainId, wallet, hash: hashMessage(message), signature });
}

export async function verifySiwe(req: RequestFacts, ctx: HandlerContext, projectId: string, body: { flowId: string; signature: string }) {
  projectSettings(projectId, ctx);
  const flow = openFlow(ctx.store, body.flowId, "siwe", ctx.clock.now());
  if (!isHex(body.signature) || !(await siweSignatureValid(ctx, flow.chainId, flow.address, flow.message, body.signature))) {
    throw apiError("invalid_signature", `The signature is not ${flow.address}'s signature of the flow's Sign-In with Ethereum message.`);
  }
  const { user, isNew } = endUserFor(ctx.store, ctx, { type: "siwe", address: flow.address }, flow.linkToUserId ?? signedInUser(req.auth));
  signInFlows(ctx.store).put(flow.flowId, { ...flow, status: "verified" });
  const session = await startSession(req, ctx, user);
  return { status: 200 as const, body: { ...session.body, isNewEndUser: isNew, message: "Signed in." }, headers: session.headers };
}
