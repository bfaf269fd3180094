/**
 * Every cdp.endUser flow of the official client against the sandbox: end-user
 * management, and the developer acting for end users under delegation grants
 * (EVM and Solana signing and sending, assets, user operations, EIP-7702,
 * grants read and revoked). Signatures checked with viem and noble.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { ed25519 } from "@noble/curves/ed25519.js";
import {
  address as toAddress,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getBase58Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recoverMessageAddress, serializeTransaction, recoverTransactionAddress, verifyTypedData } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { call, endUserSession, fund } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  // Interval mining: these tests watch user operations wait for their block (broadcast, then complete).
  sandbox = await startSandbox({ port: 0, seed: "sdk-end-users", validateResponses: true, mining: "interval" });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";
const RECIPIENT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const inOneHour = () => new Date(sandbox.clock.now() + 3600_000).toISOString();

/** The end user authorizes the developer for one account, with their token and Temporary Wallet Secret. */
async function delegate(userId: string, address: string) {
  const session = await endUserSession(sandbox, userId);
  const res = await call(sandbox, "POST", `${EW}/${userId}/address/${address}/delegation`, { body: { expiresAt: inOneHour() }, endUser: session });
  expect(res.status).toBe(201);
}

async function usdcOf(network: string, address: string) {
  const { balances } = await cdp.evm.listTokenBalances({ address: address as `0x${string}`, network: network as "base-sepolia" });
  return balances.find((b) => b.token.symbol === "USDC")?.amount.amount ?? 0n;
}

function solanaTransfer(from: string, to: string, lamports: number): string {
  const data = new Uint8Array(12);
  data[0] = 2; // SystemProgram.transfer
  new DataView(data.buffer).setBigUint64(4, BigInt(lamports), true);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(toAddress(from), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash, lastValidBlockHeight: 100n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: toAddress("11111111111111111111111111111111"),
          accounts: [
            { address: toAddress(from), role: 3 },
            { address: toAddress(to), role: 1 },
          ],
          data,
        },
        m,
      ),
  );
  return Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString("base64");
}

describe("@coinbase/cdp-sdk end-user management", () => {
  it("creates, gets, lists and adds accounts", async () => {
    const user = await cdp.endUser.createEndUser({
      authenticationMethods: [{ type: "email", email: "sdk@example.com" }],
      evmAccount: { createSmartAccount: true },
    });
    expect(user.evmAccounts).toHaveLength(1);
    expect(user.evmSmartAccounts).toHaveLength(1);
    expect((await cdp.endUser.getEndUser({ userId: user.userId })).userId).toBe(user.userId);
    expect((await cdp.endUser.listEndUsers()).endUsers.map((u) => u.userId)).toContain(user.userId);
    const evm = await cdp.endUser.addEndUserEvmAccount({ userId: user.userId });
    expect(evm.evmAccount.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const sol = await cdp.endUser.addEndUserSolanaAccount({ userId: user.userId });
    expect(sol.solanaAccount.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const smart = await cdp.endUser.addEndUserEvmSmartAccount({ userId: user.userId, enableSpendPermissions: false });
    expect(smart.evmSmartAccount.ownerAddresses).toEqual([user.evmAccounts[0]]);
    const viaObject = await user.addEvmAccount();
    expect(viaObject.evmAccount.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it("imports an end user with the sandbox's encryptionPublicKey", async () => {
    const key = generatePrivateKey();
    const user = await cdp.endUser.importEndUser({
      authenticationMethods: [{ type: "email", email: "imported@example.com" }],
      privateKey: key,
      keyType: "evm",
      encryptionPublicKey: sandbox.importKeyPem,
    });
    expect(user.evmAccounts).toEqual([privateKeyToAccount(key).address]);
  });

  it("validates an access token issued by the sandbox, and rejects a foreign one", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "token@example.com" }] });
    const session = await endUserSession(sandbox, user.userId);
    const validated = await cdp.endUser.validateAccessToken({ accessToken: session.accessToken });
    expect(validated.userId).toBe(user.userId);
    await expect(cdp.endUser.validateAccessToken({ accessToken: "not-a-token" })).rejects.toMatchObject({ statusCode: 400, errorType: "invalid_request" });
    const other = await sandbox.createProject("foreign-tokens");
    await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { userId: "foreign-1", authenticationMethods: [{ type: "email", email: "f@example.com" }] },
      wallet: true,
      credentials: other,
    });
    const foreign = await endUserSession(sandbox, "foreign-1", other);
    await expect(cdp.endUser.validateAccessToken({ accessToken: foreign.accessToken })).rejects.toMatchObject({ statusCode: 401, errorType: "unauthorized" });
  });
});

