/**
 * The Policy Engine over HTTP: CRUD and its errors, then a table of criteria:
 * for every criterion type and operator, one request it holds for (the reject
 * rule fires: 403 policy_violation) and one it does not (the accept rule lets
 * it through).
 */
import { randomBytes } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import {
  address as toAddress,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getAddressDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import { encodeFunctionData, erc20Abi, getAddress, keccak256, parseEther, serializeTransaction, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox, type Credentials } from "#test/helpers/sandbox.js";
import { wrongChecksum } from "#test/helpers/typedData.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "policies" });
});
afterAll(() => sandbox.close());

const POLICIES = "/platform/v2/policy-engine/policies";
const A = "0x1111111111111111111111111111111111111111";
const B = "0x2222222222222222222222222222222222222222";
const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const newSolAddress = () => getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
const SOL_B = newSolAddress();
const MINT = newSolAddress();
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

describe("policy CRUD", () => {
  it("creates, reads, lists by scope, updates and deletes a policy", async () => {
    const rules = [{ action: "reject", operation: "signEvmHash" }];
    const created = await call(sandbox, "POST", POLICIES, { body: { scope: "account", description: "no hashes", rules } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ scope: "account", description: "no hashes", rules });
    const id = created.body.id;
    expect((await call(sandbox, "GET", `${POLICIES}/${id}`)).body.id).toBe(id);
    expect((await call(sandbox, "GET", `${POLICIES}?scope=account`)).body.policies.map((p: { id: string }) => p.id)).toContain(id);
    expect((await call(sandbox, "GET", `${POLICIES}?scope=project`)).body.policies.map((p: { id: string }) => p.id)).not.toContain(id);
    const updated = await call(sandbox, "PUT", `${POLICIES}/${id}`, { body: { rules: [{ action: "accept", operation: "signEvmHash" }] } });
    expect(updated.body.rules[0].action).toBe("accept");
    expect((await call(sandbox, "DELETE", `${POLICIES}/${id}`)).status).toBe(204);
    expect((await call(sandbox, "GET", `${POLICIES}/${id}`)).status).toBe(404);
  });

  it("allows one project-scope policy per project (409 for a second)", async () => {
    const project = await sandbox.createProject("one-project-policy");
    const rules = [{ action: "accept", operation: "signEvmHash" }];
    expect((await call(sandbox, "POST", POLICIES, { body: { scope: "project", rules }, credentials: project })).status).toBe(201);
    const second = await call(sandbox, "POST", POLICIES, { body: { scope: "project", rules }, credentials: project });
    expect(second.status).toBe(409);
    expect(second.body.errorType).toBe("already_exists");
  });

  it("refuses to delete a policy attached to an account: 400 policy_in_use, and detaching with an empty accountPolicy frees it", async () => {
    const policy = (await call(sandbox, "POST", POLICIES, { body: { scope: "account", rules: [{ action: "accept", operation: "signEvmHash" }] } })).body;
    const account = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { accountPolicy: policy.id }, wallet: true })).body;
    expect(account.policies).toEqual([policy.id]);
    const refused = await call(sandbox, "DELETE", `${POLICIES}/${policy.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errorType).toBe("policy_in_use");
    await call(sandbox, "PUT", `/platform/v2/evm/accounts/${account.address}`, { body: { accountPolicy: "" }, wallet: true });
    expect((await call(sandbox, "DELETE", `${POLICIES}/${policy.id}`)).status).toBe(204);
  });

  it("rejects invalid policies with a message naming the rule, and keeps nothing", async () => {
    const before = (await call(sandbox, "GET", POLICIES)).body.policies.length;
    const badRegex = await call(sandbox, "POST", POLICIES, {
      body: { scope: "account", rules: [{ action: "reject", operation: "signEvmMessage", criteria: [{ type: "evmMessage", match: "(unclosed" }] }] },
    });
    expect(badRegex.status).toBe(400);
    expect(badRegex.body.errorMessage).toMatch(/rules\[0\].*RE2/);
    const backreference = await call(sandbox, "POST", POLICIES, {
      body: { scope: "account", rules: [{ action: "reject", operation: "signEvmMessage", criteria: [{ type: "evmMessage", match: "(a)\\1" }] }] },
    });
    expect(backreference.status).toBe(400);
    const wrongCriterion = await call(sandbox, "POST", POLICIES, {
      body: { scope: "account", rules: [{ action: "reject", operation: "signEvmMessage", criteria: [{ type: "ethValue", ethValue: "1", operator: ">" }] }] },
    });
    expect(wrongCriterion.status).toBe(400);
    expect(wrongCriterion.body.errorMessage).toMatch(/rules/);
    const badOperator = await call(sandbox, "POST", POLICIES, {
      body: {
        scope: "account",
        rules: [{ action: "reject", operation: "signEvmTransaction", criteria: [{ type: "ethValue", ethValue: "1", operator: "~" }] }],
      },
    });
    expect(badOperator.status).toBe(400);
    expect((await call(sandbox, "GET", POLICIES)).body.policies.length).toBe(before);
  });
});

type Request = { path: (ctx: Ctx) => string; body: (ctx: Ctx) => object };
interface Ctx {
  evm: string;
  sol: string;
}

const evmTx = (to: string, value: bigint, data?: `0x${string}`, chainId = 8453) =>
  serializeTransaction({ type: "eip1559", chainId, to: to as `0x${string}`, value, data });
const signEvmTx = (to: string, value: bigint, data?: `0x${string}`): Request => ({
  path: (c) => `/platform/v2/evm/accounts/${c.evm}/sign/transaction`,
  body: () => ({ transaction: evmTx(to, value, data) }),
});
const sendEvmTx = (network: string, to: string, value: bigint, data?: `0x${string}`): Request => ({
  path: (c) => `/platform/v2/evm/accounts/${c.evm}/send/transaction`,
  body: () => ({ network, transaction: evmTx(to, value, data) }),
});
const signEvmMessage = (message: string): Request => ({ path: (c) => `/platform/v2/evm/accounts/${c.evm}/sign/message`, body: () => ({ message }) });
const signHash: Request = { path: (c) => `/platform/v2/evm/accounts/${c.evm}/sign`, body: () => ({ hash: keccak256(toHex("x")) }) };
const transfer = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [B, amount] });

function solTx(payer: string, ixs: Array<{ program: string; accounts: string[]; data: Uint8Array }>): string {
  let message: any = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(toAddress(payer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash, lastValidBlockHeight: 100n }, m),
  );
  for (const ix of ixs) {
    message = appendTransactionMessageInstruction(
      { programAddress: toAddress(ix.program), accounts: ix.accounts.map((a, i) => ({ address: toAddress(a), role: i === 0 ? 3 : 1 })), data: ix.data },
      message,
    );
  }
  return Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString("base64");
}
const lamports = (n: bigint) => {
  const d = Buffer.alloc(12);
  d.writeUInt32LE(2, 0);
  d.writeBigUInt64LE(n, 4);
  return new Uint8Array(d);
};
const splChecked = (n: bigint) => {
  const d = Buffer.alloc(10);
  d[0] = 12;
  d.writeBigUInt64LE(n, 1);
  d[9] = 6;
  return new Uint8Array(d);
};
const solTransfer =
  (to: string, amount: bigint): ((c: Ctx) => string) =>
  (c) =>
    solTx(c.sol, [{ program: "11111111111111111111111111111111", accounts: [c.sol, to], data: lamports(amount) }]);
const splTransfer =
  (to: string, mint: string, amount: bigint): ((c: Ctx) => string) =>
  (c) =>
    solTx(c.sol, [{ program: TOKEN_PROGRAM, accounts: [c.sol, mint, to, c.sol], data: splChecked(amount) }]);
const signSol = (tx: (c: Ctx) => string): Request => ({
  path: (c) => `/platform/v2/solana/accounts/${c.sol}/sign/transaction`,
  body: (c) => ({ transaction: tx(c) }),
});
const sendSol = (network: string, tx: (c: Ctx) => string): Request => ({
  path: () => "/platform/v2/solana/accounts/send/transaction",
  body: (c) => ({ network, transaction: tx(c) }),
});
const signSolMessage = (message: string): Request => ({ path: (c) => `/platform/v2/solana/accounts/${c.sol}/sign/message`, body: () => ({ message }) });

interface Case {
  name: string;
  operation: string;
  criterion?: object;
  holds: Request;
  fails: Request;
}

const cases: Case[] = [
  ...([">", ">=", "<", "<=", "=="] as const).map((operator) => ({
    name: `ethValue ${operator}`,
    operation: "signEvmTransaction",
    criterion: { type: "ethValue", ethValue: "1000", operator },
    holds: signEvmTx(B, { ">": 2000n, ">=": 1000n, "<": 10n, "<=": 1000n, "==": 1000n }[operator]),
    fails: signEvmTx(B, { ">": 1000n, ">=": 999n, "<": 1000n, "<=": 1001n, "==": 1001n }[operator]),
  })),
  {
    name: "evmAddress in",
    operation: "signEvmTransaction",
    criterion: { type: "evmAddress", addresses: [A], operator: "in" },
    holds: signEvmTx(A.toUpperCase().replace("0X", "0x"), 1n),
    fails: signEvmTx(B, 1n),
  },
  {
    name: "evmAddress not in",
    operation: "sendEvmTransaction",
    criterion: { type: "evmAddress", addresses: [A], operator: "not in" },
    holds: sendEvmTx("base", B, 1n),
    fails: sendEvmTx("base", A, 1n),
  },
  {
    name: "evmNetwork in",
    operation: "sendEvmTransaction",
    criterion: { type: "evmNetwork", networks: ["base"], operator: "in" },
    holds: sendEvmTx("base", B, 1n),
    fails: sendEvmTx("base-sepolia", B, 1n),
  },
  {
    name: "evmNetwork not in",
    operation: "sendEvmTransaction",
    criterion: { type: "evmNetwork", networks: ["base"], operator: "not in" },
    holds: sendEvmTx("polygon", B, 1n),
    fails: sendEvmTx("base", B, 1n),
  },
  {
    name: "evmData erc20 value >",
    operation: "signEvmTransaction",
    criterion: { type: "evmData", abi: "erc20", conditions: [{ function: "transfer", params: [{ name: "value", operator: ">", value: "100" }] }] },
    holds: signEvmTx(USDC_BASE, 0n, transfer(1000n)),
    fails: signEvmTx(USDC_BASE, 0n, transfer(10n)),
  },
  {
    name: "evmData custom ABI, param by index, in",
    operation: "signEvmTransaction",
    criterion: {
      type: "evmData",
      abi: [
        {
          type: "function",
          name: "transfer",
          stateMutability: "nonpayable",
          inputs: [
            { name: "to", type: "address" },
            { name: "amount", type: "uint256" },
          ],
          outputs: [{ name: "", type: "bool" }],
        },
      ],
      conditions: [{ function: "transfer", params: [{ name: "0", operator: "in", values: [B] }] }],
    },
    holds: signEvmTx(USDC_BASE, 0n, transfer(5n)),
    fails: signEvmTx(USDC_BASE, 0n, encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [B, 5n] })),
  },
  ...([">", ">=", "<", "<=", "=="] as const).map((operator) => ({
    name: `netUSDChange ${operator} (1 ETH = $3,000 on base; ignored on base-sepolia)`,
    operation: "sendEvmTransaction",
    criterion: { type: "netUSDChange", changeCents: 300000, operator },
    holds: sendEvmTx(
      "base",
      B,
      { ">": parseEther("2"), ">=": parseEther("1"), "<": parseEther("0.5"), "<=": parseEther("1"), "==": parseEther("1") }[operator],
    ),
    fails: sendEvmTx("base-sepolia", B, parseEther("1")),
  })),
  {
    name: "netUSDChange counts USDC transfers",
    operation: "sendEvmTransaction",
    criterion: { type: "netUSDChange", changeCents: 5000, operator: ">" },
    holds: sendEvmTx("base", USDC_BASE, 0n, transfer(100_000_000n)),
    fails: sendEvmTx("base", USDC_BASE, 0n, transfer(1_000_000n)),
  },
  {
    name: "evmMessage",
    operation: "signEvmMessage",
    criterion: { type: "evmMessage", match: "^transfer [0-9]+ USDC$" },
    holds: signEvmMessage("transfer 500 USDC"),
    fails: signEvmMessage("hello"),
  },
  { name: "signEvmHash can be blocked", operation: "signEvmHash", holds: signHash, fails: signEvmMessage("not a hash") },
  {
    name: "solAddress in",
    operation: "signSolTransaction",
    criterion: { type: "solAddress", addresses: [SOL_B], operator: "in" },
    holds: signSol(solTransfer(SOL_B, 5n)),
    fails: signSol(solTransfer(newSolAddress(), 5n)),
  },
  {
    name: "solAddress not in",
    operation: "signSolTransaction",
    criterion: { type: "solAddress", addresses: [SOL_B], operator: "not in" },
    holds: signSol(solTransfer(newSolAddress(), 5n)),
    fails: signSol(solTransfer(SOL_B, 5n)),
  },
  ...([">", ">=", "<", "<=", "=="] as const).map((operator) => ({
    name: `solValue ${operator}`,
    operation: "signSolTransaction",
    criterion: { type: "solValue", solValue: "1000", operator },
    holds: signSol(solTransfer(SOL_B, { ">": 2000n, ">=": 1000n, "<": 10n, "<=": 1000n, "==": 1000n }[operator])),
    fails: signSol(solTransfer(SOL_B, { ">": 1000n, ">=": 999n, "<": 1000n, "<=": 1001n, "==": 1001n }[operator])),
  })),
  {
    name: "splAddress in",
    operation: "signSolTransaction",
    criterion: { type: "splAddress", addresses: [SOL_B], operator: "in" },
    holds: signSol(splTransfer(SOL_B, MINT, 5n)),
    fails: signSol(splTransfer(newSolAddress(), MINT, 5n)),
  },
  {
    name: "splAddress not in",
    operation: "signSolTransaction",
    criterion: { type: "splAddress", addresses: [SOL_B], operator: "not in" },
    holds: signSol(splTransfer(newSolAddress(), MINT, 5n)),
    fails: signSol(splTransfer(SOL_B, MINT, 5n)),
  },
  {
    name: "splValue >",
    operation: "signSolTransaction",
    criterion: { type: "splValue", splValue: "100", operator: ">" },
    holds: signSol(splTransfer(SOL_B, MINT, 500n)),
    fails: signSol(splTransfer(SOL_B, MINT, 50n)),
  },
  {
    name: "splValue <=",
    operation: "signSolTransaction",
    criterion: { type: "splValue", splValue: "100", operator: "<=" },
    holds: signSol(splTransfer(SOL_B, MINT, 100n)),
    fails: signSol(splTransfer(SOL_B, MINT, 101n)),
  },
  {
    name: "mintAddress in",
    operation: "signSolTransaction",
    criterion: { type: "mintAddress", addresses: [MINT], operator: "in" },
    holds: signSol(splTransfer(SOL_B, MINT, 5n)),
    fails: signSol(splTransfer(SOL_B, newSolAddress(), 5n)),
  },
  {
    name: "mintAddress not in",
    operation: "signSolTransaction",
    criterion: { type: "mintAddress", addresses: [MINT], operator: "not in" },
    holds: signSol(splTransfer(SOL_B, newSolAddress(), 5n)),
    fails: signSol(splTransfer(SOL_B, MINT, 5n)),
  },
  {
    name: "programId in",
    operation: "signSolTransaction",
    criterion: { type: "programId", programIds: [TOKEN_PROGRAM], operator: "in" },
    holds: signSol(splTransfer(SOL_B, MINT, 5n)),
    fails: signSol(solTransfer(SOL_B, 5n)),
  },
  {
    name: "programId not in",
    operation: "signSolTransaction",
    criterion: { type: "programId", programIds: [TOKEN_PROGRAM], operator: "not in" },
    holds: signSol(solTransfer(SOL_B, 5n)),
    fails: signSol(splTransfer(SOL_B, MINT, 5n)),
  },
  {
    name: "solNetwork in",
    operation: "sendSolTransaction",
    criterion: { type: "solNetwork", networks: ["solana"], operator: "in" },
    holds: sendSol("solana", solTransfer(SOL_B, 5n)),
    fails: sendSol("solana-devnet", solTransfer(SOL_B, 5n)),
  },
  {
    name: "solNetwork not in",
    operation: "sendSolTransaction",
    criterion: { type: "solNetwork", networks: ["solana"], operator: "not in" },
    holds: sendSol("solana-devnet", solTransfer(SOL_B, 5n)),
    fails: sendSol("solana", solTransfer(SOL_B, 5n)),
  },
  {
    name: "solData SystemProgram transfer lamports >",
    operation: "signSolTransaction",
    criterion: {
      type: "solData",
      idls: ["SystemProgram"],
      conditions: [{ instruction: "transfer", params: [{ name: "lamports", operator: ">", value: "1000" }] }],
    },
    holds: signSol(solTransfer(SOL_B, 5000n)),
    fails: signSol(solTransfer(SOL_B, 10n)),
  },
  {
    name: "solData TokenProgram transferChecked amount in",
    operation: "signSolTransaction",
    criterion: {
      type: "solData",
      idls: ["TokenProgram"],
      conditions: [{ instruction: "transferChecked", params: [{ name: "amount", operator: "in", values: ["7", "8"] }] }],
    },
    holds: signSol(splTransfer(SOL_B, MINT, 7n)),
    fails: signSol(splTransfer(SOL_B, MINT, 9n)),
  },
  {
    name: "solMessage",
    operation: "signSolMessage",
    criterion: { type: "solMessage", match: "^login:" },
    holds: signSolMessage("login:alice"),
    fails: signSolMessage("other"),
  },
];

async function setUp(c: Case): Promise<{ credentials: Credentials; ctx: Ctx }> {
  const credentials = await sandbox.createProject(`policy-${c.name}`);
  const rules = [
    { action: "reject", operation: c.operation, ...(c.criterion ? { criteria: [c.criterion] } : {}) },
    ...["signEvmTransaction", "sendEvmTransaction", "signEvmMessage", "signEvmHash", "signSolTransaction", "sendSolTransaction", "signSolMessage"].map(
      (operation) => ({
        action: "accept",
        operation,
        ...(operation === "signEvmHash" ? {} : { criteria: [] }),
      }),
    ),
  ];
  const policy = await call(sandbox, "POST", POLICIES, { body: { scope: "project", rules }, credentials });
  expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  const evm = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true, credentials })).body.address;
  const sol = (await call(sandbox, "POST", "/platform/v2/solana/accounts", { body: {}, wallet: true, credentials })).body.address;
  for (const network of ["base", "base-sepolia", "polygon"]) await fund(sandbox, { network, address: evm, amount: "10000000000000000000" }, credentials);
  for (const token of ["USDC"]) await fund(sandbox, { network: "base", address: evm, token, amount: "1000000000" }, credentials);
  for (const network of ["solana", "solana-devnet"]) await fund(sandbox, { network, address: sol, amount: "1000000000" }, credentials);
  // The recipient exists (rent-exempt), so the runtime accepts the small transfers the cases send it.
  for (const network of ["solana", "solana-devnet"]) await fund(sandbox, { network, address: SOL_B, amount: "1000000" }, credentials);
  return { credentials, ctx: { evm, sol } };
}

describe("policy evaluation, criterion by criterion", () => {
  it.each(cases.map((c) => [c.name, c] as [string, Case]))("%s: rejects when it holds, accepts otherwise", async (_name, c) => {
    const { credentials, ctx } = await setUp(c);
    const rejected = await call(sandbox, "POST", c.holds.path(ctx), { body: c.holds.body(ctx), wallet: true, credentials });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(403);
    expect(rejected.body.errorType).toBe("policy_violation");
    expect(rejected.body.errorMessage).toMatch(/policy .* rule 1/);
    const accepted = await call(sandbox, "POST", c.fails.path(ctx), { body: c.fails.body(ctx), wallet: true, credentials });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  });

  it("rejects when the policy has no rule for the operation that matches", async () => {
    const credentials = await sandbox.createProject("policy-no-match");
    await call(sandbox, "POST", POLICIES, {
      body: {
        scope: "project",
        rules: [{ action: "accept", operation: "signEvmTransaction", criteria: [{ type: "ethValue", ethValue: "10", operator: "<" }] }],
      },
      credentials,
    });
    const evm = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true, credentials })).body.address;
    const res = await call(sandbox, "POST", `/platform/v2/evm/accounts/${evm}/sign/transaction`, {
      body: { transaction: evmTx(B, 100n) },
      wallet: true,
      credentials,
    });
    expect(res.status).toBe(403);
    expect(res.body.errorMessage).toMatch(/no rule/);
  });

  it("applies an account policy to its account only", async () => {
    const credentials = await sandbox.createProject("policy-account");
    const policy = (
      await call(sandbox, "POST", POLICIES, {
        body: { scope: "account", rules: [{ action: "reject", operation: "signEvmMessage", criteria: [{ type: "evmMessage", match: "." }] }] },
        credentials,
      })
    ).body;
    const guarded = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { accountPolicy: policy.id }, wallet: true, credentials })).body.address;
    const free = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true, credentials })).body.address;
    expect(
      (await call(sandbox, "POST", `/platform/v2/evm/accounts/${guarded}/sign/message`, { body: { message: "hi" }, wallet: true, credentials })).status,
    ).toBe(403);
    expect((await call(sandbox, "POST", `/platform/v2/evm/accounts/${free}/sign/message`, { body: { message: "hi" }, wallet: true, credentials })).status).toBe(
      200,
    );
  });
});

describe("addresses compare whatever their letter case", () => {
  const VERIFYING = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
  const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
  // Addresses with letters, so that their case can be wrong.
  const C = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
  const D = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
  const typed = (verifyingContract: string, wallet: string) => ({
    domain: { name: "Case", chainId: 84532, verifyingContract },
    types: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
      Person: [{ name: "wallet", type: "address" }],
      Mail: [
        { name: "from", type: "Person" },
        { name: "to", type: "Person[]" },
      ],
    },
    primaryType: "Mail",
    message: { from: { wallet }, to: [{ wallet }] },
  });

  async function accountWith(name: string, rules: object[]) {
    const credentials = await sandbox.createProject(`policy-case-${name}`);
    const policy = await call(sandbox, "POST", POLICIES, { body: { scope: "account", rules }, credentials });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const address = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: { accountPolicy: policy.body.id }, wallet: true, credentials })).body
      .address;
    return (what: string, body: object) => call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/${what}`, { body, wallet: true, credentials });
  }

  it("evmTypedDataVerifyingContract matches a wrong-checksum verifyingContract against a checksummed list, and the reverse", async () => {
    const sign = await accountWith("verifying", [
      { action: "reject", operation: "signEvmTypedData", criteria: [{ type: "evmTypedDataVerifyingContract", addresses: [wrongChecksum(D)], operator: "in" }] },
      { action: "reject", operation: "signEvmTypedData", criteria: [{ type: "evmTypedDataVerifyingContract", addresses: [VERIFYING], operator: "in" }] },
      { action: "accept", operation: "signEvmTypedData", criteria: [] },
    ]);
    const byList = await sign("sign/typed-data", typed(wrongChecksum(VERIFYING), TO));
    expect(byList.status).toBe(403);
    expect(byList.body.errorMessage).toMatch(/rule 2/);
    const byRequest = await sign("sign/typed-data", typed(D, TO));
    expect(byRequest.status).toBe(403);
    expect(byRequest.body.errorMessage).toMatch(/rule 1/);
    expect((await sign("sign/typed-data", typed(wrongChecksum(TO), TO))).status).toBe(200);
  });

  it("evmTypedDataField address conditions match any letter case, in nested structs and arrays", async () => {
    const field = (path: string, address: string) => ({
      type: "evmTypedDataField",
      types: { types: typed(VERIFYING, TO).types, primaryType: "Mail" },
      conditions: [{ path, addresses: [address], operator: "in" }],
    });
    const sign = await accountWith("field", [
      { action: "reject", operation: "signEvmTypedData", criteria: [field("from.wallet", wrongChecksum(C))] },
      { action: "reject", operation: "signEvmTypedData", criteria: [field("to.0.wallet", getAddress(D))] },
      { action: "accept", operation: "signEvmTypedData", criteria: [] },
    ]);
    const first = await sign("sign/typed-data", typed(VERIFYING, C.toLowerCase()));
    expect(first.status).toBe(403);
    expect(first.body.errorMessage).toMatch(/rule 1/);
    const second = await sign("sign/typed-data", typed(VERIFYING, wrongChecksum(D)));
    expect(second.status).toBe(403);
    expect(second.body.errorMessage).toMatch(/rule 2/);
    expect((await sign("sign/typed-data", typed(VERIFYING, wrongChecksum(TO)))).status).toBe(200);
  });

  it("evmAddress matches a transaction's recipient against a wrong-checksum list", async () => {
    const sign = await accountWith("evm-address", [
      { action: "reject", operation: "signEvmTransaction", criteria: [{ type: "evmAddress", addresses: [wrongChecksum(TO)], operator: "in" }] },
      { action: "accept", operation: "signEvmTransaction", criteria: [] },
    ]);
    const refused = await sign("sign/transaction", { transaction: evmTx(TO, 1n) });
    expect(refused.status).toBe(403);
    expect(refused.body.errorMessage).toMatch(/rule 1/);
    expect((await sign("sign/transaction", { transaction: evmTx(D, 1n) })).status).toBe(200);
  });
});
