/**
 * Solana programs executed for real, by LiteSVM (the Solana runtime as a library, a native addon): System,
 * SPL Token, Token-2022, Associated Token Account, Memo and Compute Budget run as on a cluster. The runtime
 * holds no project state between transactions: before each one the accounts it names are written into it from
 * the project's store (chain/solana/accounts.ts), the transaction is simulated (nothing is committed inside), the
 * accounts it leaves are handed back for the caller to write to the store, and the accounts written in are
 * emptied again. So projects never mix, a refused request changes nothing, and memory does not grow with the
 * number of accounts ever used. The sandbox keeps its own blockhashes (the runtime's check is off), sets the runtime's clock from
 * the sandbox clock, and keeps its own history.
 *
 * There is no build of the addon for Windows: where it does not load (or with CDP_SANDBOX_SOLANA_RUNTIME=model)
 * `solanaRuntime()` answers undefined and the sandbox applies transactions with its TypeScript model instead
 * (solanaModel.ts), over the same accounts.
 */
import { createRequire } from "node:module";
import type { Account as NativeAccount, Clock as NativeClock, InnerInstruction, LiteSvm } from "litesvm/dist/internal.js";
import { type ByTurns, runByTurns } from "../../byTurns.js";
import { fromBase58, toBase58 } from "../../crypto/solana.js";
import type { SolanaAccountState } from "./accounts.js";
import { solanaTxErrorJson, type SolanaTxError } from "./runtimeErrors.js";
import { SOLANA_TOKENS } from "./tokens.js";

interface NativeBinding {
  LiteSvm: new () => LiteSvm;
  Account: new (lamports: bigint, data: Uint8Array, owner: Uint8Array, executable: boolean, rentEpoch: bigint) => NativeAccount;
  Clock: new (slot: bigint, epochStartTimestamp: bigint, epoch: bigint, leaderScheduleEpoch: bigint, unixTimestamp: bigint) => NativeClock;
}

/** The instructions programs invoked (CPI) under one top-level instruction, in the RPC's `json` form. */
export interface SolanaInnerInstructions {
  /** The top-level instruction's index. */
  index: number;
  instructions: Array<{ programIdIndex: number; accounts: number[]; data: string; stackHeight: number }>;
}

export interface SolanaExecution {
  /** null when every instruction succeeded. */
  err: SolanaTxError | null;
  logs: string[];
  unitsConsumed: number;
  /** Only the top-level instructions that invoked others, as the node lists them. */
  innerInstructions: SolanaInnerInstructions[];
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
  private readonly instances = new Map<string, LiteSvm>();

  constructor(private readonly native: NativeBinding) {}

  /** Builds the network's VM now, if it is not yet (see prepareSolanaRuntime). */
  prepare(network: string): void {
    this.instance(network);
  }

  built(): string[] {
    return [...this.instances.keys()];
  }

  private instance(network: string): LiteSvm {
    let svm = this.instances.get(network);
    if (!svm) {
      svm = new this.native.LiteSvm();
      svm.setBlockhashCheck(false);
      svm.setTransactionHistory(0n);
      svm.withNativeMints();
      this.instances.set(network, svm);
    }
    return svm;
  }

  execute(
    network: string,
    wire: Uint8Array,
    version: "legacy" | number,
    accounts: readonly (SolanaAccountState | string)[],
    at: { slot: number; nowMs: number },
  ): SolanaExecution {
    const svm = this.instance(network);
    const { Account, Clock } = this.native;
    const written: Uint8Array[] = [];
    try {
      for (const entry of accounts) {
        if (typeof entry === "string") continue; // not held by the project: absent, unless the runtime provides it (programs, sysvars)
        const key = fromBase58(entry.address);
        const data = new Uint8Array(Buffer.from(entry.data, "base64"));
        svm.setAccount(key, new Account(BigInt(entry.lamports), data, fromBase58(entry.owner), entry.executable === true, 0n));
        written.push(key);
      }
      const slot = BigInt(at.slot);
      const epoch = slot / SLOTS_PER_EPOCH;
      const unix = BigInt(Math.floor(at.nowMs / 1000));
      svm.setClock(new Clock(slot, unix, epoch, epoch, unix));
      const result = version === "legacy" ? svm.simulateLegacyTransaction(wire) : svm.simulateVersionedTransaction(wire);
      if ("err" in result) {
        const meta = result.meta();
        return {
          err: solanaTxErrorJson(result.err()),
          logs: meta.logs(),
          unitsConsumed: Number(meta.computeUnitsConsumed()),
          innerInstructions: innerInstructionsJson(meta.innerInstructions()),
          post: [],
        };
      }
      const meta = result.meta();
      const post = result.postAccounts().map((entry) => {
        const account = entry.account();
        return {
          network,
          address: toBase58(entry.address),
          lamports: account.lamports().toString(),
          owner: toBase58(account.owner()),
          data: Buffer.from(account.data()).toString("base64"),
          ...(account.executable() ? { executable: true } : {}),
        };
      });
      return {
        err: null,
        logs: meta.logs(),
        unitsConsumed: Number(meta.computeUnitsConsumed()),
        innerInstructions: innerInstructionsJson(meta.innerInstructions()),
        post,
      };
    } finally {
      const empty = new Account(0n, new Uint8Array(), new Uint8Array(32), false, 0n);
      for (const key of written) svm.setAccount(key, empty);
    }
  }
}

/** The runtime's inner instructions (one list per top-level instruction) in the node's shape: empty lists left out. */
function innerInstructionsJson(lists: InnerInstruction[][]): SolanaInnerInstructions[] {
  return lists.flatMap((list, index) =>
    list.length === 0
      ? []
      : [
          {
            index,
            instructions: list.map((inner) => {
              const ix = inner.instruction();
              return { programIdIndex: ix.programIdIndex(), accounts: [...ix.accounts()], data: toBase58(ix.data()), stackHeight: inner.stackHeight() };
            }),
          },
        ],
  );
}

let runtime: LiteSvmRuntime | undefined;

/** The networks whose VM is built (for tests of the warm-up). */
export const builtSolanaNetworks = (): string[] => [...(runtime?.built() ?? [])];

/**
 * Builds the runtime before the first Solana transaction needs it, a piece per turn of the event loop: loading the
 * native addon (15–45 ms), then each network's VM (70–100 ms each: it loads and verifies the SPL programs in one
 * native call, which cannot be cut). Built on that transaction's request instead, they held the loop ~200 ms. `stop`
 * drops the pieces that have not run yet; `done` settles when all have run or it stops.
 *
 * @example const stop = prepareSolanaRuntime(); // … and on close: stop()
 */
export function prepareSolanaRuntime(): ByTurns {
  const pieces = [() => solanaRuntime(), ...Object.keys(SOLANA_TOKENS).map((network) => () => runtime?.prepare(network))];
  return runByTurns(pieces);
}

/** The runtime, or undefined where its native build does not load (Windows) or the model is forced. */
export function solanaRuntime(): SolanaRuntime | undefined {
  if (forcedModel) return undefined;
  const native = loadBinding();
  if (!native) return undefined;
  runtime ??= new LiteSvmRuntime(native);
  return runtime;
}
