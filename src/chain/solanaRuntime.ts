/**
 * Solana programs executed for real, by LiteSVM (the Solana runtime as a library, a native addon): System,
 * SPL Token, Token-2022, Associated Token Account, Memo and Compute Budget run as on a cluster. The runtime
 * holds no state of its own that matters: before each transaction the accounts it names are written into it
 * from the project's store (solanaAccounts.ts), the transaction is simulated, and the accounts it leaves are
 * handed back for the caller to write to the store, so projects never mix and a refused request changes
 * nothing. The sandbox keeps its own blockhashes (the runtime's check is off), sets the runtime's clock from
 * the sandbox clock, and keeps its own history.
 *
 * There is no build of the addon for Windows: where it does not load (or with CDP_SANDBOX_SOLANA_RUNTIME=model)
 * `solanaRuntime()` answers undefined and the sandbox applies transactions with its TypeScript model instead
 * (solanaModel.ts), over the same accounts.
 */
import { createRequire } from "node:module";
import type { Account as NativeAccount, Clock as NativeClock, LiteSvm } from "litesvm/dist/internal.js";
import { fromBase58, toBase58 } from "../crypto/solana.js";
import type { SolanaAccountState } from "./solanaAccounts.js";
import { solanaTxErrorJson, type SolanaTxError } from "./solanaRuntimeErrors.js";

interface NativeBinding {
  LiteSvm: new () => LiteSvm;
  Account: new (lamports: bigint, data: Uint8Array, owner: Uint8Array, executable: boolean, rentEpoch: bigint) => NativeAccount;
  Clock: new (slot: bigint, epochStartTimestamp: bigint, epoch: bigint, leaderScheduleEpoch: bigint, unixTimestamp: bigint) => NativeClock;
}

export interface SolanaExecution {
  /** null when every instruction succeeded. */
  err: SolanaTxError | null;
  logs: string[];
  unitsConsumed: number;
  /** The writable accounts as the transaction leaves them (fee taken), to write back when it lands. */
  post: SolanaAccountState[];
}

export interface SolanaRuntime {
  /**
   * Runs a signed wire transaction against the given accounts (every account it names that the project holds;
   * the others do not exist, unless the runtime itself provides them: programs, sysvars) without keeping anything.
   */
  execute(
    network: string,
    wire: Uint8Array,
    version: "legacy" | number,
    accounts: readonly (SolanaAccountState | string)[],
    at: { slot: number; nowMs: number },
  ): SolanaExecution;
}

const SLOTS_PER_EPOCH = 432_000n;
const loadModule = createRequire(import.meta.url);
let binding: NativeBinding | null | undefined;
let forcedModel = process.env.CDP_SANDBOX_SOLANA_RUNTIME === "model";

/** Makes the sandbox use its TypeScript model as where the runtime cannot load (tests of that path). */
export function forceSolanaModel(forced: boolean): void {
  forcedModel = forced;
}

function loadBinding(): NativeBinding | null {
  if (binding === undefined) {
    try {
      binding = loadModule("litesvm/dist/internal.js") as NativeBinding;
    } catch {
      binding = null; // no build for this platform
    }
  }
  return binding;
}

class LiteSvmRuntime implements SolanaRuntime {
  /** Accounts this process ever wrote into a network's runtime: one the project does not hold must be emptied again. */
  private readonly instances = new Map<string, { svm: LiteSvm; written: Set<string> }>();

  constructor(private readonly native: NativeBinding) {}

  private instance(network: string) {
    let found = this.instances.get(network);
    if (!found) {
      const svm = new this.native.LiteSvm();
      svm.setBlockhashCheck(false);
      svm.setTransactionHistory(0n);
      svm.withNativeMints();
      found = { svm, written: new Set() };
      this.instances.set(network, found);
    }
    return found;
  }

  execute(
    network: string,
    wire: Uint8Array,
    version: "legacy" | number,
    accounts: readonly (SolanaAccountState | string)[],
    at: { slot: number; nowMs: number },
  ): SolanaExecution {
    const { svm, written } = this.instance(network);
    const { Account, Clock } = this.native;
    for (const entry of accounts) {
      if (typeof entry === "string") {
        // Not held by the project: empty it if an earlier transaction (of any project) left it in the runtime.
        if (written.has(entry)) svm.setAccount(fromBase58(entry), new Account(0n, new Uint8Array(), new Uint8Array(32), false, 0n));
        continue;
      }
      svm.setAccount(
        fromBase58(entry.address),
        new Account(BigInt(entry.lamports), new Uint8Array(Buffer.from(entry.data, "base64")), fromBase58(entry.owner), entry.executable === true, 0n),
      );
      written.add(entry.address);
    }
    const slot = BigInt(at.slot);
    const epoch = slot / SLOTS_PER_EPOCH;
    svm.setClock(new Clock(slot, BigInt(Math.floor(at.nowMs / 1000)), epoch, epoch, BigInt(Math.floor(at.nowMs / 1000))));
    const result = version === "legacy" ? svm.simulateLegacyTransaction(wire) : svm.simulateVersionedTransaction(wire);
    if ("err" in result) {
      const meta = result.meta();
      return { err: solanaTxErrorJson(result.err()), logs: meta.logs(), unitsConsumed: Number(meta.computeUnitsConsumed()), post: [] };
    }
    const meta = result.meta();
    const post = result.postAccounts().map((entry) => {
      const account = entry.account();
      const address = toBase58(entry.address);
      written.add(address);
      return {
        network,
        address,
        lamports: account.lamports().toString(),
        owner: toBase58(account.owner()),
        data: Buffer.from(account.data()).toString("base64"),
        ...(account.executable() ? { executable: true } : {}),
      };
    });
    return { err: null, logs: meta.logs(), unitsConsumed: Number(meta.computeUnitsConsumed()), post };
  }
}

let runtime: LiteSvmRuntime | undefined;

/** The runtime, or undefined where its native build does not load (Windows) or the model is forced. */
export function solanaRuntime(): SolanaRuntime | undefined {
  if (forcedModel) return undefined;
  const native = loadBinding();
  if (!native) return undefined;
  runtime ??= new LiteSvmRuntime(native);
  return runtime;
}
