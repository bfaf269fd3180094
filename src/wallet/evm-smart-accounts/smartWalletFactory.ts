/**
 * Coinbase Smart Wallets on the simulated chain. The wallet factories (v1 and
 * v1.1) answer `getAddress(owners, nonce)` with the sandbox's counterfactual
 * address — the factory's salt over the sandbox's stand-in init code hash, so
 * not the address a public chain gives the same owners — and a user
 * operation whose initCode calls `createAccount(owners, nonce)` on one of them
 * deploys the wallet at that address on that network. A wallet is also
 * deployed by its first platform user operation. Deployed wallets have code
 * (`eth_getCode`), and an EOA whose EIP-7702 delegation completed shows the
 * delegation designator.
 */
import { decodeFunctionData, encodeAbiParameters, getAddress, type Hex, size, slice } from "viem";
import type { Clock } from "../../clock.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import { DELEGATE_ADDRESS, isDelegated } from "../evm-accounts/eip7702.js";
import { counterfactualAddress, SMART_WALLET_FACTORY } from "./accounts.js";

/** The factories of wallet versions 1 and 1.1, at their addresses on every network. */
const SMART_WALLET_FACTORIES: readonly `0x${string}`[] = [getAddress("0x0ba5ed0c6aa8c49038f819e587e2633c4a9f428a"), SMART_WALLET_FACTORY];

const factoryAbi = [
  {
    type: "function",
    name: "createAccount",
    stateMutability: "payable",
    inputs: [
      { name: "owners", type: "bytes[]" },
      { name: "nonce", type: "uint256" },
    ],
    outputs: [{ name: "account", type: "address" }],
  },
  {
    type: "function",
    name: "getAddress",
    stateMutability: "view",
    inputs: [
      { name: "owners", type: "bytes[]" },
      { name: "nonce", type: "uint256" },
    ],
    outputs: [{ type: "address" }],
  },
] as const;

/** What the sandbox shows as a deployed wallet's code: a marker, as for its other contracts. */
const WALLET_CODE = "0x00" as const;

interface SmartWalletDeployment {
  network: string;
  address: `0x${string}`;
  /** Owner addresses in index order. */
  owners: string[];
  deployedAtMs: number;
}

const DEPLOYMENTS = declareCollection<SmartWalletDeployment>("smartWalletDeployments");

const deployments = (store: ProjectTx) => store.collection(DEPLOYMENTS);
const deploymentKey = (network: string, address: string) => `${network}|${address.toLowerCase()}`;

const isFactory = (address: string) => SMART_WALLET_FACTORIES.some((f) => f.toLowerCase() === address.toLowerCase());

export function isWalletDeployed(store: ProjectTx, network: string, address: string): boolean {
  return deployments(store).get(deploymentKey(network, address)) !== undefined;
}

/** Records the wallet at `address` as deployed on `network` (once: a later call changes nothing). */
export function recordDeployment(store: ProjectTx, clock: Clock, network: string, address: `0x${string}`, owners: readonly string[]): void {
  if (isWalletDeployed(store, network, address)) return;
  deployments(store).put(deploymentKey(network, address), { network, address, owners: [...owners], deployedAtMs: clock.now() });
}

/** The owners of a wallet deployed on some network by its initCode; undefined when none was. */
export function deployedWalletOwners(store: ProjectTx, address: string): string[] | undefined {
  const key = address.toLowerCase();
  return deployments(store).find((d) => d.address.toLowerCase() === key)?.owners;
}

/** Owners as the factory takes them (bytes[]), back to addresses; a 64-byte passkey owner is not an address. */
function ownerAddresses(owners: readonly Hex[]): string[] | string {
  const addresses: string[] = [];
  for (const [i, owner] of owners.entries()) {
    if (size(owner) !== 32 || BigInt(slice(owner, 0, 12)) !== 0n)
      return `owner ${i} is not an ABI-encoded address (${size(owner)} bytes): the sandbox's wallets take address owners only, not passkeys`;
    addresses.push(getAddress(slice(owner, 12)));
  }
  return owners.length === 0 ? "createAccount needs at least one owner" : addresses;
}

/**
 * What an initCode (factory + factoryData) creates: the wallet's owners and address, or why the sandbox cannot run it.
 *
 * @example walletCreatedBy(factory, factoryData) // { owners: ["0x…"], address: "0x…" }
 */
export function walletCreatedBy(factory: `0x${string}`, factoryData: Hex): { owners: string[]; address: `0x${string}` } | { error: string } {
  if (!isFactory(factory))
    return { error: `factory ${factory} is not a Coinbase Smart Wallet factory the sandbox knows (${SMART_WALLET_FACTORIES.join(", ")})` };
  let args: readonly [readonly Hex[], bigint];
  try {
    const call = decodeFunctionData({ abi: factoryAbi, data: factoryData });
    if (call.functionName !== "createAccount") return { error: "factoryData must call createAccount(bytes[] owners, uint256 nonce)" };
    args = call.args;
  } catch {
    return { error: "factoryData must call createAccount(bytes[] owners, uint256 nonce)" };
  }
  const owners = ownerAddresses(args[0]);
  if (typeof owners === "string") return { error: owners };
  return { owners, address: counterfactualAddress(owners, args[1], getAddress(factory)) };
}

/** `getAddress(owners, nonce)` of a wallet factory, as `eth_call` answers it; undefined for any other call. */
export function factoryRead(to: string, data: Hex): Hex | undefined {
  if (!isFactory(to)) return undefined;
  try {
    const call = decodeFunctionData({ abi: factoryAbi, data });
    if (call.functionName !== "getAddress") return undefined;
    const owners = ownerAddresses(call.args[0]);
    if (typeof owners === "string") return undefined;
    return encodeAbiParameters([{ type: "address" }], [counterfactualAddress(owners, call.args[1], getAddress(to))]);
  } catch {
    return undefined;
  }
}

/**
 * The code at `address` on `network` that the wallets give it: a deployed wallet's, or an EIP-7702
 * delegation designator (0xef0100 ‖ delegate); undefined when neither applies.
 */
export function walletCodeAt(ctx: { store: ProjectTx; clock: Clock }, network: string, address: string): Hex | undefined {
  if (isWalletDeployed(ctx.store, network, address)) return WALLET_CODE;
  if (isDelegated(ctx, address, network)) return `0xef0100${DELEGATE_ADDRESS.slice(2).toLowerCase()}`;
  return undefined;
}
