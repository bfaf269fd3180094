/**
 * What client 1.57 sends to the Solana signing operations: `encoding` on message signing, and `network` on
 * transaction signing, which resolves the address lookup tables of v0 transactions on the sandbox's ledger.
 * Signatures are checked with @noble/curves; transactions and program addresses are built with @solana/kit.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import {
  address as toAddress,
  appendTransactionMessageInstructions,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  getAddressEncoder,
  getBase58Encoder,
  getProgramDerivedAddress,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "solana-1.57" });
});
afterAll(() => sandbox.close());

const ACCOUNTS = "/platform/v2/solana/accounts";
const ALT_PROGRAM = toAddress("AddressLookupTab1e1111111111111111111111111");
const SYSTEM = toAddress("11111111111111111111111111111111");
const BLOCKHASH = { blockhash: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash, lastValidBlockHeight: 100n };
const bytesOf = (base58: string) => new Uint8Array(getBase58Encoder().encode(base58));

async function newAccount(): Promise<string> {
  const res = await call(sandbox, "POST", ACCOUNTS, { body: {}, wallet: true });
  expect(res.status).toBe(201);
  return res.body.address;
}

const signMessage = (address: string, body: object) => call(sandbox, "POST", `${ACCOUNTS}/${address}/sign/message`, { body, wallet: true });

type Instruction = Parameters<typeof appendTransactionMessageInstructions>[0][number];

/** A v0 message from `payer` with these instructions, optionally compressed with lookup tables. */
function v0Transaction(payer: string, instructions: Instruction[], tables: Record<string, Address[]> = {}): string {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(toAddress(payer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(BLOCKHASH, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const compressed = compressTransactionMessageUsingAddressLookupTables(message, tables as never);
  return Buffer.from(getTransactionEncoder().encode(compileTransaction(compressed))).toString("base64");
}

const u32 = (n: number) => Buffer.from(Uint32Array.of(n).buffer);
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};

/** A System transfer of `lamports` from `from` to `to`: what a policy's solAddress criterion looks at. */
const transfer = (from: string, to: string, lamports: bigint): Instruction => ({
  programAddress: SYSTEM,
  accounts: [
    { address: toAddress(from), role: 3 },
    { address: toAddress(to), role: 1 },
  ],
  data: new Uint8Array([...u32(2), ...u64(lamports)]),
});

/** Creates and extends a lookup table governed by `authority` on solana-devnet by sending transactions through the API. */
async function lookupTableWith(authority: string, addresses: string[], slot = 7n): Promise<Address> {
  const [table, bump] = await getProgramDerivedAddress({ programAddress: ALT_PROGRAM, seeds: [getAddressEncoder().encode(toAddress(authority)), u64(slot)] });
  const create: Instruction = {
    programAddress: ALT_PROGRAM,
    accounts: [
      { address: table, role: 1 },
      { address: toAddress(authority), role: 2 },
      { address: toAddress(authority), role: 3 },
      { address: SYSTEM, role: 0 },
    ],
    data: new Uint8Array([...u32(0), ...u64(slot), bump]),
  };
  const extend: Instruction = {
    programAddress: ALT_PROGRAM,
    accounts: [
      { address: table, role: 1 },
      { address: toAddress(authority), role: 2 },
      { address: toAddress(authority), role: 3 },
      { address: SYSTEM, role: 0 },
    ],
    data: new Uint8Array([...u32(2), ...u64(BigInt(addresses.length)), ...addresses.flatMap((a) => [...bytesOf(a)])]),
  };
  const res = await call(sandbox, "POST", `${ACCOUNTS}/send/transaction`, {
    body: { network: "solana-devnet", transaction: v0Transaction(authority, [create, extend]) },
    wallet: true,
  });
  expect(res.status, res.text).toBe(200);
  return table;
}

describe("message encoding", () => {
  it("signs the bytes a base64 message decodes to with encoding base64, and the UTF-8 bytes otherwise", async () => {
    const address = await newAccount();
    const raw = new Uint8Array([0, 255, 1, 254, 42]);
    const base64 = Buffer.from(raw).toString("base64");
    const decoded = await signMessage(address, { message: base64, encoding: "base64" });
    expect(decoded.status).toBe(200);
    expect(ed25519.verify(bytesOf(decoded.body.signature), raw, bytesOf(address))).toBe(true);
    for (const body of [{ message: base64 }, { message: base64, encoding: "utf8" }]) {
      const res = await signMessage(address, body);
      expect(ed25519.verify(bytesOf(res.body.signature), new TextEncoder().encode(base64), bytesOf(address))).toBe(true);
    }
  });

  it("refuses a message that is not standard padded base64, and an unknown encoding (400 invalid_request)", async () => {
    const address = await newAccount();
    for (const message of ["AP8B_g", "AP8B-g==", "AP8B/g", "not base64!"]) {
      const res = await signMessage(address, { message, encoding: "base64" });
      expect(res.status, message).toBe(400);
      expect(res.body.errorType).toBe("invalid_request");
    }
    const unknown = await signMessage(address, { message: "gm", encoding: "hex" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errorMessage).toMatch(/encoding/);
  });
});

describe("v0 transactions with address lookup tables", () => {
  it("creates a table on the ledger whose address must be the program's derived address", async () => {
    const authority = await newAccount();
    await fund(sandbox, { network: "solana-devnet", address: authority, amount: "1000000000" });
    const elsewhere = await newAccount();
    const [table, bump] = await getProgramDerivedAddress({ programAddress: ALT_PROGRAM, seeds: [getAddressEncoder().encode(toAddress(elsewhere)), u64(1n)] });
    const wrong: Instruction = {
      programAddress: ALT_PROGRAM,
      accounts: [
        { address: table, role: 1 },
        { address: toAddress(authority), role: 2 },
        { address: toAddress(authority), role: 3 },
        { address: SYSTEM, role: 0 },
      ],
      data: new Uint8Array([...u32(0), ...u64(1n), bump]),
    };
    const res = await call(sandbox, "POST", `${ACCOUNTS}/send/transaction`, {
      body: { network: "solana-devnet", transaction: v0Transaction(authority, [wrong]) },
      wallet: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/not the lookup table address/);
  });

  it("needs the network to sign a transaction that loads accounts from a table, and resolves them there for policies", async () => {
    const payer = await newAccount();
    const blocked = await newAccount();
    await fund(sandbox, { network: "solana-devnet", address: payer, amount: "1000000000" });
    const table = await lookupTableWith(payer, [blocked]);
    const tx = v0Transaction(payer, [transfer(payer, blocked, 1000n)], { [table]: [toAddress(blocked)] });
    const sign = (body: object) => call(sandbox, "POST", `${ACCOUNTS}/${payer}/sign/transaction`, { body: { transaction: tx, ...body }, wallet: true });

    const withoutNetwork = await sign({});
    expect(withoutNetwork.status).toBe(400);
    expect(withoutNetwork.body.errorMessage).toMatch(/address lookup tables .* name its network/);
    expect((await sign({ network: "solana" })).body.errorMessage).toMatch(/does not exist on this network/);
    const signed = await sign({ network: "solana-devnet" });
    expect(signed.status, signed.text).toBe(200);
    const decoded = getTransactionDecoder().decode(Buffer.from(signed.body.signedTransaction, "base64"));
    const signature = decoded.signatures[toAddress(payer)];
    expect(signature).toBeTruthy();
    expect(ed25519.verify(new Uint8Array(signature!), new Uint8Array(decoded.messageBytes), bytesOf(payer))).toBe(true);

    // A project policy that rejects transfers to `blocked` sees it although the message lists it only in the table.
    const policy = await call(sandbox, "POST", "/platform/v2/policy-engine/policies", {
      body: {
        scope: "project",
        rules: [
          { action: "reject", operation: "signSolTransaction", criteria: [{ type: "solAddress", addresses: [blocked], operator: "in" }] },
          { action: "accept", operation: "signSolTransaction", criteria: [{ type: "solValue", solValue: "0", operator: ">=" }] },
        ],
      },
    });
    expect(policy.status, policy.text).toBe(201);
    try {
      const rejected = await sign({ network: "solana-devnet" });
      expect(rejected.status).toBe(403);
      expect(rejected.body.errorType).toBe("policy_violation");
    } finally {
      await call(sandbox, "DELETE", `/platform/v2/policy-engine/policies/${policy.body.id}`, { wallet: true });
    }
  });

  it("moves funds to an account loaded from a table when the transaction is sent", async () => {
    const payer = await newAccount();
    const recipient = await newAccount();
    await fund(sandbox, { network: "solana-devnet", address: payer, amount: "1000000000" });
    const table = await lookupTableWith(payer, [recipient], 9n);
    const tx = v0Transaction(payer, [transfer(payer, recipient, 250_000n)], { [table]: [toAddress(recipient)] });
    const sent = await call(sandbox, "POST", `${ACCOUNTS}/send/transaction`, { body: { network: "solana-devnet", transaction: tx }, wallet: true });
    expect(sent.status, sent.text).toBe(200);
    const balances = await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana-devnet/${recipient}`);
    expect(balances.body.balances.find((b: { token: { symbol: string } }) => b.token.symbol === "SOL")?.amount.amount).toBe("250000");
  });
});

describe("an end user's v0 transaction with address lookup tables", () => {
  it("is signed with the network named, the table resolved on it, and refused without it", async () => {
    const payer = await newAccount();
    await fund(sandbox, { network: "solana-devnet", address: payer, amount: "1000000000" });
    const userId = "alt-user";
    const created = await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { userId, authenticationMethods: [{ type: "email", email: "alt@example.com" }], solanaAccount: {} },
      wallet: true,
    });
    expect(created.status, created.text).toBe(201);
    const sol = (await call(sandbox, "GET", `/platform/v2/end-users/${userId}`)).body.solanaAccounts[0] as string;
    const recipient = await newAccount();
    const table = await lookupTableWith(payer, [recipient], 11n);
    const tx = v0Transaction(sol, [transfer(sol, recipient, 5n)], { [table]: [toAddress(recipient)] });
    const session = await endUserSession(sandbox, userId);
    const sign = (body: object) =>
      call(sandbox, "POST", `/platform/v2/embedded-wallet-api/end-users/${userId}/solana/sign/transaction`, {
        body: { address: sol, transaction: tx, ...body },
        endUser: session,
      });
    const without = await sign({});
    expect(without.status).toBe(400);
    expect(without.body.errorMessage).toMatch(/name its network/);
    const signed = await sign({ network: "solana-devnet" });
    expect(signed.status, signed.text).toBe(200);
    const decoded = getTransactionDecoder().decode(Buffer.from(signed.body.signedTransaction, "base64"));
    expect(ed25519.verify(new Uint8Array(decoded.signatures[toAddress(sol)]!), new Uint8Array(decoded.messageBytes), bytesOf(sol))).toBe(true);
  });
});
