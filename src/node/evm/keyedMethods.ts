/**
 * The methods of a node that holds keys: `eth_accounts`, `eth_sendTransaction` and the signing methods, for the dev
 * accounts (`devAccounts.ts`) and, for sends only, the accounts a test impersonates (the node holds no key for those,
 * so it can move their funds but cannot sign for them). A dev account's send is signed and then sent as any raw
 * transaction is (`eth_sendRawTransaction`), so it meets the same checks; an impersonated one skips the signature
 * only. Without dev accounts `eth_accounts` is empty and a send from an unknown account is refused, as a node
 * without keys answers.
 */
import { type Hex, keccak256, serializeTransaction, type TypedDataDefinition } from "viem";
import { applyTransaction } from "../../chain/evm/executeTransaction.js";
import { type EvmTransactionInput, GAS_PRICE_WEI } from "../../chain/evm/ledger.js";
import { nextNonce, setNextNonce } from "../../chain/evm/nonces.js";
import { CHAIN_CONTRACTS } from "../../products/sandboxContracts.js";
import { ApiError } from "../../errors/catalogue.js";
import { RpcError, type RpcMethod } from "../jsonRpc.js";
import type { EvmNodeContext } from "./context.js";
import type { DevAccounts } from "./devAccounts.js";
import { addressParam, dataParam, quantityParam } from "./params.js";
import { isImpersonated } from "./testMethods.js";
import { eth_estimateGas, eth_sendRawTransaction } from "./transactions.js";

export interface KeyedNodeContext extends EvmNodeContext {
  devAccounts: DevAccounts;
}

type KeyedMethod = RpcMethod<KeyedNodeContext>;

const unknownAccount = (address: string) =>
  new RpcError(-32000, `unknown account ${address}: the node holds keys only for its dev accounts (--dev-accounts N) and sends for impersonated ones`);

function signer(ctx: KeyedNodeContext, address: string) {
  const account = ctx.devAccounts.get(address.toLowerCase());
  if (account) return account;
  if (isImpersonated(ctx.store, address))
    throw new RpcError(-32000, `${address} is impersonated: the node sends for it (eth_sendTransaction) but holds no key to sign with`);
  throw unknownAccount(address);
}

const accounts: KeyedMethod = (_params, ctx) => [...ctx.devAccounts.values()].map((a) => a.address);

/** A field of the transaction object: absent, or what `read` accepts (-32602 naming it otherwise). */
function field<T>(request: Record<string, unknown>, name: string, read: (method: string, params: unknown[], index: number) => T): T | undefined {
  const value = request[name];
  if (value === undefined || value === null) return undefined;
  try {
    return read("eth_sendTransaction", [value], 0);
  } catch (error) {
    throw new RpcError(-32602, (error as Error).message.replace("params[0]", `params[0].${name}`));
  }
}

async function sendTransaction(params: unknown[], ctx: KeyedNodeContext): Promise<Hex> {
  const request = params[0];
  if (!request || typeof request !== "object" || Array.isArray(request))
    throw new RpcError(-32602, "invalid params of eth_sendTransaction: params[0] must be a transaction object with from");
  const tx = request as Record<string, unknown>;
  const from = field(tx, "from", addressParam);
  if (!from) throw new RpcError(-32602, "invalid params of eth_sendTransaction: params[0].from must be a 0x-prefixed 20-byte address");
  const to = field(tx, "to", addressParam) ?? null;
  const value = field(tx, "value", quantityParam) ?? 0n;
  const data = field(tx, "data", dataParam) ?? field(tx, "input", dataParam) ?? "0x";
  const key = ctx.devAccounts.get(from.toLowerCase());
  if (!key && !isImpersonated(ctx.store, from)) throw unknownAccount(from);
  const nonce = Number(field(tx, "nonce", quantityParam) ?? BigInt(nextNonce(ctx.store, ctx.network, from)));
  const gas =
    field(tx, "gas", quantityParam) ??
    BigInt((await eth_estimateGas([{ from, ...(to ? { to } : {}), value: `0x${value.toString(16)}`, data }], ctx)) as string);
  const fields = { chainId: ctx.chainId, type: "eip1559" as const, to, value, data, gas, nonce, maxFeePerGas: GAS_PRICE_WEI, maxPriorityFeePerGas: 0n };
  if (key) return eth_sendRawTransaction([await key.signTransaction(fields)], ctx);
  return sendImpersonated(ctx, from, fields);
}

