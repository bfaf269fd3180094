/**
 * Every operation a policy rule can name is evaluated where it is served.
 * The rule operations are read from the contract (the Rule schema); each is
 * mapped to the operations that perform it. For every such pair: the request
 * goes through in a project without policies; then a policy whose first rule
 * rejects that operation (with the simplest criterion its rule type takes,
 * one that holds for the request, or none where the type takes none) refuses
 * it with 403 policy_violation naming that rule. Operations of developer
 * accounts are checked under a project-scope and an account-scope policy.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  address as toAddress,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import { keccak256, serializeTransaction, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Sandbox } from "cdp-sandbox";
import type { Schema } from "../../contract/types.js";
import { packageRoot } from "../../paths.js";
import { call, endUserSession, fund, withSandbox, type Credentials, type EndUserSession } from "#test/helpers/sandbox.js";

type RuleOperation = Schema<"Rule">["operation"];

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "policy-coverage" });
});
afterAll(() => sandbox.close());

const POLICIES = "/platform/v2/policy-engine/policies";
const EW = "/platform/v2/embedded-wallet-api/end-users";
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const SOL_TO = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const VERIFYING_CONTRACT = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const BLOCKHASH = "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash;

/** A project with one account of every kind, funded, and an end user with theirs. */
interface World {
  name: string;
  credentials: Credentials;
  evm: string;
  sol: string;
  /** A smart account owned by a key the test holds (it signs user operations). */
  smart: { address: string; owner: ReturnType<typeof privateKeyToAccount> };
  /** A smart account owned by `evm` (the sandbox signs for it). */
  ownedSmart: string;
  user: { userId: string; session: EndUserSession; evm: string; smart: string; sol: string };
}

async function world(name: string): Promise<World> {
  const credentials = await sandbox.createProject(`coverage-${name}`);
  const post = async (path: string, body: object) => {
    const res = await call(sandbox, "POST", path, { body, wallet: true, credentials });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
    return res.body;
  };
  const evm = (await post("/platform/v2/evm/accounts", {})).address as string;
  const sol = (await post("/platform/v2/solana/accounts", {})).address as string;
  const owner = privateKeyToAccount(generatePrivateKey());
  const smart = (await post("/platform/v2/evm/smart-accounts", { owners: [owner.address] })).address as string;
  const ownedSmart = (await post("/platform/v2/evm/smart-accounts", { owners: [evm] })).address as string;
  const userId = `coverage-${name.replace(/[^a-zA-Z0-9-]/g, "-")}`.slice(0, 100);
  const created = await post("/platform/v2/end-users", {
    userId,
    authenticationMethods: [{ type: "email", email: `${userId}@example.com` }],
    evmAccount: { createSmartAccount: true },
    solanaAccount: {},
  });
  const user = {
    userId,
    session: await endUserSession(sandbox, userId, credentials),
    evm: created.evmAccounts[0],
    smart: created.evmSmartAccounts[0],
    sol: created.solanaAccounts[0],
  };
  for (const address of [evm, user.evm]) await fund(sandbox, { network: "base-sepolia", address, amount: "1000000000000000000" }, credentials);
  await fund(sandbox, { network: "base", address: user.evm, amount: "1000000000000000000" }, credentials); // swaps trade on mainnets
  for (const address of [user.evm, user.smart]) await fund(sandbox, { network: "base-sepolia", address, token: "USDC", amount: "10000000" }, credentials);
  for (const address of [sol, user.sol]) await fund(sandbox, { network: "solana-devnet", address, amount: "1000000000" }, credentials);
  // The recipient exists (rent-exempt), so the runtime accepts the small transfers sent to it.
  await fund(sandbox, { network: "solana-devnet", address: SOL_TO, amount: "1000000" }, credentials);
  await fund(sandbox, { network: "solana-devnet", address: user.sol, token: "USDC", amount: "10000000" }, credentials);
  return { name, credentials, evm, sol, smart: { address: smart, owner }, ownedSmart, user };
}

