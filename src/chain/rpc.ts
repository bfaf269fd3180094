/**
 * The node the official client reads (official-client-notes §1.2): `GET
 * /apikeys/v1/tokens/active` hands out a token for the caller's project, and
 * JSON-RPC 2.0 at `/rpc/v1/{network}/{token}` answers from that project's
 * ledger — enough for viem's public client, `waitForTransactionReceipt` and
 * `eth_sendRawTransaction` of transactions signed anywhere.
 */
import express, { type Request, type Response } from "express";
import { keccak256, parseTransaction, recoverTransactionAddress, toHex, decodeFunctionData, encodeAbiParameters, encodeErrorResult, type Hex } from "viem";
import type { Clock } from "../clock.js";
import { chainIdOf } from "../domains/shared/evmNetworks.js";
import { ApiError } from "../errors/catalogue.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Random } from "../random.js";
import type { Store, ProjectTx } from "../store/store.js";
import { blockNumberAt, blockTimestampOf } from "./blocks.js";
import { settleProject } from "../domains/settle.js";
import type { ProjectLocks } from "../pipeline/locks.js";
import { allowanceOf, applyEvmTransaction, balanceOf, GAS_PRICE_WEI, holdings, ledgerTxs, type LedgerTx } from "./ledger.js";
import { hasSandboxCode } from "./contracts.js";
import { isSolanaNetwork, solanaCall, SolanaRpcError } from "./solanaRpc.js";
import { evmTokenByAddress, NATIVE_TOKEN_ADDRESS } from "./tokens.js";

export interface NodeDeps {
  store: Store;
  projects: ProjectRegistry;
  clock: Clock;
  /** For the ids of the webhook events that due transitions emit before a call. */
  random: Random;
  /** Resolves the caller's project from its bearer token (throws the platform's 401). */
  authenticate: (req: Request) => Promise<string>;
  /** The platform pipeline's per-project locks: the node writes the same ledgers (sends, due deliveries). */
  locks: ProjectLocks;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const hex = (n: bigint | number) => toHex(n);
const blockHash = (network: string, n: number) => keccak256(toHex(`cdp-sandbox:${network}:${n}`));
const ZERO_BLOOM = `0x${"0".repeat(512)}` as Hex;
const ERROR_ABI = [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }] as const;

const erc20Reads = [
  { type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ name: "owner", type: "address" }], outputs: [{ type: "uint256" }] },
  {
    type: "function",
    name: "allowance",
    stateMutability: "view",
    inputs: [
      { name: "owner", type: "address" },
      { name: "spender", type: "address" },
    ],
    outputs: [{ type: "uint256" }],
  },
  { type: "function", name: "decimals", stateMutability: "view", inputs: [], outputs: [{ type: "uint8" }] },
  { type: "function", name: "symbol", stateMutability: "view", inputs: [], outputs: [{ type: "string" }] },
  { type: "function", name: "name", stateMutability: "view", inputs: [], outputs: [{ type: "string" }] },
] as const;

function txView(tx: LedgerTx, mined: boolean) {
  return {
    hash: tx.hash,
    from: tx.from,
    to: tx.to,
    value: hex(BigInt(tx.value)),
    input: tx.input,
    nonce: hex(tx.nonce),
    gas: hex(BigInt(tx.gas)),
    gasPrice: hex(BigInt(tx.gasPrice)),
    maxFeePerGas: hex(BigInt(tx.gasPrice)),
    maxPriorityFeePerGas: "0x0",
    type: tx.type === "legacy" ? "0x0" : tx.type === "eip2930" ? "0x1" : tx.type === "eip7702" ? "0x4" : "0x2",
    chainId: hex(tx.chainId),
    blockNumber: mined ? hex(tx.block) : null,
    blockHash: mined ? blockHash(tx.network, tx.block) : null,
    transactionIndex: mined ? "0x0" : null,
    accessList: [],
    v: "0x0",
    r: "0x0",
    s: "0x0",
    yParity: "0x0",
  };
}

