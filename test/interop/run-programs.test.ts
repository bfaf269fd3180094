/**
 * Programs written for the production platform — `new CdpClient()` with no
 * options, viem's public client on Base Sepolia's public RPC, Solana's public
 * devnet RPC, an x402 seller and buyer with the client's defaults — run
 * unmodified under `cdp-sandbox run` (test/fixtures/programs/). The built
 * command spawns them, so these skip until `npm run build` has run.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ed25519 } from "@noble/curves/ed25519.js";
import { getBase58Encoder } from "@solana/kit";
import { verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { answers, BUILD_TIMEOUT_MS, cliPath, ensureBuilt, journalOrigin, programPath, startNode } from "#test/helpers/cli.js";
import { call } from "#test/helpers/sandbox.js";
import { USDC_BASE_SEPOLIA } from "#test/helpers/x402.js";

const lastJsonLine = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!);
const bytes58 = (text: string) => new Uint8Array(getBase58Encoder().encode(text));

describe("cdp-sandbox run -- node <a program written for production>", () => {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  it("creates EVM and Solana accounts, signs, imports a key, takes the faucet, sends and waits for the receipt on the public RPC host", async () => {
    const run = startNode([cliPath, "run", "--seed", "run-programs", "--", process.execPath, programPath("wallet-basics.mjs")], { timeoutMs: 90_000 });
    const { code, stdout, stderr } = await run.finished;
    expect(code, stderr).toBe(0);
    const result = lastJsonLine(stdout);
    expect(await verifyMessage({ address: result.evm.address, message: result.evm.message, signature: result.evm.signature })).toBe(true);
    expect(result.imported.address).toBe(result.imported.expected);
    expect(result.transaction).toMatchObject({ status: "success", recipientBalance: "10000000000000" });
    expect(ed25519.verify(bytes58(result.solana.signature), new TextEncoder().encode(result.evm.message), bytes58(result.solana.address))).toBe(true);
    expect(BigInt(result.solana.lamports)).toBeGreaterThan(0n);
    // One line says where the journal is; the sandbox it started is gone with the command.
    const origin = journalOrigin(stderr);
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await answers(origin!)).toBe(false);
  }, 120_000);

  describe("an x402 seller and buyer with the client's defaults, on a sandbox joined with --attach", () => {
    let sandbox: Sandbox;
    const credentialsFile = join(tmpdir(), `cdp-sandbox-run-x402-${process.pid}.json`);
    beforeAll(async () => {
      sandbox = await startSandbox({ port: 0, seed: "run-x402" });
      writeFileSync(credentialsFile, JSON.stringify(sandbox.credentials));
    });
    afterAll(() => sandbox.close());

    it("completes a paid request and the seller's USDC moves on the sandbox's ledger", async () => {
      const args = [
        cliPath,
        "run",
        "--attach",
        sandbox.url,
        "--credentials-file",
        credentialsFile,
        "--",
        process.execPath,
        programPath("x402-paid-request.mjs"),
      ];
      const { code, stdout, stderr } = await startNode(args, { timeoutMs: 90_000 }).finished;
      expect(code, stderr).toBe(0);
      const result = lastJsonLine(stdout);
      expect(result).toMatchObject({ unpaidStatus: 402, paidStatus: 200, paymentResponse: true, body: { report: "high tide at 06:12" } });
      expect(BigInt(result.sellerAfter) - BigInt(result.sellerBefore)).toBe(10_000n); // $0.01 in USDC's 6 decimals

      // The ledger itself, read over HTTP by the test: the seller holds what the buyer paid.
      const balances = await call(sandbox, "GET", `/platform/v2/data/evm/token-balances/base-sepolia/${result.seller}`);
      const usdc = balances.body.balances.find(
        (b: { token: { contractAddress: string } }) => b.token.contractAddress.toLowerCase() === USDC_BASE_SEPOLIA.toLowerCase(),
      );
      expect(usdc.amount.amount).toBe("10000");
      const journal = await call(sandbox, "GET", "/_sandbox/requests", { anonymous: true });
      const settled = journal.body.requests.find((r: { path: string }) => r.path === "/platform/v2/x402/settle");
      expect(settled).toMatchObject({ status: 200, auth: "apiKey" });
      // The attached sandbox is not the run's to stop.
      expect(await answers(sandbox.url)).toBe(true);
    }, 120_000);
  });
});
