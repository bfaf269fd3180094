/**
 * EVM signing with the account's real key: raw hashes, EIP-191 messages,
 * EIP-712 typed data and serialized transactions (legacy, EIP-2930,
 * EIP-1559, EIP-7702). `sendEvmTransaction` also fills what the client left
 * out (chain id, nonce, gas, fees) and records the signed transaction for the
 * simulated chain.
 */
import { keccak256, parseTransaction, type Hex, type TransactionSerializable } from "viem";
import { applyTransaction, chainIdOf, networkOfChainId, nextNonce, runsBytecode, setNextNonce, submissionRefusal } from "../../chain/evm/index.js";
import { evmAccountOf, isHash32, lowercaseTypedDataAddresses, type TypedDataInput } from "../../crypto/evm.js";
import { apiError } from "../../errors/catalogue.js";
import { enforcePolicies } from "../policies/evaluate.js";
import type { PolicyFacts } from "../policies/facts.js";
import type { Schema } from "../../contract/types.js";
import type { Handler, HandlerContext } from "../types.js";
import { API_KEY_WALLET, emitWalletSend, emitWalletSigned, type WalletActor } from "../events/walletEvents.js";
import { findEvmAccount } from "../records/evmAccounts.js";

/** Parses an unsigned (or signed: the signature is dropped) serialized transaction, or 400 malformed_transaction. */
export function parseUnsignedTransaction(serialized: string): TransactionSerializable {
  if (!/^0x[0-9a-fA-F]+$/.test(serialized)) {
    throw apiError("malformed_transaction", "transaction must be a 0x-prefixed hex string of an RLP-encoded EVM transaction.");
  }
  let parsed: TransactionSerializable & { r?: unknown; s?: unknown; v?: unknown; yParity?: unknown };
  try {
    parsed = parseTransaction(serialized as Hex) as typeof parsed;
  } catch (error) {
    throw apiError("malformed_transaction", `The transaction could not be decoded: ${(error as Error).message.split("\n")[0]}`);
  }
  const { r: _r, s: _s, v: _v, yParity: _y, ...unsigned } = parsed;
  return unsigned as TransactionSerializable;
}

export const signEvmHash: Handler<"signEvmHash"> = async (req, ctx) => {
  const record = findEvmAccount(ctx.store, req.pathParams.address);
  const hash = req.body.hash;
  if (!isHash32(hash)) throw apiError("invalid_request", "hash must be 32 bytes as 0x-prefixed hex (66 characters).");
  enforcePolicies(ctx.store, { operation: "signEvmHash", accountPolicies: record.policies, facts: { kind: "evmHash" } });
  const signature = await evmAccountOf(record.privateKey).sign({ hash });
  emitWalletSigned(ctx, "wallet.hash.signed", record.address, API_KEY_WALLET);
  return { status: 200, body: { signature } };
};

export const signEvmMessage: Handler<"signEvmMessage"> = async (req, ctx) => {
  const record = findEvmAccount(ctx.store, req.pathParams.address);
  const message = req.body.message;
  enforcePolicies(ctx.store, { operation: "signEvmMessage", accountPolicies: record.policies, facts: { kind: "message", message } });
  const signature = await evmAccountOf(record.privateKey).signMessage({ message });
  emitWalletSigned(ctx, "wallet.message.signed", record.address, API_KEY_WALLET);
  return { status: 200, body: { signature } };
};

/**
 * The typed data of a signing request, ready for the policy and the signer: 400 when its
 * primaryType is not among its types; address-typed values in lowercase, so that any
 * 40-hex-digit address signs (whatever its EIP-55 checksum) and criteria compare it as it encodes.
 */
export function readTypedData(body: Schema<"EIP712Message">): TypedDataInput {
  const typed = body as TypedDataInput;
  checkTypedDataSize(typed);
  if (!Object.hasOwn(typed.types, typed.primaryType)) throw apiError("invalid_request", `primaryType ${typed.primaryType} is not defined in types.`);
  return lowercaseTypedDataAddresses(typed);
}