function receiptView(tx: LedgerTx) {
  const block = { blockNumber: hex(tx.block), blockHash: blockHash(tx.network, tx.block), transactionHash: tx.hash, transactionIndex: "0x0" };
  return {
    ...block,
    from: tx.from,
    to: tx.to,
    contractAddress: null,
    cumulativeGasUsed: hex(BigInt(tx.gasUsed)),
    gasUsed: hex(BigInt(tx.gasUsed)),
    effectiveGasPrice: hex(BigInt(tx.gasPrice)),
    status: tx.status === "success" ? "0x1" : "0x0",
    // As Besu reports it: the ABI-encoded Error(string) of a contract that said why it reverted.
    ...(tx.revertReason ? { revertReason: encodeErrorResult({ abi: ERROR_ABI, errorName: "Error", args: [tx.revertReason] }) } : {}),
    type: txView(tx, true).type,
    logsBloom: ZERO_BLOOM,
    logs: tx.logs.map((l) => ({ ...block, address: l.address, topics: l.topics, data: l.data, logIndex: hex(l.logIndex), removed: false })),
  };
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
function estimateGas(request: unknown, ctx: { network: string; chainId: number; store: ProjectTx; clock: Clock }): bigint {
  const req = (request ?? {}) as { from?: unknown; to?: unknown; data?: Hex; input?: Hex; value?: string };
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
    const applied = applyEvmTransaction(ctx.store, ctx.clock, {
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
    });
    if (applied.status === "reverted") throw new RpcError(3, `execution reverted${applied.revertReason ? `: ${applied.revertReason}` : ""}`);
    return BigInt(applied.gasUsed);
  } catch (error) {
    if (error instanceof ApiError) throw new RpcError(-32000, `insufficient funds for transfer: ${error.message}`);
    throw error;
  } finally {
    undo();
  }
}

