/**
 * The official client's flows with automine, the sandbox's default, on a
 * clock that never moves: every receipt, user operation and signature status
 * is there the first time the client asks, with no sleep and no clock
 * advance (as the client's own end-to-end suite expects of a node).
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import {
  address,
  appendTransactionMessageInstruction,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Signature,
} from "@solana/kit";
import { createPublicClient, encodeFunctionData, erc20Abi, http, parseUnits, type PublicClient } from "viem";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock, startSandbox, type Sandbox } from "cdp-sandbox";
import { hostOf } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
let nodeUrl: (network: string) => string;
beforeAll(async () => {
  const clock = createClock();
  clock.freeze(true); // no block boundary passes on its own: only mining puts transactions in blocks
  sandbox = await startSandbox({ port: 0, seed: "sdk-mining", clock, validateResponses: true });
  const { apiKeyId, apiKeySecret } = sandbox.credentials;
  cdp = cdpClientFor(sandbox);
  const path = "/apikeys/v1/tokens/active";
  const bearer = await mintBearer(apiKeyId, apiKeySecret, { method: "GET", host: hostOf(sandbox), path });
  const token = ((await (await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as { id: string }).id;
  nodeUrl = (network) => `${sandbox.url}/rpc/v1/${network}/${token}`;
});
afterAll(() => sandbox.close());

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;

describe("@coinbase/cdp-sdk with automine", () => {
  it("finds the receipt of a sendTransaction with one eth_getTransactionReceipt, right after the send", async () => {
    const client = createPublicClient({ chain: baseSepolia, transport: http(nodeUrl("base-sepolia")) }) as PublicClient;
    const account = await cdp.evm.createAccount();
    const faucet = await account.requestFaucet({ network: "base-sepolia", token: "eth" });
    expect((await client.getTransactionReceipt({ hash: faucet.transactionHash })).status).toBe("success");
    const { transactionHash } = await account.sendTransaction({ network: "base-sepolia", transaction: { to: TO, value: 1000n } });
    const receipt = await client.getTransactionReceipt({ hash: transactionHash });
    expect(receipt).toMatchObject({ status: "success", transactionHash });
    expect(receipt.blockNumber).toBe(await client.getBlockNumber());
  });

  it("a network-scoped account's transfer and waitForTransactionReceipt complete without the clock moving", async () => {
    const account = await cdp.evm.createAccount();
    await account.requestFaucet({ network: "base-sepolia", token: "eth" });
    await account.requestFaucet({ network: "base-sepolia", token: "usdc" });
    const scoped = await account.useNetwork("base-sepolia");
    const sent = await scoped.transfer({ to: TO, amount: parseUnits("0.25", 6), token: "usdc" });
    expect((await scoped.waitForTransactionReceipt({ ...sent, timeout: 5_000 })).status).toBe("success");
  });

  it("a smart account's user operation is complete the first time waitForUserOperation looks", async () => {
    const owner = await cdp.evm.createAccount();
    const smartAccount = await cdp.evm.createSmartAccount({ owner });
    const sent = await cdp.evm.sendUserOperation({
      smartAccount,
      network: "base-sepolia",
      calls: [{ to: USDC, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [TO, 1n] }) }],
    });
    // The send answers what the platform answers at send time; only a later look finds it included.
    expect(sent.status).toBe("broadcast");
    const done = await cdp.evm.waitForUserOperation({
      smartAccountAddress: smartAccount.address,
      userOpHash: sent.userOpHash,
      waitOptions: { timeoutSeconds: 2 },
    });
    expect(done.status).toBe("complete");
  });

  it("a Solana sendTransaction is finalized at once on the node", async () => {
    const account = await cdp.solana.createAccount();
    // Two claims: a new recipient must be left rent-exempt (890,880 lamports), and so must the payer.
    await cdp.solana.requestFaucet({ address: account.address, token: "sol" });
    await cdp.solana.requestFaucet({ address: account.address, token: "sol" });
    const rpc = createSolanaRpc(nodeUrl("solana-devnet"));
    const { value: latest } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(address(account.address), m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) =>
        appendTransactionMessageInstruction(
          {
            programAddress: address("11111111111111111111111111111111"), // System program: transfer 900,000 lamports
            accounts: [
              { address: address(account.address), role: 3 },
              { address: address(TO_SOLANA), role: 1 },
            ],
            data: new Uint8Array([2, 0, 0, 0, 0xa0, 0xbb, 0x0d, 0, 0, 0, 0, 0]),
          },
          m,
        ),
    );
    const transaction = getBase64EncodedWireTransaction(compileTransaction(message));
    const { signature } = await cdp.solana.sendTransaction({ network: "solana-devnet", transaction });
    const { value } = await rpc.getSignatureStatuses([signature as Signature]).send();
    expect(value[0]).toMatchObject({ err: null, confirmationStatus: "finalized" });
  });
});

const TO_SOLANA = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
