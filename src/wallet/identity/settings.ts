/**
 * The project's embedded-wallet settings, read from `settings.embeddedWallets`
 * (changed through the admin API, `PATCH /_sandbox/projects/{projectId}`, or the
 * dashboard). Everything has a default, so a project nobody configured signs
 * users in by every method from any localhost page.
 */
import { DEFAULT_SIGN_IN_RATE_LIMITS, type SignInRateLimits } from "./rateLimits.js";

export type SignInMethod = "email" | "sms" | "siwe" | "google" | "apple" | "x" | "telegram" | "github" | "jwt";

const ALL_SIGN_IN_METHODS: readonly SignInMethod[] = ["email", "sms", "siwe", "google", "apple", "x", "telegram", "github", "jwt"];

export interface CustomAuthSettings {
  /** Inline JWKS (`{ keys: [...] }`) or a loopback URL serving one. */
  jwks?: { keys: unknown[] };
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
}

export interface EmbeddedWalletSettings {
  signInMethods: readonly SignInMethod[];
  /** Origins allowed besides http://localhost:* and http://127.0.0.1:* (exact, e.g. "https://app.example"). */
  allowedOrigins: readonly string[];
  delegatedSigning: boolean;
  attestationRequired: boolean;
  /** Email address or phone number → the one-time code always sent to it (deterministic tests). */
  testCodes: Readonly<Record<string, string>>;
  customAuth?: CustomAuthSettings;
  /** Flows and code checks per identity and per project (rateLimits.ts); a load test may raise them. */
  signInRateLimits: SignInRateLimits;
  mfa: {
    enabled: boolean;
    totp: boolean;
    sms: boolean;
    verificationWindowSeconds: number;
    promptEnrollmentOnLogin: boolean;
    requireVerificationOnLogin: boolean;
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const bool = (v: unknown, fallback: boolean) => (typeof v === "boolean" ? v : fallback);
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : undefined);

/** The settings with their defaults filled in; anything malformed reads as its default (the admin API stores what it is given). */
export function embeddedWalletSettings(settings: Readonly<Record<string, unknown>>): EmbeddedWalletSettings {
  const raw = isRecord(settings.embeddedWallets) ? settings.embeddedWallets : {};
  const mfa = isRecord(raw.mfa) ? raw.mfa : {};
  const methods = strings(raw.signInMethods)?.filter((m): m is SignInMethod => (ALL_SIGN_IN_METHODS as readonly string[]).includes(m));
  const testCodes = isRecord(raw.testCodes)
    ? Object.fromEntries(
        Object.entries(raw.testCodes)
          .filter((e): e is [string, string] => typeof e[1] === "string")
          .map(([k, v]) => [k.toLowerCase(), v]),
      )
    : {};
  const custom = isRecord(raw.customAuth) ? raw.customAuth : undefined;
  const limits = isRecord(raw.signInRateLimits) ? raw.signInRateLimits : {};
  const positive = (k: keyof SignInRateLimits) => {
    const v = limits[k];
    return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : DEFAULT_SIGN_IN_RATE_LIMITS[k];
  };
  return {
    signInMethods: methods ?? ALL_SIGN_IN_METHODS,
    allowedOrigins: strings(raw.allowedOrigins) ?? [],
    // The existing switch of delegated signing (wallet/end-users/delegation.ts) stays the one source.
    delegatedSigning: settings.delegationEnabled !== false,
    attestationRequired: bool(raw.attestationRequired, false),
    testCodes,
    customAuth: custom
      ? {
          jwks: isRecord(custom.jwks) && Array.isArray(custom.jwks.keys) ? { keys: custom.jwks.keys } : undefined,
          jwksUrl: typeof custom.jwksUrl === "string" ? custom.jwksUrl : undefined,
          issuer: typeof custom.issuer === "string" ? custom.issuer : undefined,
          audience: typeof custom.audience === "string" ? custom.audience : undefined,
        }
      : undefined,
    signInRateLimits: {
      windowSeconds: positive("windowSeconds"),
      flowsPerIdentity: positive("flowsPerIdentity"),
      codeChecksPerIdentity: positive("codeChecksPerIdentity"),
      flowsPerProject: positive("flowsPerProject"),
      codeChecksPerProject: positive("codeChecksPerProject"),
    },
    mfa: {
      enabled: bool(mfa.enabled, false),
      totp: bool(mfa.totp, true),
      sms: bool(mfa.sms, true),
      // The project-wide `mfaVerificationWindowSeconds` is what MFA verification enforces: it wins when set.
      verificationWindowSeconds:
        typeof settings.mfaVerificationWindowSeconds === "number"
          ? settings.mfaVerificationWindowSeconds
          : typeof mfa.verificationWindowSeconds === "number"
            ? mfa.verificationWindowSeconds
            : 300,
      promptEnrollmentOnLogin: bool(mfa.promptEnrollmentOnLogin, false),
      requireVerificationOnLogin: bool(mfa.requireVerificationOnLogin, false),
    },
  };
}

/**
 * What is wrong with the custom authentication a settings change would configure, or undefined. Refused when it is
 * written rather than at each sign-in: without an audience, a JWT the identity provider issued for any other app of
 * the developer's would sign users in here.
 */
export function customAuthProblem(settings: Readonly<Record<string, unknown>>): string | undefined {
  const wallets = settings.embeddedWallets;
  if (!isRecord(wallets) || wallets.customAuth === undefined || wallets.customAuth === null) return undefined;
  const custom = wallets.customAuth;
  if (!isRecord(custom)) return "settings.embeddedWallets.customAuth must be an object ({ jwks | jwksUrl, issuer, audience }).";
  if (typeof custom.audience !== "string" || custom.audience === "")
    return "settings.embeddedWallets.customAuth.audience is required (the aud your JWTs carry).";
  if (typeof custom.issuer !== "string" || custom.issuer === "") return "settings.embeddedWallets.customAuth.issuer is required (the iss your JWTs carry).";
  return undefined;
}

/** Whether a page at `origin` may call the embedded-wallet API of a project with these settings (CORS). */
export function originAllowed(origin: string, allowedOrigins: readonly string[]): boolean {
  if (/^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/.test(origin)) return true;
  return allowedOrigins.includes(origin);
}