async function call(method: string, params: unknown[], ctx: { network: string; chainId: number; store: ProjectTx; clock: Clock }): Promise<unknown> {
  const { network, store, clock } = ctx;
  const now = blockNumberAt(network, clock.now());
  const mined = (tx: LedgerTx) => tx.block <= now;
  switch (method) {
    case "eth_chainId":
      return hex(ctx.chainId);
    case "net_version":
      return String(ctx.chainId);
    case "eth_blockNumber":
      return hex(now);
    case "eth_gasPrice":
      return hex(GAS_PRICE_WEI);
    case "eth_maxPriorityFeePerGas":
      return "0x0";
    case "eth_estimateGas":
      return hex(estimateGas(params[0], ctx));
    case "eth_feeHistory": {
      const count = Number(params[0] ?? 1);
      return {
        oldestBlock: hex(Math.max(0, now - count + 1)),
        baseFeePerGas: Array(count + 1).fill(hex(GAS_PRICE_WEI)),
        gasUsedRatio: Array(count).fill(0.5),
        reward: Array(count).fill(["0x0"]),
      };
    }
    case "eth_getBalance":
      return hex(balanceOf(store, network, NATIVE_TOKEN_ADDRESS, String(params[0])));
    case "eth_getTransactionCount": {
      const next = store.collection<{ next: number }>("evmNonces").get(`${String(params[0]).toLowerCase()}:${network}`)?.next ?? 0;
      return hex(next);
    }
    case "eth_getCode": {
      const address = String(params[0]);
      const isContract = (evmTokenByAddress(network, address) && address.toLowerCase() !== NATIVE_TOKEN_ADDRESS.toLowerCase()) || hasSandboxCode(address);
      return isContract ? "0x00" : "0x";
    }
    case "eth_getTransactionByHash": {
      const tx = ledgerTxs(store).get(String(params[0]).toLowerCase()) ?? ledgerTxs(store).get(String(params[0]));
      return tx && tx.network === network ? txView(tx, mined(tx)) : null;
    }
    case "eth_getTransactionReceipt": {
      const tx = ledgerTxs(store).get(String(params[0]).toLowerCase()) ?? ledgerTxs(store).get(String(params[0]));
      return tx && tx.network === network && mined(tx) ? receiptView(tx) : null;
    }
    case "eth_getBlockByNumber":
    case "eth_getBlockByHash": {
      const tag = String(params[0]);
      const n =
        method === "eth_getBlockByHash"
          ? now
          : tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized"
            ? now
            : tag === "earliest"
              ? 0
              : Number(BigInt(tag));
      if (n > now) return null;
      const txs = ledgerTxs(store).filter((t) => t.network === network && t.block === n);
      return {
        number: hex(n),
        hash: blockHash(network, n),
        parentHash: blockHash(network, Math.max(0, n - 1)),
        timestamp: hex(Math.floor(blockTimestampOf(network, n) / 1000)),
        nonce: "0x0000000000000000",
        difficulty: "0x0",
        gasLimit: hex(30_000_000),
        gasUsed: hex(txs.reduce((s, t) => s + Number(t.gasUsed), 0)),
        baseFeePerGas: hex(GAS_PRICE_WEI),
        miner: "0x4200000000000000000000000000000000000011",
        extraData: "0x",
        logsBloom: ZERO_BLOOM,
        sha3Uncles: keccak256("0x"),
        stateRoot: blockHash(network, n),
        receiptsRoot: blockHash(network, n),
        transactionsRoot: blockHash(network, n),
        size: "0x0",
        uncles: [],
        transactions: params[1] ? txs.map((t) => txView(t, true)) : txs.map((t) => t.hash),
      };
    }
    case "eth_call": {
      const [req] = params as [{ to?: string; data?: Hex; input?: Hex }];
      const token = req?.to ? evmTokenByAddress(network, req.to) : undefined;
      if (!token) return "0x";
      const { functionName, args } = decodeFunctionData({ abi: erc20Reads, data: (req.data ?? req.input ?? "0x") as Hex });
      switch (functionName) {
        case "balanceOf":
          return encodeAbiParameters([{ type: "uint256" }], [balanceOf(store, network, token.address, args[0])]);
        case "allowance":
          return encodeAbiParameters([{ type: "uint256" }], [allowanceOf(store, network, token.address, args[0], args[1])]);
        case "decimals":
          return encodeAbiParameters([{ type: "uint8" }], [token.decimals]);
        case "symbol":
          return encodeAbiParameters([{ type: "string" }], [token.symbol]);
        case "name":
          return encodeAbiParameters([{ type: "string" }], [token.name]);
      }
      return "0x";
    }
    case "cdp_listBalances": {
      // The platform's balance listing on the node (seed 4.4): params [{ address, pageToken?, pageSize? }].
      const [query] = params as [{ address?: unknown; pageToken?: unknown; pageSize?: unknown }];
      if (!query || typeof query.address !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(query.address))
        throw new RpcError(-32602, "params[0].address must be a 0x address");
      const rows = holdings(store, network, query.address)
        .map(([asset, amount]) => {
          const token = asset === "native" ? undefined : evmTokenByAddress(network, asset);
          return {
            asset:
              asset === "native"
                ? { id: "eth", type: "native", groupId: "eth", decimals: 18 }
                : { id: asset, type: "erc20", groupId: (token?.symbol ?? asset).toLowerCase(), decimals: token?.decimals ?? 18 },
            value: Number(amount),
            valueStr: amount.toString(),
          };
        })
        .sort((a, b) => (a.asset.type === "native" ? -1 : b.asset.type === "native" ? 1 : a.asset.id.localeCompare(b.asset.id)));
      const size = typeof query.pageSize === "number" && query.pageSize > 0 ? Math.min(query.pageSize, 100) : 20;
      const offset = typeof query.pageToken === "string" && /^[0-9]+$/.test(query.pageToken) ? Number(query.pageToken) : 0;
      const page = rows.slice(offset, offset + size);
      return { balances: page, nextPageToken: offset + size < rows.length ? String(offset + size) : "", totalCount: rows.length };
    }
    case "eth_sendRawTransaction": {
      const raw = String(params[0]) as Hex;
      let parsed: ReturnType<typeof parseTransaction>;
      let from: `0x${string}`;
      try {
        parsed = parseTransaction(raw);
        from = await recoverTransactionAddress({ serializedTransaction: raw as never });
      } catch (error) {
        throw new RpcError(-32602, `invalid raw transaction: ${(error as Error).message.split("\n")[0]}`);
      }
      if (parsed.chainId !== undefined && parsed.chainId !== ctx.chainId)
        throw new RpcError(-32000, `chain id ${parsed.chainId} does not match ${network} (${ctx.chainId})`);
      const hash = keccak256(raw);
      const nonces = store.collection<{ next: number }>("evmNonces");
      const key = `${from.toLowerCase()}:${network}`;
      const expected = nonces.get(key)?.next ?? 0;
      if ((parsed.nonce ?? 0) < expected) throw new RpcError(-32000, `nonce too low: next nonce of ${from} is ${expected}`);
      try {
        applyEvmTransaction(store, clock, {
          hash,
          network,
          chainId: ctx.chainId,
          from,
          to: (parsed.to as `0x${string}` | undefined) ?? null,
          value: parsed.value ?? 0n,
          input: (parsed.data ?? "0x") as Hex,
          nonce: parsed.nonce ?? 0,
          gas: parsed.gas ?? 21_000n,
          type: parsed.type ?? "eip1559",
        });
      } catch (error) {
        if (error instanceof ApiError) throw new RpcError(-32000, `insufficient funds for gas * price + value: ${error.message}`);
        throw error;
      }
      nonces.put(key, { next: (parsed.nonce ?? 0) + 1 });
      return hash;
    }
  }
  throw new RpcError(-32601, `the method ${method} does not exist/is not available`);
}

