/**
 * Payment Sessions: the merchant's session (create, read, cancel), the
 * payer's authorizations (wallet options and signatures, x402, Coinbase
 * account), and the merchant's captures, voids and refunds. Pending actions
 * land on the sandbox clock (settle.ts) before any handler runs.
 */
import type { Handlers } from "../../wallet/types.js";
import {
  capturePaymentSession,
  getPaymentSessionAuthorization,
  getPaymentSessionCapture,
  getPaymentSessionRefund,
  getPaymentSessionVoid,
  listPaymentSessionAuthorizations,
  listPaymentSessionCaptures,
  listPaymentSessionRefunds,
  listPaymentSessionVoids,
  refundPaymentSession,
  voidPaymentSession,
} from "./actions.js";
import { authorizeCoinbasePaymentSession, listCoinbaseAccountBalances } from "./coinbase.js";
import { cancelPaymentSession, createPaymentSession, getPaymentSession, listPaymentSessions } from "./sessions.js";
import { authorizeWalletPaymentSession, getWalletAuthorizationOptions } from "./wallet.js";
import { authorizeX402PaymentSession } from "./x402.js";

export const handlers: Handlers = {
  createPaymentSession,
  listPaymentSessions,
  getPaymentSession,
  cancelPaymentSession,
  getWalletAuthorizationOptions,
  authorizeWalletPaymentSession,
  authorizeX402PaymentSession,
  authorizeCoinbasePaymentSession,
  listCoinbaseAccountBalances,
  listPaymentSessionAuthorizations,
  getPaymentSessionAuthorization,
  capturePaymentSession,
  listPaymentSessionCaptures,
  getPaymentSessionCapture,
  voidPaymentSession,
  listPaymentSessionVoids,
  getPaymentSessionVoid,
  refundPaymentSession,
  listPaymentSessionRefunds,
  getPaymentSessionRefund,
};
