/** The sandbox's own API: every operation of admin-openapi.yaml, by operationId. */
import { listSandboxAccounts } from "./accounts.js";
import { creditSandboxBalance } from "./balances.js";
import { deleteSandboxX402Bundle, putSandboxX402Bundle } from "./bundles.js";
import { getSandboxAddress, getSandboxTransaction, listSandboxBlocks, listSandboxTransactions } from "./chain.js";
import { getSandboxClock, setSandboxClock } from "./clock.js";
import {
  createSandboxCoinbaseUser,
  getSandboxCoinbaseUser,
  issueSandboxCoinbaseAccessToken,
  passSandboxCoinbaseAuthorizationChallenge,
} from "./coinbaseUsers.js";
import { getSandboxCoverage } from "./coverage.js";
import { getSandboxDashboardAsset, openSandboxDashboard } from "./dashboard.js";
import { grantSandboxOAuthConsent, listSandboxMessages, openSandboxOAuthConsentPage } from "./embeddedWallets.js";
import { createSandboxAccountDelegation, createSandboxProjectWideDelegation, issueSandboxEndUserToken } from "./endUsers.js";
import { createSandboxCharge, listSandboxCharges, putSandboxCommerceProduct } from "./charges.js";
import { exportSandboxState } from "./export.js";
import { getSandboxRequestsHar } from "./har.js";
import { getSandboxSecureIframeScript, openSandboxSecureIframe } from "./exportFrame.js";
import { listSandboxOnrampOrders, listSandboxTransfers } from "./flows.js";
import { fundSandboxAccount, simulateSandboxDeposit } from "./money.js";
import {
  getSandboxOnrampVerificationCode,
  openSandboxOnrampPaymentLink,
  openSandboxOnrampSessionPage,
  openSandboxOnrampUpgradePage,
  submitSandboxOnrampUpgradePage,
} from "./onramp.js";
import { getSandboxOverview } from "./overview.js";
import { listSandboxEndUsers, listSandboxPolicies } from "./people.js";
import {
  createSandboxProject,
  getSandboxImportKey,
  getSandboxProject,
  getSandboxProjectCredentials,
  listSandboxProjects,
  rotateSandboxClientApiKey,
  sandboxHealth,
  updateSandboxProjectSettings,
} from "./projects.js";
import { createSandboxSigningKey, deleteSandboxSigningKey, listSandboxSigningKeys } from "./signingKeys.js";
import { activateSandboxScenario, deactivateSandboxScenarios, listSandboxScenarios } from "./scenarios.js";
import {
  clearSandboxRequests,
  getSandboxRequest,
  listSandboxRequests,
  listSandboxSnapshots,
  resetSandbox,
  restoreSandboxSnapshot,
  takeSandboxSnapshot,
} from "./state.js";
import { publishSandboxTermsOfService } from "./terms.js";
import type { AdminHandlers } from "./types.js";
import {
  flushSandboxWebhooks,
  listSandboxWebhookDeliveries,
  listSandboxWebhookSubscriptions,
  replaySandboxWebhookDelivery,
  sendSandboxWebhookTestEvent,
} from "./webhooks.js";

export const adminHandlers: AdminHandlers = {
  sandboxHealth,
  createSandboxProject,
  getSandboxProject,
  getSandboxProjectCredentials,
  rotateSandboxClientApiKey,
  updateSandboxProjectSettings,
  listSandboxSigningKeys,
  createSandboxSigningKey,
  deleteSandboxSigningKey,
  getSandboxClock,
  setSandboxClock,
  resetSandbox,
  takeSandboxSnapshot,
  restoreSandboxSnapshot,
  getSandboxImportKey,
  creditSandboxBalance,
  fundSandboxAccount,
  simulateSandboxDeposit,
  publishSandboxTermsOfService,
  putSandboxX402Bundle,
  deleteSandboxX402Bundle,
  issueSandboxEndUserToken,
  createSandboxProjectWideDelegation,
  createSandboxAccountDelegation,
  exportSandboxState,
  getSandboxRequestsHar,
  createSandboxCoinbaseUser,
  getSandboxCoinbaseUser,
  issueSandboxCoinbaseAccessToken,
  passSandboxCoinbaseAuthorizationChallenge,
  flushSandboxWebhooks,
  listSandboxWebhookDeliveries,
  sendSandboxWebhookTestEvent,
  listSandboxScenarios,
  activateSandboxScenario,
  deactivateSandboxScenarios,
  listSandboxRequests,
  getSandboxCoverage,
  clearSandboxRequests,
  openSandboxOnrampSessionPage,
  openSandboxOnrampPaymentLink,
  openSandboxOnrampUpgradePage,
  submitSandboxOnrampUpgradePage,
  getSandboxOnrampVerificationCode,
  // Embedded-wallet sign-in: the inbox and the OAuth consent page.
  listSandboxMessages,
  openSandboxOAuthConsentPage,
  grantSandboxOAuthConsent,
  // The dashboard (/_sandbox/ui/) and what it reads.
  listSandboxProjects,
  getSandboxOverview,
  listSandboxSnapshots,
  listSandboxAccounts,
  listSandboxEndUsers,
  listSandboxPolicies,
  listSandboxBlocks,
  listSandboxTransactions,
  getSandboxTransaction,
  getSandboxAddress,
  listSandboxTransfers,
  listSandboxOnrampOrders,
  listSandboxCharges,
  createSandboxCharge,
  putSandboxCommerceProduct,
  listSandboxWebhookSubscriptions,
  replaySandboxWebhookDelivery,
  getSandboxRequest,
  openSandboxDashboard,
  getSandboxDashboardAsset,
  // The key-export iframe of the React kit (secureIframeBasePath).
  openSandboxSecureIframe,
  getSandboxSecureIframeScript,
};