/** An impersonated account's send: the raw send's ledger work without a signature (its hash covers the sender). */
async function sendImpersonated(
  ctx: KeyedNodeContext,
  from: `0x${string}`,
  fields: { to: `0x${string}` | null; value: bigint; data: Hex; gas: bigint; nonce: number },
): Promise<Hex> {
  const expected = nextNonce(ctx.store, ctx.network, from);
  if (fields.nonce < expected) throw new RpcError(-32000, `nonce too low: next nonce of ${from} is ${expected}`);
  const unsigned = serializeTransaction({ ...fields, to: fields.to ?? undefined, chainId: ctx.chainId, type: "eip1559", maxFeePerGas: GAS_PRICE_WEI });
  const hash = keccak256(`${unsigned}${from.slice(2)}`);
  const input: EvmTransactionInput = {
    hash,
    network: ctx.network,
    chainId: ctx.chainId,
    from,
    to: fields.to,
    value: fields.value,
    input: fields.data,
    nonce: fields.nonce,
    gas: fields.gas,
    type: "eip1559",
  };
  try {
    await applyTransaction(ctx.store, ctx.clock, input, CHAIN_CONTRACTS);
  } catch (error) {
    if (error instanceof ApiError) throw new RpcError(-32000, `insufficient funds for gas * price + value: ${error.message}`);
    throw error;
  }
  setNextNonce(ctx.store, ctx.network, from, fields.nonce + 1);
  return hash;
}

/** A message as wallets pass it: 0x hex bytes, or text (which MetaMask also accepts). */
const messageOf = (value: unknown, method: string, index: number) => {
  if (typeof value !== "string") throw new RpcError(-32602, `invalid params of ${method}: params[${index}] must be the message as 0x hex or text`);
  return /^0x(?:[0-9a-fA-F]{2})*$/.test(value) ? { raw: value as Hex } : value;
};

/** `personal_sign [message, address]`: EIP-191. */
const personalSign: KeyedMethod = (params, ctx) =>
  signer(ctx, addressParam("personal_sign", params, 1)).signMessage({ message: messageOf(params[0], "personal_sign", 0) });

/** `eth_sign [address, message]`: EIP-191 too, as geth signs it. */
const ethSign: KeyedMethod = (params, ctx) => signer(ctx, addressParam("eth_sign", params, 0)).signMessage({ message: messageOf(params[1], "eth_sign", 1) });

/** `eth_signTypedData_v4 [address, typedData]`, the typed data as a JSON string (as wallets send it) or an object. */
const signTypedData: KeyedMethod = async (params, ctx) => {
  const account = signer(ctx, addressParam("eth_signTypedData_v4", params, 0));
  let typed: unknown = params[1];
  try {
    if (typeof typed === "string") typed = JSON.parse(typed);
  } catch {
    throw new RpcError(-32602, "invalid params of eth_signTypedData_v4: params[1] must be EIP-712 typed data, as JSON text or an object");
  }
  const t = typed as { domain?: unknown; types?: Record<string, unknown>; primaryType?: unknown; message?: unknown } | null;
  if (!t || typeof t !== "object" || !t.types || typeof t.types !== "object" || typeof t.primaryType !== "string" || !t.message)
    throw new RpcError(-32602, "invalid params of eth_signTypedData_v4: params[1] must have types, primaryType, domain and message");
  try {
    return await account.signTypedData({ domain: t.domain ?? {}, types: t.types, primaryType: t.primaryType, message: t.message } as TypedDataDefinition);
  } catch (error) {
    throw new RpcError(-32602, `invalid params of eth_signTypedData_v4: ${(error as Error).message.split("\n")[0]}`);
  }
};

export const evmKeyedMethods: Readonly<Record<string, KeyedMethod>> = {
  eth_accounts: accounts,
  eth_requestAccounts: accounts,
  eth_sendTransaction: sendTransaction,
  personal_sign: personalSign,
  eth_sign: ethSign,
  eth_signTypedData_v4: signTypedData,
  eth_signTypedData: signTypedData,
};
