/**
 * Criterion evaluation. Every criterion answers "does it hold for this
 * request"; a rule applies when all of its criteria hold. Regular expressions
 * use RE2 semantics (re2js: linear time, no backreferences), as the platform.
 */
import { RE2JS } from "re2js";
import { decodeFunctionData, erc20Abi, type Abi } from "viem";
import { EVM_NETWORKS } from "../../chain/evm/index.js";
import type { EvmCallFacts, PolicyFacts } from "./facts.js";
import { USD_CENTS_PER_ETH, USD_STABLECOINS } from "./prices.js";
import { decodeSolanaInstruction } from "./solanaIdl.js";
import type { Criterion } from "./model.js";
import type { Schema } from "../../contract/types.js";

// The known ABIs use the standards' parameter names (EIP-20/721/1155), which conditions refer to.
const erc20 = [
  {
    type: "function",
    name: "transfer",
    stateMutability: "nonpayable",
    outputs: [{ name: "", type: "bool" }],
    inputs: [
      { name: "to", type: "address" },
      { name: "value", type: "uint256" },
    ],
  },
  {
    type: "function",
    name: "transferFrom",
    stateMutability: "nonpayable",
    outputs: [{ name: "", type: "bool" }],
    inputs: [
      { name: "from", type: "address" },
      { name: "to", type: "address" },
      { name: "value", type: "uint256" },
    ],
  },
  {
    type: "function",
    name: "approve",
    stateMutability: "nonpayable",
    outputs: [{ name: "", type: "bool" }],
    inputs: [
      { name: "spender", type: "address" },
      { name: "value", type: "uint256" },
    ],
  },
] as const;
const erc721 = [
  {
    type: "function",
    name: "transferFrom",
    stateMutability: "nonpayable",
    outputs: [],
    inputs: [
      { name: "from", type: "address" },
      { name: "to", type: "address" },
      { name: "tokenId", type: "uint256" },
    ],
  },
  {
    type: "function",
    name: "safeTransferFrom",
    stateMutability: "nonpayable",
    outputs: [],
    inputs: [
      { name: "from", type: "address" },
      { name: "to", type: "address" },
      { name: "tokenId", type: "uint256" },
    ],
  },
  {
    type: "function",
    name: "approve",
    stateMutability: "nonpayable",
    outputs: [],
    inputs: [
      { name: "to", type: "address" },
      { name: "tokenId", type: "uint256" },
    ],
  },
  {
    type: "function",
    name: "setApprovalForAll",
    stateMutability: "nonpayable",
    outputs: [],
    inputs: [
      { name: "operator", type: "address" },
      { name: "approved", type: "bool" },
    ],
  },
] as const;
const erc1155Abi = [
  {
    type: "function",
    name: "safeTransferFrom",
    stateMutability: "nonpayable",
    outputs: [],
    inputs: [
      { name: "from", type: "address" },
      { name: "to", type: "address" },
      { name: "id", type: "uint256" },
      { name: "value", type: "uint256" },
      { name: "data", type: "bytes" },
    ],
  },
  {
    type: "function",
    name: "safeBatchTransferFrom",
    stateMutability: "nonpayable",
    outputs: [],
    inputs: [
      { name: "from", type: "address" },
      { name: "to", type: "address" },
      { name: "ids", type: "uint256[]" },
      { name: "values", type: "uint256[]" },
      { name: "data", type: "bytes" },
    ],
  },
  {
    type: "function",
    name: "setApprovalForAll",
    stateMutability: "nonpayable",
    outputs: [],
    inputs: [
      { name: "operator", type: "address" },
      { name: "approved", type: "bool" },
    ],
  },
] as const;
const KNOWN_ABIS: Record<Schema<"KnownAbiType">, Abi> = { erc20, erc721, erc1155: erc1155Abi };

function compare(left: bigint, operator: string, right: bigint): boolean {
  switch (operator) {
    case ">":
      return left > right;
    case ">=":
      return left >= right;
    case "<":
      return left < right;
    case "<=":
      return left <= right;
    case "==":
      return left === right;
    default:
      return false;
  }
}