let counter = 0;
/** A different request each time (a send of the same bytes would repeat a transaction). */
const next = () => BigInt(++counter);
const evmTx = () => serializeTransaction({ type: "eip1559", chainId: 84532, to: TO, value: next() });
function solTx(payer: string): string {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0); // SystemProgram transfer
  data.writeBigUInt64LE(next(), 4);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(toAddress(payer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 100n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: toAddress("11111111111111111111111111111111"),
          accounts: [
            { address: toAddress(payer), role: 3 },
            { address: toAddress(SOL_TO), role: 1 },
          ],
          data: new Uint8Array(data),
        },
        m,
      ),
  );
  return Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString("base64");
}
const typedData = () => ({
  domain: { name: "Coverage", version: "1", chainId: 84532, verifyingContract: VERIFYING_CONTRACT },
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
    ],
    Order: [
      { name: "owner", type: "address" },
      { name: "amount", type: "uint256" },
    ],
  },
  primaryType: "Order",
  message: { owner: TO, amount: String(next()) },
});
const spendPermission = () => ({
  network: "base-sepolia",
  spender: TO,
  token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", // USDC on Base Sepolia
  allowance: "1000",
  period: "86400",
  start: "0",
  end: "281474976710655",
  salt: String(next()),
});
const userOpBody = () => ({ network: "base-sepolia", calls: [{ to: TO, value: "0", data: "0x" }] });

/** The simplest criterion of each rule type that holds for the requests above. */
const CRITERIA = {
  evmTransaction: { type: "ethValue", ethValue: "0", operator: ">=" },
  evmMessage: { type: "evmMessage", match: "." },
  evmTypedData: { type: "evmTypedDataVerifyingContract", addresses: [VERIFYING_CONTRACT], operator: "in" },
  evmAsset: { type: "evmNetwork", networks: ["base-sepolia"], operator: "in" },
  solTransaction: { type: "solValue", solValue: "0", operator: ">=" },
  solMessage: { type: "solMessage", match: "." },
  solAsset: { type: "solNetwork", networks: ["solana-devnet"], operator: "in" },
} as const;

type Send = () => Promise<{ status: number; body: any }>;

interface Row {
  rule: RuleOperation;
  /** The contract operation that performs it (and how, when there are several ways). */
  served: string;
  variant?: string;
  criterion?: object;
  /** Rule operations the request also goes through, accepted so that only `rule` decides. */
  alsoAccept?: RuleOperation[];
  /** The developer account acting, which an account-scope policy can govern. */
  account?: (w: World) => { kind: "evm" | "solana"; address: string };
  /** Builds one request; what must exist before it (a prepared user operation) is made before any policy. */
  request: (w: World) => Promise<Send>;
}

const as = (w: World) => ({ wallet: true as const, credentials: w.credentials });
const asUser = (w: World) => ({ endUser: w.user.session, credentials: w.credentials });
const post = (path: (w: World) => string, body: (w: World) => object, who: (w: World) => object) => async (w: World) => {
  const b = body(w);
  return () => call(sandbox, "POST", path(w), { body: b, ...who(w) });
};
const evmAccount = (w: World) => ({ kind: "evm" as const, address: w.evm });
const solAccount = (w: World) => ({ kind: "solana" as const, address: w.sol });

async function prepared(w: World): Promise<Send> {
  const base = `/platform/v2/evm/smart-accounts/${w.smart.address}/user-operations`;
  const op = await call(sandbox, "POST", base, { body: userOpBody(), credentials: w.credentials });
  expect(op.status, JSON.stringify(op.body)).toBe(201);
  const signature = await w.smart.owner.sign({ hash: op.body.userOpHash as Hex });
  return () => call(sandbox, "POST", `${base}/${op.body.userOpHash}/send`, { body: { signature }, credentials: w.credentials });
}

