/**
 * `--init FILE` / `startSandbox({ init })` and `GET /_sandbox/export`: a state file seeds named, funded accounts
 * (and the rest of a project) before the first request; a bad file is refused naming the file, the place and what
 * was expected, with nothing applied; an export, given back as an init file, reproduces the same state.
 */
import { mkdtempSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { createClock, type Sandbox, type StateFile, StateFileError, startSandbox } from "cdp-sandbox";
import { call } from "../helpers/sandbox.js";

const ISSUE_EXAMPLE = `evmAccounts:
  - name: Funded
    balances:
      base-sepolia: { ETH: "0.1", USDC: "10" }
solanaAccounts:
  - name: FundedSol
    balances:
      solana-devnet: { SOL: "1" }
fund:
  - { network: base-sepolia, address: "0x5b76f5B8fc9D700624F78208132f91AD4e61a1f0", token: ETH, amount: "0.01" }
`;

const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-state-"));
const fileWith = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

const open: Sandbox[] = [];
async function start(options: Parameters<typeof startSandbox>[0]): Promise<Sandbox> {
  const sandbox = await startSandbox({ auth: "verify", ...options });
  open.push(sandbox);
  return sandbox;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

type Balance = { network: string; token: string; formatted: string };
async function balancesOf(sandbox: Sandbox, kind: string, name: string): Promise<{ address: string; balances: Balance[] }> {
  const res = await call(sandbox, "GET", `/_sandbox/accounts?kind=${kind}&q=${name}`, { anonymous: true });
  expect(res.status).toBe(200);
  const found = (res.body.items as Array<{ name?: string; address: string; balances: Balance[] }>).find((a) => a.name === name);
  expect(found, `${kind} account ${name}`).toBeDefined();
  return found!;
}
const asText = (balances: Balance[]) => balances.map((b) => `${b.network} ${b.formatted} ${b.token}`).sort();

describe("an init file", () => {
  it("seeds the issue's example into the default project: named accounts with balances in token units, and a funded outside address", async () => {
    const sandbox = await start({ init: fileWith("example.yaml", ISSUE_EXAMPLE) });
    const byName = await call(sandbox, "GET", "/platform/v2/evm/accounts/by-name/Funded");
    expect(byName.status).toBe(200);
    const evm = await balancesOf(sandbox, "evm", "Funded");
    expect(evm.address).toBe(byName.body.address);
    expect(asText(evm.balances)).toEqual(["base-sepolia 0.1 ETH", "base-sepolia 10 USDC"]);
    const sol = await balancesOf(sandbox, "solana", "FundedSol");
    expect(asText(sol.balances)).toEqual(["solana-devnet 1 SOL"]);
    const outside = await call(sandbox, "GET", "/_sandbox/chain/addresses/0x5b76f5B8fc9D700624F78208132f91AD4e61a1f0?network=base-sepolia", {
      anonymous: true,
    });
    expect(outside.status).toBe(200);
    expect(JSON.stringify(outside.body)).toContain("10000000000000000");
  });

  it("reads JSON too, fixes private keys, makes smart accounts with their owner, and gives more projects fixed credentials", async () => {
    const key = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
    const first = await start({ seed: "credentials-source" });
    const credentials = { apiKeyId: first.credentials.apiKeyId, apiKeySecret: first.credentials.apiKeySecret, walletSecret: first.credentials.walletSecret };
    await first.close();
    open.splice(0);
    const init = {
      evmAccounts: [{ name: "Owner", privateKey: key }],
      evmSmartAccounts: [{ name: "Smart", owner: "Owner", balances: { "base-sepolia": { USDC: "2.5" } } }],
      projects: [{ name: "second", credentials, evmAccounts: [{ name: "Other" }] }],
    };
    const sandbox = await start({ init: fileWith("more.json", JSON.stringify(init)) });
    const owner = await call(sandbox, "GET", "/platform/v2/evm/accounts/by-name/Owner");
    expect(owner.body.address).toBe(privateKeyToAccount(key).address);
    const smart = await call(sandbox, "GET", "/platform/v2/evm/smart-accounts/by-name/Smart");
    expect(smart.status).toBe(200);
    expect(smart.body.owners).toEqual([owner.body.address]);
    expect(asText((await balancesOf(sandbox, "smart", "Smart")).balances)).toEqual(["base-sepolia 2.5 USDC"]);
    // The second project answers to the credentials the file gave it, and holds its own account only.
    const other = await call(sandbox, "GET", "/platform/v2/evm/accounts/by-name/Other", { credentials });
    expect(other.status).toBe(200);
    expect((await call(sandbox, "GET", "/platform/v2/evm/accounts/by-name/Other")).status).toBe(404);
  });

  it("seeds end users with a project-wide and an account-scoped grant, policies, webhook subscriptions, customers, custodial balances, scenarios and the clock", async () => {
    const init: StateFile = {
      clock: { now: "2030-01-02T03:04:05.000Z" },
      policies: [
        {
          scope: "account",
          description: "small sends",
          rules: [{ action: "reject", operation: "signEvmTransaction", criteria: [{ type: "ethValue", ethValue: "1000000000000000000", operator: ">" }] }],
        },
      ],
      endUsers: [
        {
          userId: "ada",
          authenticationMethods: [{ type: "email", email: "ada@example.com" }],
          evmAccount: { createSmartAccount: false },
          delegation: { expiresAt: "2030-02-01T00:00:00Z" },
        },
        {
          userId: "bob",
          authenticationMethods: [{ type: "email", email: "bob@example.com" }],
          evmAccount: { createSmartAccount: false },
          delegation: { scope: "account", expiresAt: "2030-02-01T00:00:00Z" },
        },
      ],
      webhookSubscriptions: [{ description: "all", eventTypes: ["wallet.delegation.created"], target: { url: "https://example.com/hook" }, isEnabled: true }],
      custodialAccounts: [{ name: "Treasury", balances: { usdc: "125.50" } }],
      customers: [
        {
          type: "individual",
          capabilities: { transferCrypto: { requested: true } },
          individual: { firstName: "Ada", lastName: "Lovelace", email: "ada@example.com" },
        },
      ],
      scenarios: ["faucet-limit-exceeded"],
    };
    const sandbox = await start({ init, clock: createClock(() => Date.parse("2026-01-01T00:00:00Z")) });
    expect(sandbox.clock.iso()).toBe("2030-01-02T03:04:05.000Z");
    const policies = await call(sandbox, "GET", "/platform/v2/policy-engine/policies");
    expect(policies.body.policies).toHaveLength(1);
    const ada = await call(sandbox, "GET", "/platform/v2/end-users/ada");
    expect(ada.status).toBe(200);
    const grants = await call(sandbox, "GET", "/_sandbox/end-users?q=bob", { anonymous: true });
    expect(grants.status).toBe(200);
    const hooks = await call(sandbox, "GET", "/platform/v2/data/webhooks/subscriptions");
    expect(hooks.body.subscriptions).toHaveLength(1);
    const accounts = await call(sandbox, "GET", "/platform/v2/accounts");
    expect(accounts.status).toBe(200);
    const treasury = (accounts.body.accounts as Array<{ accountId: string; name?: string }>).find((a) => a.name === "Treasury");
    expect(treasury).toBeDefined();
    const usdc = await call(sandbox, "GET", `/platform/v2/accounts/${treasury!.accountId}/balances/usdc`);
    expect(JSON.stringify(usdc.body)).toContain("125.5");
    expect((await call(sandbox, "GET", "/platform/v2/customers")).body.customers).toHaveLength(1);
    // The scenario the file names is active from the start.
    const faucet = await call(sandbox, "POST", "/platform/v2/evm/faucet", {
      body: { network: "base-sepolia", address: "0x5b76f5B8fc9D700624F78208132f91AD4e61a1f0", token: "eth" },
    });
    expect(faucet.body.errorType).toBe("faucet_limit_exceeded");
    const exported = sandbox.exportState();
    const records = exported.projects![0]!.records!;
    expect(Object.values(records.delegationGrants ?? {})).toHaveLength(2);
    expect(
      Object.values(records.delegationGrants ?? {})
        .map((g) => (g as { address?: string }).address === undefined)
        .sort(),
    ).toEqual([false, true]);
  });
});

describe("an init file with a data file", () => {
  it("is applied on the data file's first start only: a restart keeps the state and does not apply it again", async () => {
    const data = join(dir, "kept.json");
    const file = fileWith("once.yaml", 'evmAccounts:\n  - name: Once\n    balances: { base-sepolia: { USDC: "1" } }\n');
    const first = await start({ init: file, data });
    const address = (await call(first, "GET", "/platform/v2/evm/accounts/by-name/Once")).body.address;
    await first.close();
    open.splice(0);
    const again = await start({ init: file, data });
    expect((await call(again, "GET", "/platform/v2/evm/accounts/by-name/Once")).body.address).toBe(address);
    expect(asText((await balancesOf(again, "evm", "Once")).balances)).toEqual(["base-sepolia 1 USDC"]);
  });
});

describe("a bad init file", () => {
  it("is refused before the server listens, naming the file, the path inside it and what was expected", async () => {
    const file = fileWith("bad.yaml", "evmAccounts:\n  - name: Funded\n    balances:\n      base-sepolia: { ETH: 0.1 }\n");
    const error = await startSandbox({ init: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain("$.evmAccounts[0].balances.base-sepolia.ETH");
    expect((error as Error).message).toContain(`expected string (Decimal token units, e.g. "0.1"), got 0.1`);
  });

  it("names an unknown field and a token the network does not have", async () => {
    const unknown = await startSandbox({ init: fileWith("typo.yaml", "evmAcounts: []\n") }).catch((e: unknown) => e);
    expect((unknown as Error).message).toMatch(/typo\.yaml: \$: unknown field 'evmAcounts'/);
    const token = await startSandbox({ init: fileWith("token.yaml", 'evmAccounts:\n  - name: Aa\n    balances:\n      base-sepolia: { DOGE: "1" }\n') }).catch(
      (e: unknown) => e,
    );
    expect((token as Error).message).toMatch(/token\.yaml: \$\.evmAccounts\[0\]\.balances\.base-sepolia\.DOGE: token DOGE is not in the sandbox's token table/);
  });

  it("names a scenario that does not exist, and an amount with more decimals than the token has", async () => {
    const scenario = await startSandbox({ init: { scenarios: ["no-such-scenario"] } }).catch((e: unknown) => e);
    expect((scenario as Error).message).toMatch(/^init: \$\.scenarios: .*no-such-scenario/);
    const decimals = await startSandbox({ init: { evmAccounts: [{ name: "Aa", balances: { "base-sepolia": { USDC: "0.0000001" } } }] } }).catch(
      (e: unknown) => e,
    );
    expect((decimals as Error).message).toMatch(/\$\.evmAccounts\[0\]\.balances\.base-sepolia\.USDC: 0\.0000001 USDC has more than 6 decimals/);
  });

  it("applies nothing when a later entry fails: the data file keeps no account of the file", async () => {
    const data = join(dir, "state.json");
    const file = fileWith("half.yaml", "evmAccounts:\n  - name: First\n  - name: First\n");
    const error = await startSandbox({ init: file, data }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/\$\.evmAccounts\[1\]: .*already exists/);
    const sandbox = await start({ data: join(dir, "state.json") });
    expect((await call(sandbox, "GET", "/platform/v2/evm/accounts")).body.accounts).toEqual([]);
  });

  it("leaves no file of the data open when a start fails part-way", async () => {
    // Linux names each open descriptor's file under /proc/self/fd (CI runs on Linux).
    const openFiles = () =>
      readdirSync("/proc/self/fd").flatMap((fd) => {
        try {
          return [readlinkSync(`/proc/self/fd/${fd}`)];
        } catch {
          return []; // closed since the listing
        }
      });
    const data = join(dir, "failing.json");
    const error = await startSandbox({ init: { scenarios: ["no-such-scenario"] }, data }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/no-such-scenario/);
    expect(openFiles().filter((f) => f.startsWith(data))).toEqual([]);
  });
});

describe("records in an init file", () => {
  it("refuses a collection or record id that would reach an object's prototype", async () => {
    const proto = await startSandbox({ init: JSON.parse('{"records":{"evmAccounts":{"__proto__":{"polluted":true}}}}') }).catch((e: unknown) => e);
    expect((proto as Error).message).toMatch(/^init: \$\.records\.evmAccounts: /);
    const collection = await startSandbox({ init: JSON.parse('{"records":{"__proto__":{"a":{}}}}') }).catch((e: unknown) => e);
    expect((collection as Error).message).toMatch(/^init: \$\.records: /);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("a project's other identity fields", () => {
  it("travel in meta from an export to an init file and back, whatever they are", async () => {
    const sandbox = await start({ init: { projects: [{ name: "with-meta", meta: { clientApiKey: "client-key-1", somethingNew: { n: 1 } } }] } });
    const exported = sandbox.exportState().projects!.find((p) => p.name === "with-meta")!;
    expect(exported.meta).toEqual({ clientApiKey: "client-key-1", somethingNew: { n: 1 } });
    const refused = await startSandbox({ init: { projects: [{ name: "x", meta: { id: "other" } }] } }).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/^init: \$\.projects\[0\]\.meta: /);
  });
});