/**
 * Bounds on typed data, which the platform does not state: far beyond any real message (a Permit2 batch or a
 * marketplace order holds tens of values), and small enough to encode in well under a second. Without them a
 * `uint256[100000]` held the event loop for seconds while it was encoded.
 */
const MAX_TYPED_DATA_VALUES = 10_000;
const MAX_TYPED_DATA_FIELDS = 1_000;

/** 400 when the typed data declares more fields, or its message holds more values, than the bounds; before any encoding. */
function checkTypedDataSize(typed: TypedDataInput): void {
  let fields = 0;
  for (const list of Object.values(typed.types ?? {})) fields += Array.isArray(list) ? list.length : 0;
  if (fields > MAX_TYPED_DATA_FIELDS) {
    throw apiError("invalid_request", `typedData.types declares ${fields} fields; the sandbox takes at most ${MAX_TYPED_DATA_FIELDS}.`);
  }
  // Counted with an explicit stack and stopped at the bound: the count itself stays cheap.
  let values = 0;
  const pending: unknown[] = [typed.message, typed.domain];
  while (pending.length > 0) {
    const value = pending.pop();
    if (++values > MAX_TYPED_DATA_VALUES) {
      throw apiError(
        "invalid_request",
        `typedData's message holds more than ${MAX_TYPED_DATA_VALUES} values; the sandbox takes at most ${MAX_TYPED_DATA_VALUES}.`,
      );
    }
    if (Array.isArray(value)) pending.push(...value.slice(0, MAX_TYPED_DATA_VALUES));
    else if (value !== null && typeof value === "object") pending.push(...Object.values(value).slice(0, MAX_TYPED_DATA_VALUES));
  }
}

/** What the typed-data criteria (verifying contract, fields) look at. */
export const typedDataFacts = (typed: TypedDataInput): PolicyFacts => ({ kind: "typedData", ...typed });

/** The EIP-712 signature of `typed` (from readTypedData), or 400 when it cannot be encoded. */
export async function signTypedDataWith(privateKey: Hex, typed: TypedDataInput): Promise<Hex> {
  try {
    // viem types the message from `types` known when compiling; these arrive at run time.
    return await evmAccountOf(privateKey).signTypedData(typed as never);
  } catch (error) {
    throw apiError("invalid_request", `The typed data could not be encoded (EIP-712): ${(error as Error).message.split("\n")[0]}`);
  }
}

export const signEvmTypedData: Handler<"signEvmTypedData"> = async (req, ctx) => {
  const record = findEvmAccount(ctx.store, req.pathParams.address);
  const typed = readTypedData(req.body);
  enforcePolicies(ctx.store, { operation: "signEvmTypedData", accountPolicies: record.policies, facts: typedDataFacts(typed) });
  const signature = await signTypedDataWith(record.privateKey, typed);
  emitWalletSigned(ctx, "wallet.typed_data.signed", record.address, API_KEY_WALLET);
  return { status: 200, body: { signature } };
};

export const signEvmTransaction: Handler<"signEvmTransaction"> = async (req, ctx) => {
  const record = findEvmAccount(ctx.store, req.pathParams.address);
  const tx = parseUnsignedTransaction(req.body.transaction);
  enforcePolicies(ctx.store, { operation: "signEvmTransaction", accountPolicies: record.policies, facts: transactionFacts(tx, networkOfChainId(tx.chainId)) });
  const signedTransaction = await signTransaction(record.privateKey, tx);
  emitWalletSigned(ctx, "wallet.transaction.signed", record.address, API_KEY_WALLET);
  return { status: 200, body: { signedTransaction } };
};

export function transactionFacts(tx: TransactionSerializable, network: string | undefined): PolicyFacts {
  const { to, value, data } = tx as { to?: `0x${string}` | null; value?: bigint; data?: Hex };
  return { kind: "evmTransaction", network, calls: [{ to, value: value ?? 0n, data }] };
}

