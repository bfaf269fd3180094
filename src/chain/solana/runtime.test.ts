/** The Solana runtime is built ahead of the first transaction, a piece per turn of the event loop. */
import { describe, expect, it } from "vitest";
import { turnsWhile } from "#test/helpers/eventLoop.js";
import { builtSolanaNetworks, prepareSolanaRuntime } from "./runtime.js";
import { SOLANA_TOKENS } from "./tokens.js";

describe("preparing the Solana runtime", () => {
  it("builds every network's VM, each in a turn of its own, none before the caller's turn ends", async () => {
    // (Another test file of this worker may have built some already: the module is shared.)
    const before = builtSolanaNetworks();
    const preparing = prepareSolanaRuntime();
    expect(builtSolanaNetworks(), "nothing runs in the caller's turn").toEqual(before);
    const { turns } = await turnsWhile(() => preparing.done);
    expect(builtSolanaNetworks().sort()).toEqual(Object.keys(SOLANA_TOKENS).sort());
    // The addon's load, then one VM per network: the loop turns between every two of these pieces.
    expect(turns).toBeGreaterThanOrEqual(Object.keys(SOLANA_TOKENS).length);
  });

  it("stops before the pieces it has not run", async () => {
    const preparing = prepareSolanaRuntime();
    preparing.stop();
    await preparing.done;
  });
});
