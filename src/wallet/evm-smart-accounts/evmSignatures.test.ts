/**
 * The platform's one EVM signature check, as SIWE sign-in and the other callers use it: signatures are made with
 * viem (an EOA's personal_sign, a Coinbase Smart Wallet owner's signature of the wallet's replay-safe hash), and
 * accounts with bytecode are asked through the `ContractAccounts` interface the EVM runtime implements.
 */
import { encodeAbiParameters, encodeFunctionData, type Hex, hashMessage, hashTypedData, pad, parseAbi, serializeErc6492Signature } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { beforeEach, describe, expect, it } from "vitest";
import { createClock } from "../../clock.js";
import { Store } from "../../store/store.js";
import { counterfactualAddress, SMART_WALLET_FACTORY } from "./accounts.js";
import { recordDeployment } from "./smartWalletFactory.js";
import { type ContractAccounts, checkEvmSignature, type SignatureChain, verifyEvmSignature } from "./evmSignatures.js";

const SIWE = "example.org wants you to sign in with your Ethereum account";
let chain: SignatureChain;
beforeEach(async () => {
  const store = await Store.open();
  await store.putProject({ id: "p", name: "p", createdAt: "2026-01-01T00:00:00.000Z", settings: {}, apiKeys: [], data: {} });
  chain = { store: store.begin("p"), clock: createClock(() => Date.UTC(2026, 0, 1)), network: "base-sepolia", chainId: 84532 };
});

const newOwner = () => privateKeyToAccount(generatePrivateKey());

/** The owner's SignatureWrapper over the wallet's replay-safe hash of `hash`, as the wallet's isValidSignature takes it. */
async function walletSignature(owner: PrivateKeyAccount, wallet: `0x${string}`, hash: Hex): Promise<Hex> {
  const replaySafe = hashTypedData({
    domain: { name: "Coinbase Smart Wallet", version: "1", chainId: 84532, verifyingContract: wallet },
    types: { CoinbaseSmartWalletMessage: [{ name: "hash", type: "bytes32" }] },
    primaryType: "CoinbaseSmartWalletMessage",
    message: { hash },
  });
  return encodeAbiParameters([{ type: "tuple", components: [{ type: "uint8" }, { type: "bytes" }] }], [[0, await owner.sign({ hash: replaySafe })]]);
}

const createAccountCall = (owner: `0x${string}`) =>
  encodeFunctionData({ abi: parseAbi(["function createAccount(bytes[] owners, uint256 nonce)"]), args: [[pad(owner)], 0n] });

describe("verifyEvmSignature", () => {
  it("accepts an EOA's personal_sign of a SIWE message, and nobody else's", async () => {
    const account = newOwner();
    const signature = await account.signMessage({ message: SIWE });
    expect(await verifyEvmSignature(chain, account.address, { message: SIWE }, signature)).toBe(true);
    expect(await verifyEvmSignature(chain, account.address, hashMessage(SIWE), signature)).toBe(true);
    expect(await verifyEvmSignature(chain, newOwner().address, { message: SIWE }, signature)).toBe(false);
    expect(await verifyEvmSignature(chain, account.address, { message: `${SIWE}.` }, signature)).toBe(false);
  });

  it("accepts an undeployed smart wallet's ERC-6492 signature only for the wallet its factory call creates", async () => {
    const owner = newOwner();
    const wallet = counterfactualAddress([owner.address], 0n, SMART_WALLET_FACTORY);
    const inner = await walletSignature(owner, wallet, hashMessage(SIWE));
    const signature = serializeErc6492Signature({ address: SMART_WALLET_FACTORY, data: createAccountCall(owner.address), signature: inner });
    expect(await checkEvmSignature(chain, wallet, { message: SIWE }, signature)).toEqual({ valid: true, by: "erc6492", accountSignature: inner });
    const other = counterfactualAddress([newOwner().address], 0n, SMART_WALLET_FACTORY);
    expect(await checkEvmSignature(chain, other, { message: SIWE }, signature)).toMatchObject({ valid: false, reverts: true });
    // Without the wrapper, an undeployed wallet has no code: the inner signature is no ECDSA signature of the wallet.
    expect(await verifyEvmSignature(chain, wallet, { message: SIWE }, inner)).toBe(false);
  });

  it("asks a deployed smart wallet (ERC-1271): its owner's signature counts, an owner's plain ECDSA signature does not", async () => {
    const owner = newOwner();
    const wallet = counterfactualAddress([owner.address], 0n, SMART_WALLET_FACTORY);
    recordDeployment(chain.store, chain.clock, "base-sepolia", wallet, [owner.address]);
    const hash = hashMessage(SIWE);
    expect(await checkEvmSignature(chain, wallet, hash, await walletSignature(owner, wallet, hash))).toMatchObject({ valid: true, by: "erc1271" });
    expect(await verifyEvmSignature(chain, wallet, hash, await owner.signMessage({ message: SIWE }))).toBe(false);
    expect(await verifyEvmSignature(chain, wallet, hash, await walletSignature(newOwner(), wallet, hash))).toBe(false);
    // On another network the wallet is not deployed.
    expect(await verifyEvmSignature({ ...chain, network: "base", chainId: 8453 }, wallet, hash, await walletSignature(owner, wallet, hash))).toBe(false);
  });

  it("asks the EVM runtime about accounts with bytecode, with the 6492 factory call when there is one", async () => {
    const contract = newOwner().address;
    const asked: unknown[] = [];
    const contracts: ContractAccounts = {
      hasCode: (_chain, address) => address === contract,
      isValidSignature: async (_chain, address, hash, signature, deployment) => {
        asked.push({ address, hash, signature, deployment });
        return signature === "0xc0ffee";
      },
    };
    const hash = hashMessage(SIWE);
    expect(await verifyEvmSignature({ ...chain, contracts }, contract, hash, "0xc0ffee")).toBe(true);
    expect(await verifyEvmSignature({ ...chain, contracts }, contract, hash, "0xdead")).toBe(false);
    const counterfactual = newOwner().address;
    const factory = newOwner().address;
    const wrapped = serializeErc6492Signature({ address: factory, data: "0x1234", signature: "0xc0ffee" });
    expect(await checkEvmSignature({ ...chain, contracts }, counterfactual, hash, wrapped)).toMatchObject({ valid: true, by: "erc6492" });
    expect(asked.at(-1)).toEqual({ address: counterfactual, hash, signature: "0xc0ffee", deployment: { factory, factoryData: "0x1234" } });
  });
});
