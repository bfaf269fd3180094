/**
 * The project's configuration as the end user's client reads it before
 * sign-in (`config`, `auth/mfa`), from settings.embeddedWallets, and the iOS
 * App Attest handshake, which the sandbox simulates: challenges are real
 * (random, single use, 5 minutes of sandbox time) but Apple's attestation
 * statement is not checked, since no Apple server is reachable offline.
 */
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { Handler } from "../types.js";
import { projectSettings } from "./project.js";

const CHALLENGE_TTL_MS = 5 * 60_000;

interface AttestationChallenge {
  expiresAtMs: number;
  used: boolean;
  keyId?: string;
}

const ATTESTATION_CHALLENGES = declareCollection<AttestationChallenge>("attestationChallenges");

/** Settings have no history of their own: the configuration reads as made when the sandbox time began for it. */
const EPOCH = new Date(0).toISOString();

export const getProjectConfig: Handler<"getProjectConfig"> = (req, ctx) => {
  const settings = projectSettings(req.pathParams.projectId, ctx);
  return {
    status: 200,
    body: {
      projectId: ctx.project.id,
      createdAt: EPOCH,
      updatedAt: EPOCH,
      gmailAutoLinkingEnabled: false,
      iCloudAutoLinkingEnabled: false,
      delegatedSigningEnabled: settings.delegatedSigning,
      ...(settings.attestationRequired ? { appAttestation: { ios: [], android: [] } } : {}),
    },
  };
};

export const getMfaConfig: Handler<"getMfaConfig"> = (req, ctx) => {
  const { mfa } = projectSettings(req.pathParams.projectId, ctx);
  return {
    status: 200,
    body: {
      projectId: ctx.project.id,
      enabled: mfa.enabled,
      totpConfig: { enabled: mfa.enabled && mfa.totp },
      smsConfig: { enabled: mfa.enabled && mfa.sms },
      verificationWindowSeconds: mfa.verificationWindowSeconds,
      promptEnrollmentOnLogin: mfa.promptEnrollmentOnLogin,
      requireVerificationOnLogin: mfa.requireVerificationOnLogin,
      createdAt: EPOCH,
      updatedAt: EPOCH,
    },
  };
};

export const generateAttestationChallenge: Handler<"generateAttestationChallenge"> = (req, ctx) => {
  projectSettings(req.pathParams.projectId, ctx);
  const challenge = Buffer.from(ctx.random.secrets().bytes(32)).toString("base64");
  const expiresAtMs = ctx.clock.now() + CHALLENGE_TTL_MS;
  ctx.store.collection(ATTESTATION_CHALLENGES).insert(challenge, { expiresAtMs, used: false });
  return { status: 200, body: { challenge, expiresAt: new Date(expiresAtMs).toISOString() } };
};

export const registerAttestation: Handler<"registerAttestation"> = (req, ctx) => {
  projectSettings(req.pathParams.projectId, ctx);
  const challenges = ctx.store.collection(ATTESTATION_CHALLENGES);
  const challenge = challenges.get(req.body.challenge);
  if (!challenge) throw apiError("invalid_request", "The challenge was not issued by attestation/challenge.");
  if (challenge.used || challenge.expiresAtMs <= ctx.clock.now()) throw apiError("already_exists", "The challenge was already used or has expired.");
  const attestedAt = ctx.clock.iso();
  challenges.put(req.body.challenge, { ...challenge, used: true, keyId: req.body.ios.keyId });
  return { status: 200, body: { keyId: req.body.ios.keyId, platform: "ios", appId: req.body.ios.bundleId, attestedAt } };
};
