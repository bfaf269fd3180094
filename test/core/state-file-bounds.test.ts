/**
 * State files (`--init`) within bounds: a balance no chain could hold (above 2^256 − 1 on an EVM network, above a
 * u64 on Solana) is refused with the JSON path of the amount, as is the same credit through the admin API; a file
 * that never ends (`/dev/zero`) is refused once past the size bound instead of being read until memory runs out.
 * (That an init file's accounts cost the same each, however many there are, is src/store/store.test.ts's.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call, withSandbox } from "#test/helpers/sandbox.js";

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

describe("the init file's size", () => {
  it("refuses /dev/zero once past the bound instead of reading it until memory runs out", async () => {
    await expect(withSandbox({ init: "/dev/zero" })).rejects.toThrow(/\/dev\/zero: \$: is larger than 128 MiB/);
  });
});
