/**
 * The EVM's state, read from and written to the project's ledger: native
 * balances are the ledger's balances, nonces its nonces, and contract code and
 * storage two more collections beside them. Nothing is copied into the EVM, so
 * there is one source of truth, it rolls back with the call frame (through the
 * journaled transaction) and it is kept with the project (`--data`, snapshots).
 *
 * One state manager serves one chain of the process; `bind` points it at the
 * project transaction and network of the run in progress (runs are queued,
 * one at a time: runtime.ts).
 */
import type { StateManagerInterface } from "@ethereumjs/common";
import { Account, type Address, bytesToHex, hexToBytes, KECCAK256_NULL, KECCAK256_RLP, unpadBytes } from "@ethereumjs/util";
import { keccak256 } from "viem";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import { evmBalanceOf, setEvmBalance } from "./balances.js";
import { clearNonce, nextNonce, setNextNonce } from "./nonces.js";
import type { JournaledTx } from "./journaledTx.js";

/** A contract's runtime code on one network, keyed `network|address` (lowercase), with its keccak256 (hashing it at every read cost more than running it). */
const EVM_CODE = declareCollection<{ code: `0x${string}`; hash?: `0x${string}` }>("evmCode");

/** Decoded code by its hash (genesis code by the code itself): few distinct codes, read at every call. */
const codeBytes = new Map<string, Uint8Array>();

/** Hashes of code without a stored one (genesis code, older records), computed once per code. */
const genesisHashes = new Map<string, Uint8Array>();
function genesisHash(code: `0x${string}`): Uint8Array {
  let hash = genesisHashes.get(code);
  if (!hash) {
    hash = hexToBytes(keccak256(code));
    genesisHashes.set(code, hash);
  }
  return hash;
}
/**
 * One non-zero storage slot, keyed `network|address|slot` (lowercase, the slot as 64 hex digits); `contract` is
 * `network|address`, indexed so that clearing a contract's storage (at every CREATE) finds its slots without a scan.
 * The slot is the key's end, so a record does not repeat it (80 bytes of a token holder's ~300); records written
 * before kept it as `slot`, which nothing reads.
 */
const EVM_STORAGE = declareCollection<{ contract: string; value: `0x${string}`; slot?: string }>("evmStorage", {
  indexes: { contract: (s) => s.contract },
});

const NATIVE = "native";
const codeKey = (network: string, address: string) => `${network}|${address.toLowerCase()}`;
const slotHex = (slot: Uint8Array) => bytesToHex(slot).slice(2).padStart(64, "0");
const slotKey = (network: string, address: string, slot: Uint8Array) => `${codeKey(network, address)}|${slotHex(slot)}`;

/** Code that exists without a deployment (the canonical contracts, the stubs at modelled contracts' addresses). */
export type GenesisCode = (network: string, address: string) => `0x${string}` | undefined;

/** The code at an address as the chain reports it: deployed code first, then genesis code. */
export function codeAt(store: ProjectTx, network: string, address: string, genesis: GenesisCode): `0x${string}` {
  return store.collection(EVM_CODE).get(codeKey(network, address))?.code ?? genesis(network, address) ?? "0x";
}

/** Whether the project deployed code at this address (not genesis code). */
export function hasDeployedCode(store: ProjectTx, network: string, address: string): boolean {
  return store.collection(EVM_CODE).get(codeKey(network, address)) !== undefined;
}

/** One storage slot as `eth_getStorageAt` answers it: 32 bytes. */
export function storageAt(store: ProjectTx, network: string, address: string, slot: bigint): `0x${string}` {
  const key = `${network}|${address.toLowerCase()}|${slot.toString(16).padStart(64, "0")}`;
  const value = store.collection(EVM_STORAGE).get(key)?.value ?? "0x";
  return `0x${value.slice(2).padStart(64, "0")}`;
}

/** Replaces the code at an address outside any transaction (a test node's `setCode`); empty code removes it. */
export function putCodeAt(store: ProjectTx, network: string, address: string, code: `0x${string}`): void {
  const codes = store.collection(EVM_CODE);
  if (code === "0x") {
    if (codes.get(codeKey(network, address))) codes.delete(codeKey(network, address));
  } else codes.put(codeKey(network, address), { code, hash: keccak256(code) });
}

/** Writes one 32-byte storage slot outside any transaction (a test node's `setStorageAt`); zero clears it. */
export function putStorageSlot(store: ProjectTx, network: string, address: string, slot: bigint, value: `0x${string}`): void {
  const slotBytes = hexToBytes(`0x${slot.toString(16).padStart(64, "0")}`);
  const id = slotKey(network, address, slotBytes);
  const bytes = unpadBytes(hexToBytes(value));
  const slots = store.collection(EVM_STORAGE);
  if (bytes.length === 0) {
    if (slots.get(id)) slots.delete(id);
  } else slots.put(id, { contract: codeKey(network, address), value: bytesToHex(bytes) });
}

export class LedgerStateManager implements StateManagerInterface {
  private tx: JournaledTx | undefined;
  private network = "";
  /** Slot values as they were when the transaction began (SSTORE's gas depends on them). */
  private readonly original = new Map<string, Uint8Array>();
  /**
   * The run's slots and code records as last read or written, by slotKey and codeKey (undefined: none): the EVM
   * reads a slot or a contract's code several times a call, and every read from the store is a copy (~10 µs for a
   * slot, more for code). Only this manager writes them during a run; a revert puts older values back through the
   * journaled transaction, so it drops both, and so does each bind.
   */
  private readonly slots = new Map<string, Uint8Array>();
  private readonly codes = new Map<string, { code: `0x${string}`; hash?: `0x${string}` } | undefined>();

