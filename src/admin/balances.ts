/**
 * POST /_sandbox/balances: credit an address on the project's ledger (chain/credit.ts says how a credit is named).
 */
import { creditOnLedger } from "../chain/credit.js";
import { type AdminHandler, callerProject, locking } from "./types.js";

/** Funds on any network, mainnets included (where there is no faucet): the ledger is the sandbox's to set. */
export const creditSandboxBalance: AdminHandler<"creditSandboxBalance"> = locking("project", async (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const credited = creditOnLedger(tx, call.body);
  await tx.commit();
  return { status: 200, body: credited };
});
