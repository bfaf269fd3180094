/**
 * The SpendPermissionManager of the simulated chain, at the platform's
 * address: `approve` and `revoke` called by the account itself, and `spend`
 * called by the spender, which moves up to the allowance per period from the
 * account to the spender (native or ERC-20, with a Transfer log) and reverts
 * beyond it — with the contract's own error names as revert reasons.
 */
import { decodeFunctionData, encodeAbiParameters, encodeEventTopics, encodeFunctionData, hashTypedData, type Hex } from "viem";
import {
  type ContractCallResult,
  type EvmTransactionInput,
  type LedgerLog,
  moveToken,
  NATIVE_TOKEN_ADDRESS,
  type SandboxContract,
} from "../../chain/evm/index.js";
import { balanceOf } from "../../chain/index.js";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";
import { SPEND_PERMISSION_MANAGER_ADDRESS } from "../evm-smart-accounts/accounts.js";
import { spendPermissionKey, spendPermissions, type SpendPermissionRecord, type SpendPermissionTerms } from "./model.js";

const SPEND_PERMISSION = {
  type: "tuple",
  name: "spendPermission",
  components: [
    { name: "account", type: "address" },
    { name: "spender", type: "address" },
    { name: "token", type: "address" },
    { name: "allowance", type: "uint160" },
    { name: "period", type: "uint48" },
    { name: "start", type: "uint48" },
    { name: "end", type: "uint48" },
    { name: "salt", type: "uint256" },
    { name: "extraData", type: "bytes" },
  ],
} as const;
const PERIOD_SPEND = {
  type: "tuple",
  name: "periodSpend",
  components: [
    { name: "start", type: "uint48" },
    { name: "end", type: "uint48" },
    { name: "spend", type: "uint160" },
  ],
} as const;

const managerAbi = [
  { type: "function", name: "approve", stateMutability: "nonpayable", inputs: [SPEND_PERMISSION], outputs: [{ type: "bool" }] },
  { type: "function", name: "revoke", stateMutability: "nonpayable", inputs: [SPEND_PERMISSION], outputs: [] },
  { type: "function", name: "spend", stateMutability: "nonpayable", inputs: [SPEND_PERMISSION, { name: "value", type: "uint160" }], outputs: [] },
  { type: "event", name: "SpendPermissionApproved", inputs: [{ name: "hash", type: "bytes32", indexed: true }, SPEND_PERMISSION] },
  { type: "event", name: "SpendPermissionRevoked", inputs: [{ name: "hash", type: "bytes32", indexed: true }, SPEND_PERMISSION] },
  {
    type: "event",
    name: "SpendPermissionUsed",
    inputs: [
      { name: "hash", type: "bytes32", indexed: true },
      { name: "account", type: "address", indexed: true },
      { name: "spender", type: "address", indexed: true },
      { name: "token", type: "address" },
      PERIOD_SPEND,
    ],
  },
] as const;

type Struct = {
  account: `0x${string}`;
  spender: `0x${string}`;
  token: `0x${string}`;
  allowance: bigint;
  period: number;
  start: number;
  end: number;
  salt: bigint;
  extraData: Hex;
};

const toStruct = (p: SpendPermissionTerms): Struct => ({
  ...p,
  allowance: BigInt(p.allowance),
  period: Number(p.period),
  start: Number(p.start),
  end: Number(p.end),
  salt: BigInt(p.salt),
});
const toTerms = (s: Struct): SpendPermissionTerms => ({
  ...s,
  allowance: s.allowance.toString(),
  period: String(s.period),
  start: String(s.start),
  end: String(s.end),
  salt: s.salt.toString(),
});
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** SpendPermissionManager.getHash: the EIP-712 hash of the permission on `chainId`. */
export function spendPermissionHash(chainId: number, p: SpendPermissionTerms): Hex {
  return hashTypedData({
    domain: { name: "Spend Permission Manager", version: "1", chainId, verifyingContract: SPEND_PERMISSION_MANAGER_ADDRESS },
    types: { SpendPermission: SPEND_PERMISSION.components.map((c) => ({ name: c.name, type: c.type })) },
    primaryType: "SpendPermission",
    message: toStruct(p),
  });
}

/** Calldata of `approve(permission)` or `revoke(permission)`, as the account's user operation sends it. */
export function managerCalldata(functionName: "approve" | "revoke", p: SpendPermissionTerms): Hex {
  return encodeFunctionData({ abi: managerAbi, functionName, args: [toStruct(p)] });
}

