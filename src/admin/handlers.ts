/** The sandbox's own API: every operation of admin-openapi.yaml, by operationId. */
import { creditSandboxBalance } from "./balances.js";
import { deleteSandboxX402Bundle, putSandboxX402Bundle } from "./bundles.js";
import { getSandboxClock, setSandboxClock } from "./clock.js";
import { createSandboxProjectWideDelegation, issueSandboxEndUserToken } from "./endUsers.js";
import { fundSandboxAccount, simulateSandboxDeposit } from "./money.js";
import {
  getSandboxOnrampVerificationCode,
  openSandboxOnrampPaymentLink,
  openSandboxOnrampSessionPage,
  openSandboxOnrampUpgradePage,
  submitSandboxOnrampUpgradePage,
} from "./onramp.js";
import { createSandboxProject, getSandboxImportKey, getSandboxProject, sandboxHealth, updateSandboxProjectSettings } from "./projects.js";
import { activateSandboxScenario, deactivateSandboxScenarios, listSandboxScenarios } from "./scenarios.js";
import { clearSandboxRequests, listSandboxRequests, resetSandbox, restoreSandboxSnapshot, takeSandboxSnapshot } from "./state.js";
import type { AdminHandlers } from "./types.js";
import { flushSandboxWebhooks, listSandboxWebhookDeliveries, sendSandboxWebhookTestEvent } from "./webhooks.js";

export const adminHandlers: AdminHandlers = {
  sandboxHealth,
  createSandboxProject,
  getSandboxProject,
  updateSandboxProjectSettings,
  getSandboxClock,
  setSandboxClock,
  resetSandbox,
  takeSandboxSnapshot,
  restoreSandboxSnapshot,
  getSandboxImportKey,
  creditSandboxBalance,
  fundSandboxAccount,
  simulateSandboxDeposit,
  putSandboxX402Bundle,
  deleteSandboxX402Bundle,
  issueSandboxEndUserToken,
  createSandboxProjectWideDelegation,
  flushSandboxWebhooks,
  listSandboxWebhookDeliveries,
  sendSandboxWebhookTestEvent,
  listSandboxScenarios,
  activateSandboxScenario,
  deactivateSandboxScenarios,
  listSandboxRequests,
  clearSandboxRequests,
  openSandboxOnrampSessionPage,
  openSandboxOnrampPaymentLink,
  openSandboxOnrampUpgradePage,
  submitSandboxOnrampUpgradePage,
  getSandboxOnrampVerificationCode,
};