describe("@coinbase/cdp-sdk acting for end users under delegation", () => {
  it("signs EVM messages, transactions and typed data, and fails with delegation_revoked after revoking", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "delegated@example.com" }] });
    const address = user.evmAccounts[0]! as `0x${string}`;
    await expect(cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "too early" })).rejects.toMatchObject({
      statusCode: 403,
      errorType: "delegation_not_found",
    });
    await delegate(user.userId, address);
    expect((await cdp.endUser.getDelegationForEndUserAccount({ userId: user.userId, address })).expiresAt).toEqual(expect.any(String));
    expect((await cdp.endUser.getDelegationForEndUser({ userId: user.userId })).expiresAt).toEqual(expect.any(String));

    const { signature } = await cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "delegated hello" });
    expect(await recoverMessageAddress({ message: "delegated hello", signature: signature as `0x${string}` })).toBe(address);
    const viaObject = await user.signEvmMessage({ message: "from the object" });
    expect(await recoverMessageAddress({ message: "from the object", signature: viaObject.signature as `0x${string}` })).toBe(address);

    const tx = serializeTransaction({
      type: "eip1559",
      chainId: 84532,
      nonce: 0,
      to: address,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 8n,
    });
    const signed = await cdp.endUser.signEvmTransaction({ userId: user.userId, address, transaction: tx });
    expect(await recoverTransactionAddress({ serializedTransaction: signed.signedTransaction as `0x02${string}` })).toBe(address);

    const typedData = {
      domain: { name: "Sandbox", version: "1", chainId: 84532 },
      types: { Note: [{ name: "text", type: "string" }] },
      primaryType: "Note",
      message: { text: "hi" },
    };
    const typed = await cdp.endUser.signEvmTypedData({ userId: user.userId, address, typedData: typedData as never });
    expect(
      await verifyTypedData({ ...(typedData as never as Parameters<typeof verifyTypedData>[0]), address, signature: typed.signature as `0x${string}` }),
    ).toBe(true);

    await cdp.endUser.revokeDelegationForEndUserAccount({ userId: user.userId, address });
    await expect(cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "again" })).rejects.toMatchObject({
      statusCode: 403,
      errorType: "delegation_revoked",
    });
  });

  it("fails with delegation_expired once the sandbox clock passes expiresAt", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "expiring@example.com" }] });
    const address = user.evmAccounts[0]! as `0x${string}`;
    await delegate(user.userId, address);
    sandbox.clock.advance(2 * 3600_000);
    await expect(cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "late" })).rejects.toMatchObject({
      statusCode: 403,
      errorType: "delegation_expired",
    });
  });

  it("sends an EVM transaction and USDC from the end user's account on the ledger", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "sender@example.com" }] });
    const address = user.evmAccounts[0]! as `0x${string}`;
    await fund(sandbox, { network: "base-sepolia", address, amount: "1000000000000000" });
    await fund(sandbox, { network: "base-sepolia", address, token: "USDC", amount: "3000000" });
    await delegate(user.userId, address);
    const tx = serializeTransaction({ type: "eip1559", chainId: 84532, to: RECIPIENT, value: 1000n });
    const sent = await cdp.endUser.sendEvmTransaction({ userId: user.userId, address, transaction: tx, network: "base-sepolia" });
    expect(sent.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    const before = await usdcOf("base-sepolia", RECIPIENT);
    const asset = await cdp.endUser.sendEvmAsset({ userId: user.userId, address, to: RECIPIENT, amount: "1.25", network: "base-sepolia" });
    expect(asset.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    sandbox.clock.advance(4000);
    expect((await usdcOf("base-sepolia", RECIPIENT)) - before).toBe(1_250_000n);
    expect(await usdcOf("base-sepolia", address)).toBe(1_750_000n);
  });

  it("sends a user operation and USDC from the end user's smart account, under a grant on its owner", async () => {
    const user = await cdp.endUser.createEndUser({
      authenticationMethods: [{ type: "email", email: "smart@example.com" }],
      evmAccount: { createSmartAccount: true },
    });
    const smart = user.evmSmartAccounts[0]! as `0x${string}`;
    await fund(sandbox, { network: "base-sepolia", address: smart, token: "USDC", amount: "2000000" });
    await delegate(user.userId, smart); // scoped to the owner EOA, as the platform does
    const op = await cdp.endUser.sendUserOperation({
      userId: user.userId,
      address: smart,
      network: "base-sepolia",
      calls: [{ to: RECIPIENT, value: "0", data: "0x" }],
      useCdpPaymaster: true,
    });
    expect(op.userOpHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(op.status).toBe("broadcast");
    const viaObject = await user.sendUserOperation({ network: "base-sepolia", calls: [{ to: RECIPIENT, value: "0", data: "0x" }], useCdpPaymaster: true });
    expect(viaObject.userOpHash).not.toBe(op.userOpHash);
    const before = await usdcOf("base-sepolia", RECIPIENT);
    const asset = await cdp.endUser.sendEvmAsset({
      userId: user.userId,
      address: smart,
      to: RECIPIENT,
      amount: "0.5",
      network: "base-sepolia",
      useCdpPaymaster: true,
    });
    expect(asset.transactionHash).toBeNull();
    expect(asset.userOpHash).toMatch(/^0x[0-9a-f]{64}$/);
    sandbox.clock.advance(4000);
    expect((await usdcOf("base-sepolia", RECIPIENT)) - before).toBe(500_000n);
  });

  it("creates an EIP-7702 delegation for the end user's account", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "eip7702@example.com" }] });
    const address = user.evmAccounts[0]! as `0x${string}`;
    await fund(sandbox, { network: "base-sepolia", address, amount: "1000000000000000" });
    await delegate(user.userId, address);
    const { delegationOperationId } = await cdp.endUser.createEvmEip7702Delegation({ userId: user.userId, address, network: "base-sepolia" });
    expect(delegationOperationId).toEqual(expect.any(String));
  });

  it("signs and sends Solana messages, transactions and USDC for the end user", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "solana@example.com" }], solanaAccount: {} });
    const address = user.solanaAccounts[0]!;
    const recipient = (await cdp.solana.createAccount()).address;
    await fund(sandbox, { network: "solana-devnet", address, amount: "10000000" });
    await fund(sandbox, { network: "solana-devnet", address, token: "USDC", amount: "2000000" });
    await delegate(user.userId, address);
    const publicKey = new Uint8Array(getBase58Encoder().encode(address));

    const message = await cdp.endUser.signSolanaMessage({ userId: user.userId, address, message: Buffer.from("gm").toString("base64") });
    expect(message.signature).toEqual(expect.any(String));

    const unsigned = solanaTransfer(address, recipient, 1_000_000); // a new account must be left rent-exempt
    const { signedTransaction } = await cdp.endUser.signSolanaTransaction({ userId: user.userId, address, transaction: unsigned });
    const decoded = getTransactionDecoder().decode(Buffer.from(signedTransaction, "base64"));
    const signature = decoded.signatures[toAddress(address)]!;
    expect(ed25519.verify(new Uint8Array(signature), new Uint8Array(decoded.messageBytes), publicKey)).toBe(true);

    const sent = await cdp.endUser.sendSolanaTransaction({ userId: user.userId, address, transaction: unsigned, network: "solana-devnet" });
    expect(sent.transactionSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const usdc = await cdp.endUser.sendSolanaAsset({ userId: user.userId, address, to: recipient, amount: "1.5", network: "solana-devnet" });
    expect(usdc.transactionSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const { balances } = await cdp.solana.listTokenBalances({ address: recipient, network: "solana-devnet" });
    expect(balances.find((b) => b.token.symbol === "USDC")?.amount.amount).toBe(1_500_000n);
  });

  it("reads and revokes a project-wide grant through the end-user object", async () => {
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "projectwide@example.com" }], solanaAccount: {} });
    const made = await call(sandbox, "POST", `/_sandbox/end-users/${user.userId}/delegation`, { body: { expiresAt: inOneHour() } });
    expect(made.status).toBe(201);
    expect((await user.getDelegation()).expiresAt).toBe(made.body.expiresAt);
    expect(
      (await cdp.endUser.signSolanaMessage({ userId: user.userId, address: user.solanaAccounts[0]!, message: Buffer.from("hi").toString("base64") })).signature,
    ).toEqual(expect.any(String));
    await user.revokeDelegation();
    await expect(cdp.endUser.getDelegationForEndUser({ userId: user.userId })).rejects.toMatchObject({ statusCode: 404 });
    await expect(cdp.endUser.revokeDelegationForEndUser({ userId: user.userId })).rejects.toMatchObject({ statusCode: 404 });
  });
});