/** `in`: every value is listed (and there is at least one); `not in`: none is. */
function membership(values: string[], operator: string, listed: string[], caseInsensitive: boolean): boolean {
  const norm = (v: string) => (caseInsensitive ? v.toLowerCase() : v);
  const set = new Set(listed.map(norm));
  if (operator === "in") return values.length > 0 && values.every((v) => set.has(norm(v)));
  return values.every((v) => !set.has(norm(v)));
}

/**
 * Compiled patterns, the least recently used dropped first past REGEX_CACHE_SIZE: every policy a caller writes
 * brings its own patterns, so an unbounded cache would grow with every distinct one any project ever sent.
 */
const REGEX_CACHE_SIZE = 1_000;
const regexCache = new Map<string, RE2JS>();
function re2(pattern: string): RE2JS {
  let compiled = regexCache.get(pattern);
  if (compiled) {
    regexCache.delete(pattern); // re-inserted below: a Map iterates in insertion order, so the oldest is first
  } else {
    compiled = RE2JS.compile(pattern);
    if (regexCache.size >= REGEX_CACHE_SIZE) regexCache.delete(regexCache.keys().next().value as string);
  }
  regexCache.set(pattern, compiled);
  return compiled;
}

function toBigInt(value: unknown): bigint | undefined {
  try {
    if (typeof value === "bigint") return value;
    if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
    if (typeof value === "boolean") return undefined;
    if (typeof value === "string" && /^-?(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value);
  } catch {
    return undefined;
  }
  return undefined;
}

/** Compares a decoded argument with the condition's string value(s): numbers numerically, everything else as text (addresses case-insensitively). */
function paramHolds(actual: unknown, condition: { operator: string; value?: string; values?: string[] }): boolean {
  const text = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : String(v).toLowerCase());
  if (condition.operator === "in" || condition.operator === "not in") {
    const inList = (condition.values ?? []).some((v) => text(v) === text(actual) || (toBigInt(v) !== undefined && toBigInt(v) === toBigInt(actual)));
    return condition.operator === "in" ? inList : !inList;
  }
  const a = toBigInt(actual);
  const b = toBigInt(condition.value);
  if (a !== undefined && b !== undefined) return compare(a, condition.operator, b);
  return condition.operator === "==" && text(actual) === text(condition.value);
}

function evmDataHolds(criterion: Schema<"EvmDataCriterion">, call: EvmCallFacts): boolean {
  if (!call.data || call.data === "0x") return false;
  // The contract's ABI schema is looser than viem's type; decoding below fails (no match) on an unusable ABI.
  const abi = typeof criterion.abi === "string" ? KNOWN_ABIS[criterion.abi] : (criterion.abi as Abi);
  if (!abi) return false;
  let decoded: { functionName: string; args?: readonly unknown[] };
  try {
    decoded = decodeFunctionData({ abi, data: call.data }) as typeof decoded;
  } catch {
    return false;
  }
  const fn = abi.find((item) => item.type === "function" && item.name === decoded.functionName) as { inputs: Array<{ name?: string }> } | undefined;
  return criterion.conditions.some((c) => {
    if (c.function !== decoded.functionName) return false;
    return (c.params ?? []).every((p) => {
      const index = /^[0-9]+$/.test(p.name) ? Number(p.name) : (fn?.inputs ?? []).findIndex((i) => i.name === p.name);
      if (index < 0 || decoded.args === undefined || index >= decoded.args.length) return false;
      return paramHolds(decoded.args[index], p);
    });
  });
}

/** USD cents a call moves out: native value at the table price, plus known stablecoin transfers and approvals. */
function usdCentsOf(call: EvmCallFacts): bigint {
  let cents = (call.value * USD_CENTS_PER_ETH) / 10n ** 18n;
  const stable = call.to ? USD_STABLECOINS[call.to.toLowerCase()] : undefined;
  if (stable && call.data) {
    try {
      const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data: call.data });
      const amount =
        functionName === "transfer" || functionName === "approve" ? (args[1] as bigint) : functionName === "transferFrom" ? (args[2] as bigint) : 0n;
      cents += (amount * 100n) / 10n ** BigInt(stable.decimals);
    } catch {
      // not an ERC-20 call: no token value
    }
  }
  return cents;
}

