/** Transactions on the node: look-ups by hash, raw sends of transactions signed anywhere, and gas estimates. */
import { type Hex, keccak256, parseTransaction, toHex } from "viem";
import { applyTransaction, runsBytecode } from "../../chain/evm/executeTransaction.js";
import { nextNonce, setNextNonce } from "../../chain/evm/nonces.js";
import { applyEvmTransaction, type EvmTransactionInput, type LedgerTx, ledgerTxs } from "../../chain/evm/ledger.js";
import { balanceOf } from "../../chain/balances.js";
import { CHAIN_CONTRACTS, SANDBOX_CONTRACTS } from "../../products/sandboxContracts.js";
import { submissionRefusal } from "../../chain/evm/submissionLimits.js";
import { NATIVE_TOKEN_ADDRESS } from "../../chain/tokens.js";
import { transactionSender } from "../../crypto/evm.js";
import { ApiError } from "../../errors/catalogue.js";
import { RpcError } from "../jsonRpc.js";
import { type EvmNodeContext, hex, latestBlock } from "./context.js";
import { callRequest, estimateBytecode } from "./bytecode.js";
import { receiptView, txView } from "./views.js";

/** The ledger's transaction with this hash on this network (hashes compare without case). */
function findTx(ctx: EvmNodeContext, hash: unknown): LedgerTx | undefined {
  const tx = ledgerTxs(ctx.store).get(String(hash).toLowerCase()) ?? ledgerTxs(ctx.store).get(String(hash));
  return tx && tx.network === ctx.network ? tx : undefined;
}

export function eth_getTransactionByHash(params: unknown[], ctx: EvmNodeContext) {
  const tx = findTx(ctx, params[0]);
  return tx ? txView(tx, tx.block <= latestBlock(ctx)) : null;
}

/** null until the block that includes the transaction is reached on the sandbox clock. */
export function eth_getTransactionReceipt(params: unknown[], ctx: EvmNodeContext) {
  const tx = findTx(ctx, params[0]);
  return tx && tx.block <= latestBlock(ctx) ? receiptView(tx) : null;
}

export async function eth_sendRawTransaction(params: unknown[], ctx: EvmNodeContext) {
  const raw = String(params[0]) as Hex;
  let parsed: ReturnType<typeof parseTransaction>;
  let from: `0x${string}`;
  try {
    parsed = parseTransaction(raw);
    from = transactionSender(parsed);
  } catch (error) {
    throw new RpcError(-32602, `invalid raw transaction: ${(error as Error).message.split("\n")[0]}`);
  }
  if (parsed.chainId !== undefined && parsed.chainId !== ctx.chainId)
    throw new RpcError(-32000, `chain id ${parsed.chainId} does not match ${ctx.network} (${ctx.chainId})`);
  const hash = keccak256(raw);
  const expected = nextNonce(ctx.store, ctx.network, from);
  if ((parsed.nonce ?? 0) < expected) throw new RpcError(-32000, `nonce too low: next nonce of ${from} is ${expected}`);
  const input: EvmTransactionInput = {
    hash,
    network: ctx.network,
    chainId: ctx.chainId,
    from,
    to: (parsed.to as `0x${string}` | undefined) ?? null,
    value: parsed.value ?? 0n,
    input: (parsed.data ?? "0x") as Hex,
    nonce: parsed.nonce ?? 0,
    gas: parsed.gas ?? 21_000n,
    type: parsed.type ?? "eip1559",
  };
  const refused = submissionRefusal(input);
  if (refused) throw new RpcError(-32000, refused);
  try {
    await applyTransaction(ctx.store, ctx.clock, input, CHAIN_CONTRACTS);
  } catch (error) {
    if (error instanceof ApiError) throw new RpcError(-32000, `insufficient funds for gas * price + value: ${error.message}`);
    throw error;
  }
  setNextNonce(ctx.store, ctx.network, from, (parsed.nonce ?? 0) + 1);
  return hash;
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000" as const;
const ESTIMATE_HASH = keccak256(toHex("cdp-sandbox:eth_estimateGas"));

/**
 * Runs the transaction on the ledger and undoes it, as a node simulates it:
 * the gas the ledger would burn, or the revert a send would meet (error 3,
 * "execution reverted", as geth answers) and the shortfall of a value the
 * sender does not have. Gas itself is not charged, as a node estimates
 * without the sender paying for it.
 */
export async function eth_estimateGas(params: unknown[], ctx: EvmNodeContext) {
  const call = params[0] as Parameters<typeof callRequest>[0];
  const target = call && typeof call === "object" && typeof call.to === "string" ? call.to : null;
  if (runsBytecode(ctx.store, ctx.network, target)) {
    const request = callRequest(call);
    if (request.value > 0n) checkValue(ctx, request.from, request.value);
    return estimateBytecode(ctx, request);
  }
  const req = (params[0] ?? {}) as { from?: unknown; to?: unknown; data?: Hex; input?: Hex; value?: string };
  const address = (field: "from" | "to"): `0x${string}` | undefined => {
    const v = req[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(v))
      throw new RpcError(-32602, `invalid ${field} ${JSON.stringify(v)}: a 0x-prefixed 20-byte address`);
    return v as `0x${string}`;
  };
  const from = address("from") ?? ZERO_ADDRESS;
  const to = address("to") ?? null;
  let value: bigint;
  try {
    value = BigInt(req.value ?? 0);
  } catch {
    throw new RpcError(-32602, `invalid value ${JSON.stringify(req.value)}: a hex quantity`);
  }
  const undo = ctx.store.savepoint();
  try {
    const applied = applyEvmTransaction(
      ctx.store,
      ctx.clock,
      {
        hash: ESTIMATE_HASH,
        network: ctx.network,
        chainId: ctx.chainId,
        from,
        to,
        value,
        input: req.data ?? req.input ?? "0x",
        nonce: 0,
        gas: 30_000_000n,
        type: "eip1559",
        sponsored: true,
      },
      SANDBOX_CONTRACTS,
    );
    if (applied.status === "reverted") throw new RpcError(3, `execution reverted${applied.revertReason ? `: ${applied.revertReason}` : ""}`);
    return hex(BigInt(applied.gasUsed));
  } catch (error) {
    if (error instanceof ApiError) throw new RpcError(-32000, `insufficient funds for transfer: ${error.message}`);
    throw error;
  } finally {
    undo();
  }
}

/** A value the sender does not hold cannot be sent, whatever the call would do. */
function checkValue(ctx: EvmNodeContext, from: `0x${string}`, value: bigint): void {
  const held = balanceOf(ctx.store, ctx.network, NATIVE_TOKEN_ADDRESS, from);
  if (held < value) throw new RpcError(-32000, `insufficient funds for transfer: ${from} has ${held} wei on ${ctx.network}, the call sends ${value}`);
}
