/**
 * Borrowing through @coinbase/cdp-sdk 1.57: the borrow calls exist only in the
 * client's generated API (no CdpClient method wraps them), which an app
 * reaches through the HTTP client CdpClient configures. The developer acts
 * for an end user under a delegation grant: lists and reads the products,
 * opens, adjusts and closes a position of the user's smart account, and
 * polls each user operation as the client's documentation says to.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import type { CdpOpenApiClient as GeneratedClient } from "../../node_modules/@coinbase/cdp-sdk/_types/openapi-client/index.js";
import { call, endUserSession, fund } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

// The package does not export its generated client by name; this is the very module CdpClient configures.
const generatedPath = "../../node_modules/@coinbase/cdp-sdk/_esm/openapi-client/index.js";
const { CdpOpenApiClient: api } = (await import(generatedPath)) as { CdpOpenApiClient: typeof GeneratedClient };

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-borrowing", validateResponses: true });
  sandbox.clock.freeze(true);
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";

describe("@coinbase/cdp-sdk borrowing", () => {
  it("lists and reads borrow products with the generated client", async () => {
    const page = await api.listEvmBorrowProducts({ network: "base", protocol: "morpho_blue", pageSize: 2 });
    expect(page.borrowProducts).toHaveLength(2);
    expect(page.nextPageToken).toBeDefined();
    const rest = await api.listEvmBorrowProducts({ network: "base", protocol: "morpho_blue", pageSize: 2, pageToken: page.nextPageToken });
    expect(rest.borrowProducts.length).toBeGreaterThan(0);
    const product = await api.getEvmBorrowProduct(page.borrowProducts[0]!.borrowProductId);
    expect(product.protocolDetails.marketParams.lltvBps).toBe(8600);
    expect(product.venue.name).toMatch(/Morpho/);
  });

  it("opens, adjusts and closes a position for an end user under delegation, polling each user operation", async () => {
    const user = await cdp.endUser.createEndUser({
      authenticationMethods: [{ type: "email", email: "borrower@example.com" }],
      evmAccount: { createSmartAccount: true },
    });
    const smart = user.evmSmartAccounts[0]!;
    await fund(sandbox, { network: "base", address: smart, token: "cbBTC", amount: "2000000" });
    const session = await endUserSession(sandbox, user.userId);
    const expiresAt = new Date(sandbox.clock.now() + 3600_000).toISOString();
    expect((await call(sandbox, "POST", `${EW}/${user.userId}/address/${smart}/delegation`, { body: { expiresAt }, endUser: session })).status).toBe(201);

    const { borrowProducts } = await api.listEvmBorrowProducts();
    const product = borrowProducts.find((p) => p.name === "cbBTC/USDC")!;
    const common = { borrowProductId: product.borrowProductId, walletSecretId: "developer", useCdpPaymaster: true };
    const opened = await api.createBorrowPositionWithEndUserAccount(user.userId, smart, { ...common, collateralAmount: "0.01", loanAmount: "400" });
    expect(opened.status).toBe("broadcast");
    expect((await api.getUserOperationWithEndUserAccount(user.userId, smart, opened.userOpHash)).status).toBe("complete");

    const [position] = (await api.listBorrowPositionsWithEndUserAccount(user.userId, smart)).borrowPositions;
    expect(position!.onchainState).toMatchObject({ healthStatus: "healthy", currentLtvBps: 4000, debt: [{ token: { symbol: "USDC" } }] });

    await expect(
      api.adjustBorrowPositionWithEndUserAccount(user.userId, smart, { ...common, addCollateralAmount: "0.001", removeCollateralAmount: "0.001" }),
    ).rejects.toMatchObject({ statusCode: 400, errorType: "invalid_request", errorMessage: expect.stringMatching(/cannot be combined/) });

    const adjusted = await api.adjustBorrowPositionWithEndUserAccount(user.userId, smart, { ...common, addCollateralAmount: "0.01", borrowLoanAmount: "100" });
    expect((await api.getUserOperationWithEndUserAccount(user.userId, smart, adjusted.userOpHash)).status).toBe("complete");
    const [after] = (await api.listBorrowPositionsWithEndUserAccount(user.userId, smart)).borrowPositions;
    expect(after!.onchainState.collateral[0]!.amount).toBe("0.02");

    await fund(sandbox, { network: "base", address: smart, token: "USDC", amount: "1000000" });
    const closed = await api.closeBorrowPositionWithEndUserAccount(user.userId, smart, common);
    expect((await api.getUserOperationWithEndUserAccount(user.userId, smart, closed.userOpHash)).status).toBe("complete");
    expect((await api.listBorrowPositionsWithEndUserAccount(user.userId, smart)).borrowPositions).toEqual([]);
  });
});
