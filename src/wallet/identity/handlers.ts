/** Embedded-wallet sign-in: every operation of the area, by operationId. */
import { apiError } from "../../errors/catalogue.js";
import type { Handler, Handlers } from "../types.js";
import type { OAuthProvider } from "./flows.js";
import {
  createEndUserEvmAccount,
  createEndUserEvmSmartAccount,
  createEndUserSolanaAccount,
  getAuthenticatedEndUser,
  registerTemporaryWalletSecret,
} from "./accounts.js";
import { generateAttestationChallenge, getMfaConfig, getProjectConfig, registerAttestation } from "./config.js";
import { authenticateUserWithCustomAuth } from "./customAuth.js";
import { startOAuthFlow, verifyOAuth, verifyOAuthIdentity } from "./oauth.js";
import { startOtpFlow, verifyOtp } from "./otp.js";
import { projectSettings } from "./project.js";
import { endSession, refreshSession } from "./session.js";
import { startSiweFlow, verifySiwe } from "./siwe.js";
import { validateEndUserAccessToken } from "./validateToken.js";

const initiateAuthentication: Handler<"initiateAuthentication"> = (req, ctx) => {
  const projectId = req.pathParams.projectId;
  const body = req.body;
  if ("email" in body && body.type === "email") return { status: 200, body: startOtpFlow(req, ctx, projectId, "email", body.email) };
  if ("phoneNumber" in body && body.type === "sms") return { status: 200, body: startOtpFlow(req, ctx, projectId, "sms", body.phoneNumber) };
  if ("address" in body && body.type === "siwe") return { status: 200, body: startSiweFlow(req, ctx, projectId, body) };
  if ("redirectUrl" in body) return { status: 200, body: startOAuthFlow(req, ctx, projectId, body.type, body.redirectUrl) };
  throw apiError("invalid_request", "type must be email, sms, siwe or an OAuth provider, with its fields.");
};

const verifyEmailAuthentication: Handler<"verifyEmailAuthentication"> = (req, ctx) => verifyOtp(req, ctx, req.pathParams.projectId, "email", req.body);
const verifySmsAuthentication: Handler<"verifySmsAuthentication"> = (req, ctx) => verifyOtp(req, ctx, req.pathParams.projectId, "sms", req.body);
const verifySiweAuthentication: Handler<"verifySiweAuthentication"> = (req, ctx) => verifySiwe(req, ctx, req.pathParams.projectId, req.body);
const verifyOAuthCode: Handler<"verifyOAuthCode"> = (req, ctx) =>
  verifyOAuth(req, ctx, req.pathParams.projectId, req.pathParams.providerType as OAuthProvider, req.body);
const verifyOAuthEndUserIdentity: Handler<"verifyOAuthEndUserIdentity"> = (req, ctx) =>
  verifyOAuthIdentity(req, ctx, req.pathParams.projectId, req.pathParams.providerType as OAuthProvider, req.body);

const refreshAccessToken: Handler<"refreshAccessToken"> = async (req, ctx) => {
  projectSettings(req.pathParams.projectId, ctx);
  const session = await refreshSession(req, ctx, req.body.refreshToken);
  return { status: 200, body: session.body, headers: session.headers };
};

const logOutEndUser: Handler<"logOutEndUser"> = (req, ctx) => {
  projectSettings(req.pathParams.projectId, ctx);
  return { status: 204, body: undefined, headers: endSession(req, ctx, req.body?.refreshToken) };
};

export const handlers: Handlers = {
  initiateAuthentication,
  verifyEmailAuthentication,
  verifySmsAuthentication,
  verifySiweAuthentication,
  verifyOAuthCode,
  verifyOAuthEndUserIdentity,
  refreshAccessToken,
  logOutEndUser,
  authenticateUserWithCustomAuth,
  getProjectConfig,
  getMfaConfig,
  generateAttestationChallenge,
  registerAttestation,
  getAuthenticatedEndUser,
  registerTemporaryWalletSecret,
  createEndUserEvmAccount,
  createEndUserEvmSmartAccount,
  createEndUserSolanaAccount,
  validateEndUserAccessToken,
};