/** Hands out node tokens: the project id, so the RPC URL names its ledger. */
export function createNodeRouter(deps: NodeDeps): express.Router {
  const router = express.Router();
  router.get("/apikeys/v1/tokens/active", async (req: Request, res: Response) => {
    try {
      res.json({ id: await deps.authenticate(req) });
    } catch (error) {
      const e = error as ApiError;
      res.status(e.status ?? 401).json({ errorType: e.errorType ?? "unauthorized", errorMessage: e.message });
    }
  });
  router.post("/rpc/v1/:network/:token", async (req: Request, res: Response) => {
    const network = String(req.params.network);
    const chainId = chainIdOf(network);
    const solana = isSolanaNetwork(network);
    const projectId = String(req.params.token);
    const reply = (id: unknown, body: object) => ({ jsonrpc: "2.0", id: id ?? null, ...body });
    if ((chainId === undefined && !solana) || !deps.store.project(projectId)) {
      res.status(404).json(
        reply(null, {
          error: {
            code: -32001,
            message: chainId === undefined ? `unknown network ${network}` : "unknown node token; get one from GET /apikeys/v1/tokens/active",
          },
        }),
      );
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "");
    } catch {
      res.json(reply(null, { error: { code: -32700, message: "parse error" } }));
      return;
    }
    // Every node call runs under the project's write lock: sends and due deliveries write the ledger.
    const out = await deps.locks.run(projectId, true, async () => {
      const tx = deps.store.begin(projectId);
      settleProject(tx, { clock: deps.clock, random: deps.random }); // deliveries and transfer payouts that are due show in what the node reports
      const one = async (message: { id?: unknown; method?: unknown; params?: unknown }) => {
        if (!message || typeof message.method !== "string") return reply(message?.id, { error: { code: -32600, message: "invalid request" } });
        try {
          const params = Array.isArray(message.params) ? message.params : [];
          const result = solana
            ? solanaCall(message.method, params, { network, store: tx, clock: deps.clock })
            : await call(message.method, params, { network, chainId: chainId!, store: tx, clock: deps.clock });
          return reply(message.id, { result });
        } catch (error) {
          if (error instanceof RpcError || error instanceof SolanaRpcError) return reply(message.id, { error: { code: error.code, message: error.message } });
          return reply(message.id, { error: { code: -32603, message: (error as Error).message } });
        }
      };
      const out = Array.isArray(payload) ? await Promise.all(payload.map(one)) : await one(payload as never);
      await tx.commit();
      return out;
    });
    res.type("application/json").send(stringifyWithBigInts(out));
  });
  return router;
}

/**
 * JSON with bigints written as plain integers, as the Solana RPC writes its
 * u64 fields (a rent-exempt account's rentEpoch is 2^64 − 1, beyond a double).
 */
export function stringifyWithBigInts(value: unknown): string {
  const marker = "\u0000bigint:";
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `${marker}${v}` : v));
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, "$1");
}
