/**
 * State files (`--init`) within bounds: a balance no chain could hold (above 2^256 − 1 on an EVM network, above a
 * u64 on Solana), or a token supply its contract could not count (an ERC-20 `totalSupply` above 2^256 − 1, an SPL
 * mint's supply above a u64), is refused with the JSON path of the amount, as is the same credit through the admin
 * API; a file
 * that never ends (`/dev/zero`) is refused once past the size bound instead of being read until memory runs out.
 * (That an init file's accounts cost the same each, however many there are, is src/store/store.test.ts's.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPublicClient, erc20Abi, http } from "viem";
import { baseSepolia } from "viem/chains";
import { call, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

const dir = mkdtempSync(join(tmpdir(), "state-file-bounds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const initFile = (content: object) => {
  const file = join(dir, `init-${++n}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
};

// 2^256 wei is ~1.16e59 ETH; 2^64 lamports ~1.8e10 SOL.
const ETH_ABOVE_UINT256 = `2${"0".repeat(59)}`;
const SOL_ABOVE_U64 = "20000000000";
const SOLANA_ADDRESS = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

describe("amounts a chain cannot hold", () => {
  it("refuses an EVM balance above 2^256 − 1, naming the amount's JSON path", async () => {
    const file = initFile({
      evmAccounts: [
        { name: "ok", balances: { "base-sepolia": { ETH: "1" } } },
        { name: "rich", balances: { "base-sepolia": { ETH: ETH_ABOVE_UINT256 } } },
      ],
    });
    const started = withSandbox({ init: file });
    await expect(started).rejects.toThrow("$.evmAccounts[1].balances.base-sepolia.ETH");
    await expect(started).rejects.toThrow(/above 2\^256 − 1/);
  });

  it("refuses a sum of credits above 2^256 − 1 on one address, and a Solana balance above a u64", async () => {
    const address = "0x5b76f5B8fc9D700624F78208132f91AD4e61a1f0";
    const half = `1${"0".repeat(59)}`; // 1e59 ETH: once fits, twice does not
    await expect(
      withSandbox({
        init: initFile({
          fund: [
            { network: "base-sepolia", address, amount: half },
            { network: "base-sepolia", address, amount: half },
          ],
        }),
      }),
    ).rejects.toThrow(/\$\.fund\[1\].*above 2\^256 − 1/);
    await expect(withSandbox({ init: initFile({ fund: [{ network: "solana-devnet", address: SOLANA_ADDRESS, amount: SOL_ABOVE_U64 }] }) })).rejects.toThrow(
      /\$\.fund\[0\].*above 2\^64 − 1/,
    );
  });

  it("refuses the same credit through the admin API: 400 with the platform's error body, nothing credited", async () => {
    const sandbox = await withSandbox({ seed: "state-file-bounds" });
    try {
      const address = "0x5b76f5B8fc9D700624F78208132f91AD4e61a1f0";
      const res = await call(sandbox, "POST", "/_sandbox/balances", {
        anonymous: true,
        body: { network: "base-sepolia", address, amount: (2n ** 256n).toString() },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorType: "invalid_request", errorMessage: expect.stringContaining("above 2^256 − 1") });
      expect(res.body.correlationId).toBeTruthy();
      const max = await call(sandbox, "POST", "/_sandbox/balances", {
        anonymous: true,
        body: { network: "base-sepolia", address, amount: (2n ** 256n - 1n).toString() },
      });
      expect(max.status).toBe(200);
      expect(max.body.balance).toBe((2n ** 256n - 1n).toString());
    } finally {
      await sandbox.close();
    }
  });
});

// Just over 2^255 units of a 6-decimal token: one holder may hold it, two together exceed a uint256 total supply.
const USDC_HALF_UINT256 = (2n ** 255n / 10n ** 6n + 1n).toString();
// Just over 2^63 units of 6-decimal USDC on Solana: one token account may hold it, two exceed the mint's u64 supply.
const SOLANA_USDC_HALF_U64 = (2n ** 63n / 10n ** 6n + 1n).toString();

describe("a token's supply", () => {
  it("refuses balances that together bring an ERC-20 token's total supply above 2^256 − 1, naming the amount", async () => {
    const file = initFile({
      evmAccounts: [
        { name: "half-a", balances: { "base-sepolia": { USDC: USDC_HALF_UINT256 } } },
        { name: "half-b", balances: { "base-sepolia": { ETH: "1", USDC: USDC_HALF_UINT256 } } },
      ],
    });
    const started = withSandbox({ init: file });
    await expect(started).rejects.toThrow("$.evmAccounts[1].balances.base-sepolia.USDC");
    await expect(started).rejects.toThrow(/total supply of USDC on base-sepolia above 2\^256 − 1/);
  });

  it("refuses token balances above a Solana mint's u64 supply, and so does the admin API (nothing credited)", async () => {
    const holders = ["9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"];
    await expect(
      withSandbox({
        init: initFile({ fund: holders.map((address) => ({ network: "solana-devnet", address, token: "USDC", amount: SOLANA_USDC_HALF_U64 })) }),
      }),
    ).rejects.toThrow(/\$\.fund\[1\]: .*total supply of USDC on solana-devnet above 2\^64 − 1/);

    const sandbox = await withSandbox({ seed: "state-file-supply" });
    try {
      const units = (2n ** 63n + 1n).toString();
      const credit = (address: string, amount = units) =>
        call(sandbox, "POST", "/_sandbox/balances", { anonymous: true, body: { network: "solana-devnet", address, token: "USDC", amount } });
      expect((await credit(holders[0]!)).status).toBe(200);
      const refused = await credit(holders[1]!);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ errorType: "invalid_request", errorMessage: expect.stringContaining("total supply of USDC on solana-devnet") });
      expect(refused.body.correlationId).toBeTruthy();
      expect(refused.body.errorLink).toBeTruthy();
      // Nothing landed: the second holder still has none, and the mint's supply is the first credit alone.
      expect((await credit(holders[1]!, "0")).body.balance).toBe("0");
      const mint = await call(sandbox, "POST", await nodeUrlFor(sandbox, "solana-devnet"), {
        anonymous: true,
        body: { jsonrpc: "2.0", id: 1, method: "getTokenSupply", params: ["4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"] },
      });
      expect(mint.body.result?.value?.amount).toBe(units);
    } finally {
      await sandbox.close();
    }
  });

  it("lets an ERC-20 token's total supply reach 2^256 − 1 exactly, which totalSupply() then answers", async () => {
    const sandbox = await withSandbox({ seed: "state-file-supply-max" });
    try {
      const token = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const; // USDC on Base Sepolia
      const credit = (address: string, amount: bigint) =>
        call(sandbox, "POST", "/_sandbox/balances", { anonymous: true, body: { network: "base-sepolia", address, token: "USDC", amount: amount.toString() } });
      expect((await credit("0x5b76f5B8fc9D700624F78208132f91AD4e61a1f0", 2n ** 255n)).status).toBe(200);
      expect((await credit("0x1111111111111111111111111111111111111111", 2n ** 255n - 1n)).status).toBe(200);
      const over = await credit("0x2222222222222222222222222222222222222222", 1n);
      expect(over.status).toBe(400);
      expect(over.body.errorMessage).toContain("total supply of USDC on base-sepolia above 2^256 − 1");
      const client = createPublicClient({ chain: baseSepolia, transport: http(await nodeUrlFor(sandbox, "base-sepolia")) });
      expect(await client.readContract({ address: token, abi: erc20Abi, functionName: "totalSupply" })).toBe(2n ** 256n - 1n);
    } finally {
      await sandbox.close();
    }
  });
});

describe("the init file's size", () => {
  it("refuses /dev/zero once past the bound instead of reading it until memory runs out", async () => {
    await expect(withSandbox({ init: "/dev/zero" })).rejects.toThrow(/\/dev\/zero: \$: is larger than 128 MiB/);
  });
});