const rows: Row[] = [
  {
    rule: "signEvmTransaction",
    served: "signEvmTransaction",
    criterion: CRITERIA.evmTransaction,
    account: evmAccount,
    request: post(
      (w) => `/platform/v2/evm/accounts/${w.evm}/sign/transaction`,
      () => ({ transaction: evmTx() }),
      as,
    ),
  },
  {
    rule: "sendEvmTransaction",
    served: "sendEvmTransaction",
    criterion: CRITERIA.evmTransaction,
    account: evmAccount,
    request: post(
      (w) => `/platform/v2/evm/accounts/${w.evm}/send/transaction`,
      () => ({ network: "base-sepolia", transaction: evmTx() }),
      as,
    ),
  },
  {
    rule: "signEvmMessage",
    served: "signEvmMessage",
    criterion: CRITERIA.evmMessage,
    account: evmAccount,
    request: post(
      (w) => `/platform/v2/evm/accounts/${w.evm}/sign/message`,
      () => ({ message: "hello" }),
      as,
    ),
  },
  {
    rule: "signEvmTypedData",
    served: "signEvmTypedData",
    criterion: CRITERIA.evmTypedData,
    account: evmAccount,
    request: post((w) => `/platform/v2/evm/accounts/${w.evm}/sign/typed-data`, typedData, as),
  },
  {
    rule: "signEvmHash",
    served: "signEvmHash",
    account: evmAccount,
    request: post(
      (w) => `/platform/v2/evm/accounts/${w.evm}/sign`,
      () => ({ hash: keccak256(toHex(next())) }),
      as,
    ),
  },
  {
    rule: "signSolTransaction",
    served: "signSolanaTransaction",
    criterion: CRITERIA.solTransaction,
    account: solAccount,
    request: post(
      (w) => `/platform/v2/solana/accounts/${w.sol}/sign/transaction`,
      (w) => ({ transaction: solTx(w.sol) }),
      as,
    ),
  },
  {
    rule: "sendSolTransaction",
    served: "sendSolanaTransaction",
    criterion: CRITERIA.solTransaction,
    account: solAccount,
    request: post(
      () => "/platform/v2/solana/accounts/send/transaction",
      (w) => ({ network: "solana-devnet", transaction: solTx(w.sol) }),
      as,
    ),
  },
  {
    rule: "signSolMessage",
    served: "signSolanaMessage",
    criterion: CRITERIA.solMessage,
    account: solAccount,
    request: post(
      (w) => `/platform/v2/solana/accounts/${w.sol}/sign/message`,
      () => ({ message: "hello" }),
      as,
    ),
  },
  {
    rule: "prepareUserOperation",
    served: "prepareUserOperation",
    criterion: CRITERIA.evmTransaction,
    request: async (w) => () =>
      call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${w.smart.address}/user-operations`, { body: userOpBody(), credentials: w.credentials }),
  },
  {
    rule: "prepareUserOperation",
    served: "prepareAndSendUserOperation",
    criterion: CRITERIA.evmTransaction,
    request: post((w) => `/platform/v2/evm/smart-accounts/${w.ownedSmart}/user-operations/prepare-and-send`, userOpBody, as),
  },
  { rule: "sendUserOperation", served: "sendUserOperation", criterion: CRITERIA.evmTransaction, request: prepared },
  {
    rule: "sendUserOperation",
    served: "prepareAndSendUserOperation",
    criterion: CRITERIA.evmTransaction,
    alsoAccept: ["prepareUserOperation"],
    request: post((w) => `/platform/v2/evm/smart-accounts/${w.ownedSmart}/user-operations/prepare-and-send`, userOpBody, as),
  },
  {
    rule: "prepareUserOperation",
    served: "createSpendPermission",
    criterion: CRITERIA.evmTransaction,
    request: post((w) => `/platform/v2/evm/smart-accounts/${w.ownedSmart}/spend-permissions`, spendPermission, as),
  },
  {
    rule: "sendUserOperation",
    served: "createSpendPermission",
    criterion: CRITERIA.evmTransaction,
    alsoAccept: ["prepareUserOperation"],
    request: post((w) => `/platform/v2/evm/smart-accounts/${w.ownedSmart}/spend-permissions`, spendPermission, as),
  },
  {
    rule: "signEndUserEvmTransaction",
    served: "signEvmTransactionWithEndUserAccount",
    criterion: CRITERIA.evmTransaction,
    request: post(
      (w) => `${EW}/${w.user.userId}/evm/sign/transaction`,
      (w) => ({ address: w.user.evm, transaction: evmTx() }),
      asUser,
    ),
  },
  {
    rule: "sendEndUserEvmTransaction",
    served: "sendEvmTransactionWithEndUserAccount",
    criterion: CRITERIA.evmTransaction,
    request: post(
      (w) => `${EW}/${w.user.userId}/evm/send/transaction`,
      (w) => ({ address: w.user.evm, network: "base-sepolia", transaction: evmTx() }),
      asUser,
    ),
  },
  {
    rule: "signEndUserEvmMessage",
    served: "signEvmMessageWithEndUserAccount",
    criterion: CRITERIA.evmMessage,
    request: post(
      (w) => `${EW}/${w.user.userId}/evm/sign/message`,
      (w) => ({ address: w.user.evm, message: "hello" }),
      asUser,
    ),
  },
  {
    rule: "signEndUserEvmHash",
    served: "signEvmHashWithEndUserAccount",
    request: post(
      (w) => `${EW}/${w.user.userId}/evm/sign`,
      (w) => ({ address: w.user.evm, hash: keccak256(toHex(next())) }),
      asUser,
    ),
  },
  {
    rule: "signEndUserEvmTypedData",
    served: "signEvmTypedDataWithEndUserAccount",
    criterion: CRITERIA.evmTypedData,
    request: post(
      (w) => `${EW}/${w.user.userId}/evm/sign/typed-data`,
      (w) => ({ address: w.user.evm, typedData: typedData() }),
      asUser,
    ),
  },
  {
    rule: "signEndUserSolTransaction",
    served: "signSolanaTransactionWithEndUserAccount",
    criterion: CRITERIA.solTransaction,
    request: post(
      (w) => `${EW}/${w.user.userId}/solana/sign/transaction`,
      (w) => ({ address: w.user.sol, transaction: solTx(w.user.sol) }),
      asUser,
    ),
  },
  {
    rule: "sendEndUserSolTransaction",
    served: "sendSolanaTransactionWithEndUserAccount",
    criterion: CRITERIA.solTransaction,
    request: post(
      (w) => `${EW}/${w.user.userId}/solana/send/transaction`,
      (w) => ({ address: w.user.sol, network: "solana-devnet", transaction: solTx(w.user.sol) }),
      asUser,
    ),
  },
  {
    rule: "signEndUserSolMessage",
    served: "signSolanaMessageWithEndUserAccount",
    criterion: CRITERIA.solMessage,
    request: post(
      (w) => `${EW}/${w.user.userId}/solana/sign/message`,
      (w) => ({ address: w.user.sol, message: "hello" }),
      asUser,
    ),
  },
  {
    rule: "sendEndUserEvmAsset",
    served: "sendEvmAssetWithEndUserAccount",
    variant: "from an EOA",
    criterion: CRITERIA.evmAsset,
    request: post(
      (w) => `${EW}/${w.user.userId}/evm/${w.user.evm}/send/usdc`,
      () => ({ to: TO, amount: "0.01", network: "base-sepolia" }),
      asUser,
    ),
  },
  {
    rule: "sendEndUserEvmAsset",
    served: "sendEvmAssetWithEndUserAccount",
    variant: "from a smart account",
    criterion: CRITERIA.evmAsset,
    request: post(
      (w) => `${EW}/${w.user.userId}/evm/${w.user.smart}/send/usdc`,
      () => ({ to: TO, amount: "0.01", network: "base-sepolia" }),
      asUser,
    ),
  },
  {
    rule: "sendEndUserSolAsset",
    served: "sendSolanaAssetWithEndUserAccount",
    criterion: CRITERIA.solAsset,
    request: post(
      (w) => `${EW}/${w.user.userId}/solana/${w.user.sol}/send/usdc`,
      () => ({ to: SOL_TO, amount: "0.01", network: "solana-devnet" }),
      asUser,
    ),
  },
  {
    rule: "createEndUserEvmSwap",
    served: "createEndUserEvmSwap",
    variant: "from an EOA",
    criterion: { type: "evmNetwork", networks: ["base"], operator: "in" },
    request: post(
      (w) => `${EW}/${w.user.userId}/evm/swaps`,
      (w) => ({
        network: "base",
        taker: w.user.evm,
        fromToken: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE",
        toToken: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        fromAmount: "1000000000000000",
      }),
      asUser,
    ),
  },
  {
    rule: "sendEndUserOperation",
    served: "sendUserOperationWithEndUserAccount",
    criterion: CRITERIA.evmTransaction,
    request: post(
      (w) => `${EW}/${w.user.userId}/evm/smart-accounts/${w.user.smart}/send`,
      () => ({ ...userOpBody(), useCdpPaymaster: true }),
      asUser,
    ),
  },
];

/** Rule operations no operation of the contract performs: none left. */
const NOT_SERVED: RuleOperation[] = [];

// The contract document, read as plain YAML.
const contract: any = parse(readFileSync(join(packageRoot, "openapi.yaml"), "utf8"));

describe("the table covers the contract", () => {
  it("lists every operation a rule can name, each served or shown not to be", () => {
    const schemas = contract.components.schemas;
    const named = (schemas.Rule.oneOf as Array<{ $ref: string }>).flatMap((r) => schemas[r.$ref.split("/").pop()!].properties.operation.enum as string[]);
    expect(new Set([...rows.map((r) => r.rule), ...NOT_SERVED])).toEqual(new Set(named));
    const operationIds = new Set(
      Object.values(contract.paths).flatMap((item) => Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId)),
    );
    for (const row of rows) expect(operationIds.has(row.served), row.served).toBe(true);
  });
});

function rejectingPolicy(row: Row, scope: "project" | "account") {
  return {
    scope,
    rules: [
      { action: "reject", operation: row.rule, ...(row.criterion ? { criteria: [row.criterion] } : {}) },
      ...(row.alsoAccept ?? []).map((operation) => ({ action: "accept", operation, criteria: [] })),
    ],
  };
}

async function expectRefused(send: Send, row: Row) {
  const res = await send();
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.errorType).toBe("policy_violation");
  expect(res.body.errorMessage).toContain(`rule 1 (reject ${row.rule})`);
}

describe("every operation a rule can name is evaluated where it is served", () => {
  it.each(rows.map((r) => [`${r.rule} on ${r.served}${r.variant ? ` ${r.variant}` : ""}`, r] as const))(
    "%s: allowed without a policy, refused by one rejecting it",
    async (label, row) => {
      const w = await world(label);
      const withoutPolicy = await row.request(w);
      const underProject = await row.request(w);
      const underAccount = row.account ? await row.request(w) : undefined;
      const allowed = await withoutPolicy();
      expect([200, 201], JSON.stringify(allowed.body)).toContain(allowed.status);

      const project = await call(sandbox, "POST", POLICIES, { body: rejectingPolicy(row, "project"), credentials: w.credentials });
      expect(project.status, JSON.stringify(project.body)).toBe(201);
      await expectRefused(underProject, row);

      if (row.account && underAccount) {
        expect((await call(sandbox, "DELETE", `${POLICIES}/${project.body.id}`, { credentials: w.credentials })).status).toBe(204);
        const policy = await call(sandbox, "POST", POLICIES, { body: rejectingPolicy(row, "account"), credentials: w.credentials });
        expect(policy.status, JSON.stringify(policy.body)).toBe(201);
        const { kind, address } = row.account(w);
        const attached = await call(sandbox, "PUT", `/platform/v2/${kind}/accounts/${address}`, {
          body: { accountPolicy: policy.body.id },
          ...as(w),
        });
        expect(attached.status, JSON.stringify(attached.body)).toBe(200);
        await expectRefused(underAccount, row);
      }
    },
  );
});