  constructor(private readonly genesis: GenesisCode) {}

  /** Points the manager at a run: its journaled transaction and network. Called by the runtime only, inside its queue. */
  bind(tx: JournaledTx, network: string): void {
    this.tx = tx;
    this.network = network;
    this.original.clear();
    this.forgetReads();
  }

  private forgetReads(): void {
    this.slots.clear();
    this.codes.clear();
  }

  /** The deployed code record at an address (not genesis code), read once per run. */
  private deployedCode(address: string): { code: `0x${string}`; hash?: `0x${string}` } | undefined {
    const key = codeKey(this.network, address);
    if (this.codes.has(key)) return this.codes.get(key);
    const record = this.store.collection(EVM_CODE).get(key);
    this.codes.set(key, record);
    return record;
  }

  private get store(): JournaledTx {
    if (!this.tx) throw new Error("the EVM state is not bound to a project");
    return this.tx;
  }

  readonly originalStorageCache = {
    get: async (address: Address, key: Uint8Array): Promise<Uint8Array> => {
      const id = slotKey(this.network, address.toString(), key);
      const known = this.original.get(id);
      if (known) return known;
      const value = await this.getStorage(address, key);
      this.original.set(id, value);
      return value;
    },
    clear: () => this.original.clear(),
  };

  async getAccount(address: Address): Promise<Account | undefined> {
    const a = address.toString();
    const balance = evmBalanceOf(this.store, this.network, NATIVE, a);
    const nonce = BigInt(nextNonce(this.store, this.network, a));
    const codeHash = this.codeHashOf(a);
    if (balance === 0n && nonce === 0n && codeHash === KECCAK256_NULL) return undefined;
    return new Account(nonce, balance, KECCAK256_RLP, codeHash);
  }

  private codeHashOf(address: string): Uint8Array {
    const deployed = this.deployedCode(address);
    // A record written before code records kept their hash (a state file of an earlier version) has none.
    if (deployed) return deployed.hash ? hexToBytes(deployed.hash) : genesisHash(deployed.code);
    const genesis = this.genesis(this.network, address);
    return genesis ? genesisHash(genesis) : KECCAK256_NULL;
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (!account) return this.deleteAccount(address);
    const a = address.toString();
    if (evmBalanceOf(this.store, this.network, NATIVE, a) !== account.balance) setEvmBalance(this.store, this.network, NATIVE, a, account.balance);
    if (BigInt(nextNonce(this.store, this.network, a)) !== account.nonce) setNextNonce(this.store, this.network, a, Number(account.nonce));
  }

  async deleteAccount(address: Address): Promise<void> {
    const a = address.toString();
    if (evmBalanceOf(this.store, this.network, NATIVE, a) !== 0n) setEvmBalance(this.store, this.network, NATIVE, a, 0n);
    clearNonce(this.store, this.network, a);
    if (this.deployedCode(a)) this.store.collection(EVM_CODE).delete(codeKey(this.network, a));
    this.codes.set(codeKey(this.network, a), undefined);
    await this.clearStorage(address);
  }

  async modifyAccountFields(address: Address, fields: { nonce?: bigint; balance?: bigint }): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    await this.putAccount(address, account);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    const code = bytesToHex(value);
    const record = { code, hash: keccak256(code) };
    this.store.collection(EVM_CODE).put(codeKey(this.network, address.toString()), record);
    this.codes.set(codeKey(this.network, address.toString()), record);
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const a = address.toString();
    const deployed = this.deployedCode(a);
    const code = deployed?.code ?? this.genesis(this.network, a);
    if (!code) return new Uint8Array(0);
    // Decoded once per distinct code (keyed by its hash): the EVM reads a contract's code at every call into it.
    const hash = deployed?.hash ?? code;
    let bytes = codeBytes.get(hash);
    if (!bytes) {
      bytes = hexToBytes(code);
      codeBytes.set(hash, bytes);
    }
    return bytes;
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const id = slotKey(this.network, address.toString(), key);
    let bytes = this.slots.get(id);
    if (!bytes) {
      const value = this.store.collection(EVM_STORAGE).get(id)?.value;
      bytes = value ? hexToBytes(value) : new Uint8Array(0);
      this.slots.set(id, bytes);
    }
    // A copy: the EVM may pad or change what it is handed.
    return bytes.slice();
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const id = slotKey(this.network, address.toString(), key);
    const bytes = unpadBytes(value);
    const slots = this.store.collection(EVM_STORAGE);
    if (bytes.length === 0) {
      if ((await this.getStorage(address, key)).length > 0) slots.delete(id);
    } else slots.put(id, { contract: codeKey(this.network, address.toString()), value: bytesToHex(bytes) });
    this.slots.set(id, bytes.slice());
  }

  async clearStorage(address: Address): Promise<void> {
    const contract = codeKey(this.network, address.toString());
    const slots = this.store.collection(EVM_STORAGE);
    this.slots.clear();
    for (const id of slots.idsBy("contract", contract)) slots.delete(id);
  }

  async checkpoint(): Promise<void> {
    this.store.checkpoint();
  }

  async commit(): Promise<void> {
    this.store.commit();
  }

  async revert(): Promise<void> {
    this.store.revert();
    this.forgetReads();
  }

  // The sandbox keeps no state trie: roots are constants, and every root is "known".
  async getStateRoot(): Promise<Uint8Array> {
    return KECCAK256_RLP;
  }

  async setStateRoot(): Promise<void> {}

  async hasStateRoot(): Promise<boolean> {
    return true;
  }

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    return new LedgerStateManager(this.genesis);
  }
}
