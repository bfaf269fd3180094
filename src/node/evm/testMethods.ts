/**
 * The test methods of local EVM nodes (`anvil_*`, `hardhat_*`, `evm_*`), as viem's test client sends them in its
 * `anvil` and `hardhat` modes, Hardhat's network helpers and Foundry's scripts. They change the one ledger of the
 * caller's project that the platform API, the admin API and the node all read, with the same functions those use:
 * balances, nonces, code and storage of `chain/`, the sandbox clock, the mining mode. The methods that replace a
 * whole project (snapshots, reset, state dumps) are in `projectMethods.ts`.
 *
 * The sandbox's chain follows its clock (`chain/blocks.ts`), so mining blocks and setting the next block's time move
 * that clock, for every project and network: quotes, grants and codes expire as they do when the admin API moves it.
 */
import { bindMiningMode, headBlock, mineBlocks, miningModeOf } from "../../chain/mining.js";
import { blockTimestampOf } from "../../chain/blocks.js";
import { putCodeAt, putStorageSlot } from "../../chain/evm/ledgerState.js";
import { setEvmBalance } from "../../chain/evm/balances.js";
import { setNextNonce } from "../../chain/evm/nonces.js";
import { erc20ByAddress, NATIVE_TOKEN_ADDRESS } from "../../chain/tokens.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import { RpcError, type RpcMethod } from "../jsonRpc.js";
import { type EvmNodeContext, hex } from "./context.js";
import { addressParam, booleanParam, countParam, dataParam, quantityParam, wordParam } from "./params.js";

/** Addresses the node sends for without a key (`anvil_impersonateAccount`), per project, by lowercase address. */
const IMPERSONATED = declareCollection<{ since: string }>("nodeImpersonatedAccounts");

export const isImpersonated = (store: ProjectTx, address: string) => store.collection(IMPERSONATED).get(address.toLowerCase()) !== undefined;

/** The most blocks one `mine` call mines, and the most seconds one `increaseTime` moves (ten years). */
const MAX_BLOCKS = 1_000_000;
const MAX_SECONDS = 10 * 365 * 86_400;

type TestMethod = RpcMethod<EvmNodeContext>;

const setBalanceOf =
  (method: string): TestMethod =>
  (params, ctx) => {
    const address = addressParam(method, params, 0);
    const amount = quantityParam(method, params, 1, "a balance in wei as a hex quantity");
    setEvmBalance(ctx.store, ctx.network, NATIVE_TOKEN_ADDRESS, address, amount);
    return null;
  };

/**
 * `anvil_dealERC20 [address, token, amount]`: a balance of a token of the sandbox's token table (USDC, EURC, …),
 * whose balances the ledger keeps. A token contract deployed in the project keeps its balances in its own storage,
 * whose layout only its author knows: set that with `anvil_setStorageAt`.
 */
const dealErc20: TestMethod = (params, ctx) => {
  const address = addressParam("anvil_dealERC20", params, 0);
  const token = addressParam("anvil_dealERC20", params, 1);
  const amount = quantityParam("anvil_dealERC20", params, 2, "an amount in the token's smallest unit as a hex quantity");
  const known = erc20ByAddress(ctx.network, token);
  if (!known)
    throw new RpcError(
      -32602,
      `invalid params of anvil_dealERC20: ${token} is not a token of the sandbox's table on ${ctx.network}; a contract deployed in the project keeps balances in its own storage (anvil_setStorageAt)`,
    );
  setEvmBalance(ctx.store, ctx.network, known.address, address, amount);
  return null;
};

const setCodeOf =
  (method: string): TestMethod =>
  (params, ctx) => {
    putCodeAt(ctx.store, ctx.network, addressParam(method, params, 0), dataParam(method, params, 1, "the runtime bytecode as 0x-prefixed hex"));
    return null;
  };

const setStorageOf =
  (method: string): TestMethod =>
  (params, ctx) => {
    const address = addressParam(method, params, 0);
    const slot = quantityParam(method, params, 1, "a storage slot as a hex quantity");
    putStorageSlot(ctx.store, ctx.network, address, slot, wordParam(method, params, 2));
    return method === "hardhat_setStorageAt" ? true : null;
  };

const setNonceOf =
  (method: string): TestMethod =>
  (params, ctx) => {
    const address = addressParam(method, params, 0);
    const nonce = countParam(method, params, 1, Number.MAX_SAFE_INTEGER, "a nonce");
    setNextNonce(ctx.store, ctx.network, address, nonce);
    return null;
  };

const mineOf =
  (method: string): TestMethod =>
  (params, ctx) => {
    const blocks = params[0] === undefined || params[0] === null ? 1 : countParam(method, params, 0, MAX_BLOCKS, "a number of blocks");
    // The interval (params[1]) is not kept: blocks follow the network's block time on the sandbox clock.
    if (params[1] !== undefined && params[1] !== null) countParam(method, params, 1, MAX_SECONDS, "seconds between the blocks");
    if (blocks > 0) mineBlocks(ctx.store, ctx.clock, ctx.network, blocks);
    return null;
  };

