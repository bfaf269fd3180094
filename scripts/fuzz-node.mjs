/**
 * The fuzzer's node drafts and WebSocket messages (fuzz-core.mjs sends and checks them): JSON-RPC calls to
 * `/rpc/v1/{network}/{token}` for every method of the EVM and Solana tables, with params that are right, wrong in
 * type, huge or nested, as single calls and batches (up to past the 1,000-call cap), and whole messages that are
 * not JSON-RPC at all. The same generators feed the node's WebSockets (`eth_subscribe`, Solana PubSub).
 *
 * Every draft carries `operationId: "node:<method>"` (or `node:batch`, `node:raw`) so the report counts the node
 * beside the platform's operations.
 */

const EVM_NETWORKS = ["base-sepolia", "base", "ethereum-sepolia", "polygon"];
const SOLANA_NETWORKS = ["solana-devnet", "solana"];
const EVM_SUBSCRIPTIONS = ["newHeads", "logs", "newPendingTransactions", "syncing", "", "constructor"];
const SOLANA_SUBSCRIBE = ["signatureSubscribe", "slotSubscribe", "accountSubscribe", "programSubscribe", "logsSubscribe"];
const SOLANA_UNSUBSCRIBE = ["signatureUnsubscribe", "slotUnsubscribe", "accountUnsubscribe", "programUnsubscribe", "logsUnsubscribe"];
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** Addresses the sandbox knows on every network: the native token's zero address, USDC on Base Sepolia, Multicall3. */
const KNOWN_EVM = ["0x0000000000000000000000000000000000000000", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "0xcA11bde05977b3631167028862bE2a173976CA11"];
const KNOWN_SOLANA = ["11111111111111111111111111111111", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"];
/** Endless loop, a quick return, and a loop of identity-precompile calls: bytecode for deployless eth_call / estimateGas. */
const BYTECODE = ["0x5b600056", "0x600160005260206000f3", "0x6100645b60006000618000600060045afa50600190038060035700", "0x", "0xfe"];

/** @param {{ rng: ReturnType<import("./fuzz-random.mjs").seededRandom>, methods: { evm: string[], solana: string[] } }} o */
export function createNodeFuzzer({ rng, methods }) {
  const hex = (bytes) => `0x${rng.hex(bytes)}`;
  const base58 = (n = 44) => Array.from({ length: n }, () => BASE58[rng.int(BASE58.length)]).join("");
  const quantity = () =>
    rng.pick([
      "0x0",
      "0x1",
      hex(1),
      hex(4),
      hex(8),
      "0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
      "0x",
      "0x-1",
      "1e400",
      -1,
      1.5,
      2 ** 53 + 1,
    ]);
  const blockTag = () => rng.pick(["latest", "pending", "earliest", "safe", "finalized", "0x0", "0x1", hex(3), "0xffffffffffffffff", "nope", 12, null]);
  const evmAddress = () => (rng.chance(0.5) ? rng.pick(KNOWN_EVM) : rng.chance(0.8) ? hex(20) : rng.pick([hex(19), hex(21), "0x", "0xZZ", ""]));
  const solanaAddress = () =>
    rng.chance(0.5) ? rng.pick(KNOWN_SOLANA) : rng.chance(0.8) ? base58(rng.pick([32, 43, 44])) : rng.pick(["0OIl", "", base58(100)]);
  const callObject = () => ({
    ...(rng.chance(0.7) ? { to: evmAddress() } : {}),
    ...(rng.chance(0.5) ? { from: evmAddress() } : {}),
    ...(rng.chance(0.7) ? { data: rng.chance(0.5) ? rng.pick(BYTECODE) : hex(rng.int(200)) } : {}),
    ...(rng.chance(0.3) ? { gas: quantity() } : {}),
    ...(rng.chance(0.3) ? { value: quantity() } : {}),
  });
  const solanaConfig = () => ({
    ...(rng.chance(0.6) ? { encoding: rng.pick(["base64", "base58", "jsonParsed", "base64+zstd", "binary", 7]) } : {}),
    ...(rng.chance(0.5) ? { commitment: rng.pick(["processed", "confirmed", "finalized", "max", ""]) } : {}),
    ...(rng.chance(0.2) ? { filters: rng.pick([[{ dataSize: 165 }], [{ memcmp: { offset: 0, bytes: base58(32) } }], [{}], "all", [{ dataSize: -1 }]]) } : {}),
    ...(rng.chance(0.2) ? { dataSlice: { offset: rng.int(1000), length: rng.int(1000) } } : {}),
  });

  /** Params a method plausibly takes, from the method's name: wrong as often as right. */
  function plausibleParams(method, chain) {
    if (chain === "solana") {
      if (/Transaction$/.test(method) && /send|simulate/.test(method))
        return [rng.chance(0.5) ? Buffer.from(rng.hex(rng.int(300)), "hex").toString("base64") : base58(88), solanaConfig()];
      if (/Signature/.test(method)) return [rng.chance(0.5) ? [base58(88)] : base58(88), solanaConfig()];
      if (/Multiple/.test(method)) return [Array.from({ length: rng.int(rng.chance(0.05) ? 500 : 5) }, solanaAddress), solanaConfig()];
      if (/TokenAccountsByOwner/.test(method))
        return [solanaAddress(), rng.pick([{ mint: solanaAddress() }, { programId: solanaAddress() }, {}, null]), solanaConfig()];
      if (/Rent/.test(method)) return [rng.pick([0, 165, 10 ** 12, -1, "165"])];
      if (/Blockhash/.test(method)) return rng.chance(0.5) ? [base58(44), solanaConfig()] : [solanaConfig()];
      return [solanaAddress(), solanaConfig()];
    }
    switch (method) {
      case "eth_call":
      case "eth_estimateGas":
        return [callObject(), blockTag()];
      case "eth_getBalance":
      case "eth_getCode":
      case "eth_getTransactionCount":
        return [evmAddress(), blockTag()];
      case "eth_getStorageAt":
        return [evmAddress(), quantity(), blockTag()];
      case "eth_getBlockByNumber":
        return [blockTag(), rng.chance(0.5)];
      case "eth_getBlockByHash":
      case "eth_getTransactionByHash":
      case "eth_getTransactionReceipt":
      case "eth_getUserOperationByHash":
      case "eth_getUserOperationReceipt":
        return [rng.chance(0.8) ? hex(32) : hex(rng.int(40))];
      case "eth_feeHistory":
        return [quantity(), blockTag(), rng.chance(0.5) ? [25, 75] : rng.pick([[101], ["x"], null])];
      case "eth_getLogs":
        return [
          {
            fromBlock: blockTag(),
            toBlock: blockTag(),
            ...(rng.chance(0.5) ? { address: evmAddress() } : {}),
            ...(rng.chance(0.3) ? { topics: [hex(32), null, [hex(32)]] } : {}),
          },
        ];
      case "eth_sendRawTransaction":
        return [rng.chance(0.5) ? hex(rng.int(400)) : rng.pick(["0x02", "0xf8", "0x", hex(50_000)])];
      default:
        return Array.from({ length: rng.int(3) }, () =>
          rng.pick([evmAddress(), callObject(), quantity(), blockTag(), { sender: evmAddress(), nonce: quantity(), callData: hex(40) }]),
        );
    }
  }

  /** A value of the wrong kind or size, in place of a param. */
  function spoiled() {
    return rng.pick([
      null,
      true,
      0,
      -1,
      Number.MAX_SAFE_INTEGER,
      "",
      "x".repeat(rng.pick([10, 1000, 100_000])),
      [],
      {},
      { __proto__: null, constructor: 1 },
      JSON.parse('{"__proto__":{"polluted":1}}'),
      Array.from({ length: 1000 }, () => 0),
      nested(rng.int(60)),
      hex(rng.pick([0, 1, 32, 4096])),
    ]);
  }
  const nested = (depth) => {
    let v = [];
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  };

  function message(chain, id) {
    const method = rng.chance(0.95) ? rng.pick(methods[chain]) : rng.pick(["constructor", "__proto__", "eth_unknown", "", "toString", "hasOwnProperty"]);
    let params = plausibleParams(method, chain);
    const label = rng.weighted({ valid: 4, "param-spoiled": 3, "params-object": 1, "params-missing": 1, "extra-params": 1, "message-spoiled": 1 });
    if (label === "param-spoiled" && params.length > 0) params = params.map((p) => (rng.chance(0.5) ? spoiled() : p));
    if (label === "extra-params") params = [...params, spoiled(), spoiled()];
    const m = { jsonrpc: "2.0", id, method, params };
    if (label === "params-object") m.params = { 0: params[0] };
    if (label === "params-missing") delete m.params;
    if (label === "message-spoiled") {
      const spoil = rng.pick(["no-jsonrpc", "method-number", "id-object", "null", "array-in-array"]);
      if (spoil === "no-jsonrpc") delete m.jsonrpc;
      if (spoil === "method-number") m.method = 42;
      if (spoil === "id-object") m.id = { deep: nested(20) };
      if (spoil === "null") return { method, label: `${label}:${spoil}`, value: null };
      if (spoil === "array-in-array") return { method, label: `${label}:${spoil}`, value: [[m]] };
      return { method, label: `${label}:${spoil}`, value: m };
    }
    return { method, label, value: m };
  }

  return {
    /** One HTTP draft for fuzz-core's exchange: a call, a batch, or bytes that are not JSON-RPC. */
    draft(token) {
      const chain = rng.chance(0.65) ? "evm" : "solana";
      const network = rng.chance(0.97)
        ? rng.pick(chain === "evm" ? EVM_NETWORKS : SOLANA_NETWORKS)
        : rng.pick(["nope", "solana-testnet", "%ZZ", "..", "constructor"]);
      const tokenInPath = rng.chance(0.97) ? token : rng.pick(["", "not-a-token", rng.hex(16), "constructor"]);
      const path = `/rpc/v1/${network}/${tokenInPath}`;
      const base = { method: "POST", path, auth: { bearer: "none", wallet: "none" }, contentType: "application/json" };
      const kind = rng.weighted({ call: 14, batch: 4, raw: 1 });
      if (kind === "raw") {
        const raw = rng.pick([
          "",
          "{",
          "[",
          "[]",
          "null",
          "1",
          '"text"',
          "{}",
          `[${"[".repeat(100)}${"]".repeat(100)}]`,
          "\u0000",
          '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"',
        ]);
        return { ...base, operationId: "node:raw", label: "raw", body: { raw } };
      }
      if (kind === "batch") {
        const size = rng.chance(0.03) ? 1_001 : rng.int(rng.chance(0.2) ? 200 : 20);
        const calls = Array.from({ length: size }, (_, i) => message(chain, i + 1).value);
        return { ...base, operationId: "node:batch", label: size > 1_000 ? "batch:over-cap" : `batch:${chain}`, body: { json: calls } };
      }
      const { method, label, value } = message(chain, rng.chance(0.9) ? rng.int(1_000_000) : rng.pick(["s", null, 1.5]));
      return { ...base, operationId: `node:${typeof method === "string" ? method : "?"}`, label, body: { json: value } };
    },

    /** One WebSocket message (text, or bytes for a binary frame) and whether an answer with its id must come. */
    socketMessage(chain, id) {
      const kind = rng.weighted({ subscribe: 5, unsubscribe: 2, call: 4, spoiled: 1 });
      if (kind === "spoiled")
        return { label: "ws:spoiled", data: rng.pick(["", "{", "[]", "null", "x".repeat(70_000), Buffer.from([0xff, 0x00])]), answered: false };
      if (kind === "call") return { label: "ws:call", data: JSON.stringify({ ...message(chain, id).value, id }), answered: true };
      if (chain === "evm") {
        const params =
          kind === "subscribe"
            ? [
                rng.pick(EVM_SUBSCRIPTIONS),
                ...(rng.chance(0.5) ? [{ address: evmAddress(), topics: rng.pick([[hex(32)], [null, [hex(32)]], "x", [[[]]]]) }] : []),
              ]
            : [rng.pick([hex(16), "0x1", 1, null])];
        return { label: `ws:eth_${kind}`, data: JSON.stringify({ jsonrpc: "2.0", id, method: `eth_${kind}`, params }), answered: true };
      }
      const method = rng.pick(kind === "subscribe" ? SOLANA_SUBSCRIBE : SOLANA_UNSUBSCRIBE);
      const params = kind === "subscribe" ? plausibleParams(method.replace("Subscribe", ""), "solana") : [rng.pick([0, 1, 99, -1, "1", null])];
      if (method === "logsSubscribe") params[0] = rng.pick(["all", "allWithVotes", { mentions: [solanaAddress()] }, { mentions: [] }, 5]);
      if (method === "signatureSubscribe") params[0] = base58(88);
      return { label: `ws:${method}`, data: JSON.stringify({ jsonrpc: "2.0", id, method, params }), answered: true };
    },
  };
}