function valueAtPath(root: unknown, path: string): unknown {
  let node = root;
  for (const key of path.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Does `criterion` hold for `facts`? Criteria that do not apply to the kind of request never hold. */
export function criterionHolds(c: Criterion, facts: PolicyFacts): boolean {
  switch (facts.kind) {
    case "evmTransaction": {
      const calls = facts.calls;
      switch (c.type) {
        case "ethValue":
          return compare(
            calls.reduce((sum, call) => sum + call.value, 0n),
            c.operator,
            BigInt(c.ethValue),
          );
        case "evmAddress":
          return membership(
            calls.map((call) => call.to ?? ""),
            c.operator,
            c.addresses,
            true,
          );
        case "evmNetwork":
          return facts.network !== undefined && membership([facts.network], c.operator, c.networks, false);
        case "evmData":
          return calls.length > 0 && calls.every((call) => evmDataHolds(c, call));
        case "netUSDChange": {
          const net = facts.network ? (EVM_NETWORKS as Record<string, { testnet: boolean }>)[facts.network] : undefined;
          if (net?.testnet) return false;
          return compare(
            calls.reduce((sum, call) => sum + usdCentsOf(call), 0n),
            c.operator,
            BigInt(c.changeCents),
          );
        }
      }
      return false;
    }
    case "message":
      return (c.type === "evmMessage" || c.type === "solMessage") && re2(c.match).matcher(facts.message).find();
    case "typedData": {
      if (c.type === "evmTypedDataVerifyingContract") {
        const contract = facts.domain.verifyingContract;
        return typeof contract === "string" && membership([contract], c.operator, c.addresses, true);
      }
      if (c.type === "evmTypedDataField") {
        if (c.types.primaryType !== facts.primaryType) return false;
        return c.conditions.every((cond) => {
          const actual = valueAtPath(facts.message, cond.path);
          if (actual === undefined) return false;
          if ("addresses" in cond) return membership([String(actual)], cond.operator, cond.addresses, true);
          if ("match" in cond) return re2(cond.match).matcher(String(actual)).find();
          const a = toBigInt(actual);
          return a !== undefined && compare(a, cond.operator, BigInt(cond.value));
        });
      }
      return false;
    }
    case "solanaTransaction": {
      const { transfers, instructions } = facts.tx;
      const sol = transfers.filter((t) => t.kind === "sol");
      const spl = transfers.filter((t) => t.kind === "spl");
      switch (c.type) {
        case "solAddress":
          return membership(
            sol.map((t) => t.to),
            c.operator,
            c.addresses,
            false,
          );
        case "solValue":
          return compare(
            sol.reduce((s, t) => s + t.amount, 0n),
            c.operator,
            BigInt(c.solValue),
          );
        case "splAddress":
          return membership(
            spl.map((t) => t.toOwner ?? t.to),
            c.operator,
            c.addresses,
            false,
          );
        case "splValue":
          return compare(
            spl.reduce((s, t) => s + t.amount, 0n),
            c.operator,
            BigInt(c.splValue),
          );
        case "mintAddress":
          return membership(
            spl.map((t) => t.mint ?? ""),
            c.operator,
            c.addresses,
            false,
          );
        case "programId":
          return membership([...new Set(instructions.map((i) => i.programId))], c.operator, c.programIds, false);
        case "solNetwork":
          return facts.network !== undefined && membership([facts.network], c.operator, c.networks, false);
        case "solData": {
          const { idls, conditions } = c;
          return instructions.some((ix) => {
            const decoded = decodeSolanaInstruction(ix, idls);
            return (
              decoded !== undefined &&
              conditions.some((cond) => cond.instruction === decoded.name && (cond.params ?? []).every((p) => paramHolds(decoded.args[p.name], p)))
            );
          });
        }
      }
      return false;
    }
    case "evmHash":
      return false;
  }
}