/** `evm_mine [timestamp?]`: one block, at that time when given. */
const evmMine: TestMethod = (params, ctx) => {
  if (params[0] !== undefined && params[0] !== null) setNextBlockTimestamp("evm_mine", params, ctx);
  mineBlocks(ctx.store, ctx.clock, ctx.network, 1);
  return "0x0";
};

const increaseTime: TestMethod = (params, ctx) => {
  const seconds = countParam("evm_increaseTime", params, 0, MAX_SECONDS, "a number of seconds");
  ctx.clock.advance(seconds * 1000);
  return hex(seconds);
};

/**
 * The next block starts at `timestamp` (seconds): the clock is set just before it, so the next block mined (at once,
 * or the clock's next) is the first of the network's block-time grid at or after it.
 */
function setNextBlockTimestamp(method: string, params: unknown[], ctx: EvmNodeContext): null {
  const seconds = quantityParam(method, params, 0, "a Unix time in seconds as a hex quantity");
  const head = headBlock(ctx.store, ctx.network, ctx.clock.now());
  const headSeconds = Math.floor(blockTimestampOf(ctx.network, head) / 1000);
  if (seconds <= BigInt(headSeconds) || seconds > BigInt(headSeconds + MAX_SECONDS))
    throw new RpcError(
      -32602,
      `invalid params of ${method}: params[0] must be a time after the latest block's (${headSeconds}) and within ten years of it, got ${JSON.stringify(params[0])}`,
    );
  ctx.clock.set(Number(seconds) * 1000 - 1);
  return null;
}

const impersonateOf =
  (method: string): TestMethod =>
  (params, ctx) => {
    ctx.store.collection(IMPERSONATED).put(addressParam(method, params, 0).toLowerCase(), { since: new Date(ctx.clock.now()).toISOString() });
    return method.startsWith("hardhat_") ? true : null;
  };

const stopImpersonatingOf =
  (method: string): TestMethod =>
  (params, ctx) => {
    const key = addressParam(method, params, 0).toLowerCase();
    const impersonated = ctx.store.collection(IMPERSONATED);
    if (impersonated.get(key)) impersonated.delete(key);
    return method.startsWith("hardhat_") ? true : null;
  };

/** The mining mode is the sandbox's (`--mining`): changing it here changes it for every project, as the flag would. */
const setAutomine: TestMethod = (params, ctx) => {
  bindMiningMode(ctx.clock, booleanParam("evm_setAutomine", params, 0) ? "auto" : "interval");
  return null;
};

/** Any interval means `interval` mining (blocks keep the network's block time); 0 means mined at once again. */
const setIntervalMining: TestMethod = (params, ctx) => {
  const interval = countParam("evm_setIntervalMining", params, 0, MAX_SECONDS * 1000, "an interval");
  bindMiningMode(ctx.clock, interval > 0 ? "interval" : "auto");
  return null;
};

const getAutomine: TestMethod = (_params, ctx) => miningModeOf(ctx.clock) === "auto";

/** Every test method answered inside the call's ledger transaction, by name, in both tools' spellings. */
export const evmTestMethods: Readonly<Record<string, TestMethod>> = {
  anvil_setBalance: setBalanceOf("anvil_setBalance"),
  hardhat_setBalance: setBalanceOf("hardhat_setBalance"),
  anvil_dealERC20: dealErc20,
  anvil_setCode: setCodeOf("anvil_setCode"),
  hardhat_setCode: setCodeOf("hardhat_setCode"),
  anvil_setStorageAt: setStorageOf("anvil_setStorageAt"),
  hardhat_setStorageAt: setStorageOf("hardhat_setStorageAt"),
  anvil_setNonce: setNonceOf("anvil_setNonce"),
  hardhat_setNonce: setNonceOf("hardhat_setNonce"),
  anvil_mine: mineOf("anvil_mine"),
  hardhat_mine: mineOf("hardhat_mine"),
  evm_mine: evmMine,
  evm_increaseTime: increaseTime,
  evm_setNextBlockTimestamp: (params, ctx) => setNextBlockTimestamp("evm_setNextBlockTimestamp", params, ctx),
  anvil_impersonateAccount: impersonateOf("anvil_impersonateAccount"),
  hardhat_impersonateAccount: impersonateOf("hardhat_impersonateAccount"),
  anvil_stopImpersonatingAccount: stopImpersonatingOf("anvil_stopImpersonatingAccount"),
  hardhat_stopImpersonatingAccount: stopImpersonatingOf("hardhat_stopImpersonatingAccount"),
  evm_setAutomine: setAutomine,
  evm_setIntervalMining: setIntervalMining,
  anvil_getAutomine: getAutomine,
  hardhat_getAutomine: getAutomine,
};