export async function signTransaction(privateKey: Hex, tx: TransactionSerializable): Promise<Hex> {
  try {
    return await evmAccountOf(privateKey).signTransaction(tx);
  } catch (error) {
    throw apiError("malformed_transaction", `The transaction cannot be signed: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** Defaults for a send: modest fees that any simulated block accepts. */
const DEFAULT_MAX_FEE_PER_GAS = 2_000_000_000n;
const DEFAULT_PRIORITY_FEE = 100_000_000n;

export const sendEvmTransaction: Handler<"sendEvmTransaction"> = async (req, ctx) => {
  const record = findEvmAccount(ctx.store, req.pathParams.address);
  const network = req.body.network;
  const tx = parseUnsignedTransaction(req.body.transaction);
  enforcePolicies(ctx.store, { operation: "sendEvmTransaction", accountPolicies: record.policies, facts: transactionFacts(tx, network) });
  return { status: 200, body: { transactionHash: await signAndSendEvmTransaction(ctx, record, network, tx) } };
};

/**
 * Fills, signs and executes a transaction on the ledger; returns its hash. Emits the
 * send's wallet.transaction.* events for `actor` (walletEvents.ts).
 * The network decides the chain (the official client serializes requests with chainId 1),
 * and RLP cannot tell an omitted field from zero, so zero means "fill it in", as the platform does.
 */
export async function signAndSendEvmTransaction(
  ctx: HandlerContext,
  signer: { address: `0x${string}`; privateKey: Hex },
  network: string,
  tx: TransactionSerializable,
  actor: WalletActor = API_KEY_WALLET,
): Promise<Hex> {
  const chainId = chainIdOf(network)!;
  const orDefault = <T>(value: T | undefined, fallback: T): T => (value === undefined || value === 0 || value === 0n ? fallback : value);
  const t = tx as TransactionSerializable &
    Record<string, unknown> & { data?: Hex; gas?: bigint; gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint };
  const nonce = orDefault(t.nonce, nextNonce(ctx.store, network, signer.address));
  const filled = {
    ...t,
    chainId,
    nonce,
    gas: orDefault(t.gas, defaultGas(ctx, network, t)),
    ...(t.type === "legacy" || t.type === "eip2930"
      ? { gasPrice: orDefault(t.gasPrice, DEFAULT_MAX_FEE_PER_GAS) }
      : { maxFeePerGas: orDefault(t.maxFeePerGas, DEFAULT_MAX_FEE_PER_GAS), maxPriorityFeePerGas: orDefault(t.maxPriorityFeePerGas, DEFAULT_PRIORITY_FEE) }),
  } as TransactionSerializable;
  const f = filled as TransactionSerializable & { to?: `0x${string}` | null; value?: bigint; data?: Hex; gas?: bigint; type?: string };
  const refused = submissionRefusal({ to: f.to ?? null, input: f.data ?? "0x", gas: f.gas ?? 21_000n });
  if (refused) throw apiError("invalid_request", `The network refuses this transaction: ${refused}.`);
  const signed = await signTransaction(signer.privateKey, filled);
  const hash = keccak256(signed);
  await applyTransaction(
    ctx.store,
    ctx.clock,
    {
      hash,
      network,
      chainId,
      from: signer.address,
      to: f.to ?? null,
      value: f.value ?? 0n,
      input: f.data ?? "0x",
      nonce,
      gas: f.gas ?? 21_000n,
      type: f.type ?? "eip1559",
    },
    ctx.contracts,
  );
  setNextNonce(ctx.store, network, signer.address, Math.max(nonce + 1, nextNonce(ctx.store, network, signer.address)));
  emitWalletSend(ctx, { chain: "evm", hash, network, address: signer.address, actor });
  return hash;
}

/**
 * The gas limit of a transaction that names none: a transfer's 21,000, 200,000 for a call the ledger applies,
 * and enough for any creation or bytecode call (only the gas it burns is paid).
 */
function defaultGas(ctx: HandlerContext, network: string, t: { to?: `0x${string}` | null; data?: Hex }): bigint {
  if (runsBytecode(ctx.store, network, t.to ?? null)) return 10_000_000n;
  return t.data && t.data !== "0x" ? 200_000n : 21_000n;
}