/** Executes a call to the manager inside `applyEvmTransaction` (gas already paid). */
function callSpendPermissionManager(store: ProjectTx, clock: Clock, tx: EvmTransactionInput, logs: LedgerLog[]): ContractCallResult {
  const revert = (revertReason: string): ContractCallResult => ({ status: "reverted", revertReason });
  if (tx.value !== 0n) return revert("the SpendPermissionManager's functions are not payable");
  let call: { functionName: "approve" | "revoke" | "spend"; args: readonly unknown[] };
  try {
    call = decodeFunctionData({ abi: managerAbi, data: tx.input }) as typeof call;
  } catch {
    return revert("not a SpendPermissionManager call: approve, revoke or spend expected");
  }
  const permission = toTerms(call.args[0] as Struct);
  const hash = spendPermissionHash(tx.chainId, permission);
  const key = spendPermissionKey(tx.network, hash);
  const record = spendPermissions(store).get(key);
  const now = Math.floor(clock.now() / 1000);
  const event = (name: "SpendPermissionApproved" | "SpendPermissionRevoked") =>
    logs.push({
      address: SPEND_PERMISSION_MANAGER_ADDRESS,
      topics: encodeEventTopics({ abi: managerAbi, eventName: name, args: { hash } }) as Hex[],
      data: encodeAbiParameters([SPEND_PERMISSION], [toStruct(permission)]),
      logIndex: logs.length,
    });

  if (call.functionName === "approve" || call.functionName === "revoke") {
    if (!same(tx.from, permission.account))
      return revert(`InvalidSender(${tx.from}, ${permission.account}): only the account may ${call.functionName} its permission`);
    if (call.functionName === "revoke") {
      const iso = new Date(clock.now()).toISOString();
      spendPermissions(store).put(key, { ...(record ?? { network: tx.network, permissionHash: hash, permission }), revokedAt: record?.revokedAt ?? iso });
      event("SpendPermissionRevoked");
      return { status: "success" };
    }
    if (BigInt(permission.start) >= BigInt(permission.end)) return revert(`InvalidStartEnd(${permission.start}, ${permission.end})`);
    if (permission.period === "0") return revert("ZeroPeriod()");
    if (permission.allowance === "0") return revert("ZeroAllowance()");
    // Approving a revoked permission returns false and changes nothing; approving twice is a no-op.
    if (!record) {
      spendPermissions(store).put(key, { network: tx.network, permissionHash: hash, permission, approvedAt: new Date(clock.now()).toISOString() });
      event("SpendPermissionApproved");
    }
    return { status: "success" };
  }

  const value = call.args[1] as bigint;
  if (!same(tx.from, permission.spender)) return revert(`InvalidSender(${tx.from}, ${permission.spender}): only the spender may spend`);
  if (value === 0n) return revert("ZeroValue()");
  if (!record || record.revokedAt) return revert(`UnauthorizedSpendPermission(): ${hash} is ${record ? "revoked" : "not approved"} on ${tx.network}`);
  const start = Number(permission.start);
  const end = Number(permission.end);
  if (now < start) return revert(`BeforeSpendPermissionStart(${now}, ${start})`);
  if (now >= end) return revert(`AfterSpendPermissionEnd(${now}, ${end})`);
  const period = currentPeriod(record, now);
  const total = BigInt(period.spend) + value;
  if (total > BigInt(permission.allowance))
    return revert(
      `ExceededSpendPermission(${total}, ${permission.allowance}): this period (until ${period.end}) allows ${BigInt(permission.allowance) - BigInt(period.spend)} more`,
    );
  const native = same(permission.token, NATIVE_TOKEN_ADDRESS);
  const asset = native ? "native" : permission.token;
  const held = balanceOf(store, tx.network, asset, permission.account);
  if (held < value) return revert(`the account holds ${held} of ${permission.token}, the spend needs ${value}`);
  // Effects, once everything holds.
  const used = { start: period.start, end: period.end, spend: total.toString() };
  spendPermissions(store).put(key, { ...record, lastPeriod: used });
  const transfer: LedgerLog[] = [];
  moveToken(store, tx.network, asset, permission.account, permission.spender, value, transfer);
  logs.push({
    address: SPEND_PERMISSION_MANAGER_ADDRESS,
    topics: encodeEventTopics({
      abi: managerAbi,
      eventName: "SpendPermissionUsed",
      args: { hash, account: permission.account, spender: permission.spender },
    }) as Hex[],
    data: encodeAbiParameters([{ type: "address" }, PERIOD_SPEND], [permission.token, { start: used.start, end: used.end, spend: total }]),
    logIndex: logs.length,
  });
  // The token's Transfer log follows the manager's SpendPermissionUsed, as the contract emits them.
  for (const log of transfer) logs.push({ ...log, logIndex: logs.length });
  return { status: "success" };
}

/** The contract's getCurrentPeriod: the last period spent in if it is still running, else a fresh one counted from start. */
function currentPeriod(record: SpendPermissionRecord, now: number): { start: number; end: number; spend: string } {
  const last = record.lastPeriod;
  if (last && last.start <= now && now < last.end) return last;
  const start = Number(record.permission.start);
  const length = Number(record.permission.period);
  const periodStart = now - ((now - start) % length);
  return { start: periodStart, end: Math.min(periodStart + length, Number(record.permission.end)), spend: "0" };
}

/** The manager as the ledger runs it. */
export const spendPermissionManager: SandboxContract = { address: SPEND_PERMISSION_MANAGER_ADDRESS, gasUsed: 80_000n, call: callSpendPermissionManager };
