/**
 * EIP-712 through the official client with addresses written as its own
 * examples write them (mixed case, wrong EIP-55 checksum): signatures verified
 * with viem over the same typed data in lowercase, and an account policy on
 * signEvmTypedData refusing through the client. One CdpClient per file.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recoverTypedDataAddress, verifyTypedData } from "viem";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { CLIENT_EXAMPLE_SPENDER, lowercaseAddresses, mixedCaseTypedData, wrongChecksum } from "#test/helpers/typedData.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-typed-data" });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";

/** The client's own Permit2 example, its verifying contract also written with a wrong checksum. */
const permit = (verifyingContract: string) => ({
  domain: { name: "Permit2", chainId: 1, verifyingContract: verifyingContract as `0x${string}` },
  types: {
    PermitTransferFrom: [
      { name: "permitted", type: "TokenPermissions" },
      { name: "spender", type: "address" },
      { name: "nonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
    ],
    TokenPermissions: [
      { name: "token", type: "address" },
      { name: "amount", type: "uint256" },
    ],
  },
  primaryType: "PermitTransferFrom" as const,
  message: { permitted: { token: USDC, amount: "1000000" }, spender: CLIENT_EXAMPLE_SPENDER, nonce: "0", deadline: "1717123200" },
});

describe("@coinbase/cdp-sdk typed data with wrong-checksum addresses", () => {
  it("cdp.evm.signTypedData signs the client's Permit2 example, verifiable with viem in lowercase", async () => {
    const account = await cdp.evm.createAccount();
    const typed = permit(wrongChecksum(PERMIT2));
    const { signature } = await cdp.evm.signTypedData({ address: account.address, ...typed });
    const lowercase = lowercaseAddresses(typed);
    expect(await verifyTypedData({ ...lowercase, address: account.address, signature } as never)).toBe(true);
  });

  it("account.signTypedData signs nested structs and arrays of such addresses, recoverable with viem", async () => {
    const account = await cdp.evm.createAccount();
    const { types, ...rest } = mixedCaseTypedData(PERMIT2);
    const { EIP712Domain: _domainTypes, ...structs } = types;
    const typed = { ...rest, types: structs };
    const signature = await account.signTypedData(typed as never);
    expect(await recoverTypedDataAddress({ ...lowercaseAddresses(typed), signature } as never)).toBe(account.address);
  });

  it("an account policy on signEvmTypedData refuses a listed verifying contract, whatever its case, with policy_violation", async () => {
    const policy = await cdp.policies.createPolicy({
      policy: {
        scope: "account",
        description: "No Permit2 signatures",
        rules: [
          {
            action: "reject",
            operation: "signEvmTypedData",
            criteria: [{ type: "evmTypedDataVerifyingContract", addresses: [PERMIT2], operator: "in" }],
          },
          {
            action: "accept",
            operation: "signEvmTypedData",
            criteria: [{ type: "evmTypedDataVerifyingContract", addresses: [PERMIT2], operator: "not in" }],
          },
        ],
      },
    });
    const account = await cdp.evm.createAccount({ accountPolicy: policy.id });
    await expect(account.signTypedData(permit(wrongChecksum(PERMIT2)))).rejects.toMatchObject({ statusCode: 403, errorType: "policy_violation" });
    await expect(cdp.evm.signTypedData({ address: account.address, ...permit(PERMIT2.toLowerCase()) })).rejects.toMatchObject({
      statusCode: 403,
      errorType: "policy_violation",
    });
    const other = permit(wrongChecksum(USDC));
    const signature = await account.signTypedData(other);
    expect(await verifyTypedData({ ...lowercaseAddresses(other), address: account.address, signature } as never)).toBe(true);
  });
});
