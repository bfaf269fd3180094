/**
 * Delegation grants: an end user lets the developer sign
 * for them — for one account (address) or, project-wide, for all of them —
 * until `expiresAt` on the sandbox clock. At most one active grant per
 * {project, user}. A grant is active, then expired (the clock passed
 * expiresAt) or revoked (by the user or the developer). Expired and revoked
 * grants are forgotten after GRANT_RETENTION_MS, so old ones do not pile up.
 * Creating and revoking a grant send wallet.delegation.created / .revoked
 * (flat: delegation_id, user_id, expires_at and created_at / revoked_at);
 * expiry sends nothing, as on the platform, which defines no event for it.
 *
 * Before the developer's API key acts for an end user: delegation_not_enabled
 * (project setting `delegationEnabled: false`), delegation_not_found (no
 * grant), delegation_not_authorized (grants exist, none covers the address),
 * delegation_revoked / delegation_expired (the covering grant ended). All 403.
 * An end user cannot grant a delegation the project would refuse to use: with
 * delegated signing off, their grant answers delegation_not_enabled too.
 */
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import type { HandlerContext, RequestFacts } from "../types.js";
import type { WalletActor } from "../events/walletEvents.js";

const GRANT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface DelegationGrant {
  id: string;
  userId: string;
  /** Undefined for a project-wide grant. */
  address?: string;
  createdAtMs: number;
  expiresAtMs: number;
  revokedAtMs?: number;
}

const DELEGATION_GRANTS = declareCollection<DelegationGrant>("delegationGrants");

export const grants = (store: ProjectTx): Collection<DelegationGrant> => store.collection(DELEGATION_GRANTS);

const sameAddress = (a: string, b: string) => (a.startsWith("0x") ? a.toLowerCase() === b.toLowerCase() : a === b);

export function grantState(g: DelegationGrant, nowMs: number): "active" | "expired" | "revoked" {
  if (g.revokedAtMs !== undefined) return "revoked";
  return nowMs >= g.expiresAtMs ? "expired" : "active";
}

/** The user's grants, after forgetting those that ended long ago. */
export function grantsOf(ctx: Pick<HandlerContext, "store" | "clock">, userId: string): DelegationGrant[] {
  const now = ctx.clock.now();
  const mine = grants(ctx.store).filter((g) => g.userId === userId);
  for (const g of mine) {
    const endedAt = g.revokedAtMs ?? g.expiresAtMs;
    if (grantState(g, now) !== "active" && now - endedAt > GRANT_RETENTION_MS) grants(ctx.store).delete(g.id);
  }
  return grants(ctx.store)
    .filter((g) => g.userId === userId)
    .sort((a, b) => b.createdAtMs - a.createdAtMs);
}

export function activeGrant(ctx: Pick<HandlerContext, "store" | "clock">, userId: string): DelegationGrant | undefined {
  return grantsOf(ctx, userId).find((g) => grantState(g, ctx.clock.now()) === "active");
}

/** How webhook payloads name a grant. */
export const delegationIdOf = (g: DelegationGrant) => `delegation_${g.id}`;

/** 403 delegation_not_enabled when the project switched delegated signing off (`settings.delegationEnabled: false`). */
export function assertDelegationEnabled(ctx: Pick<HandlerContext, "project">): void {
  if (ctx.project.settings.delegationEnabled === false) {
    throw apiError("delegation_not_enabled", "Delegated signing is not enabled for this project (settings.delegationEnabled is false).");
  }
}

/** Throws the delegation error that applies, or returns the grant under which the developer may act for `address`. */
export function assertDelegated(ctx: HandlerContext, userId: string, address: string): DelegationGrant {
  assertDelegationEnabled(ctx);
  const all = grantsOf(ctx, userId);
  if (all.length === 0) throw apiError("delegation_not_found", `End user ${userId} has no delegation grant.`);
  const covering = all.filter((g) => g.address === undefined || sameAddress(g.address, address));
  if (covering.length === 0) throw apiError("delegation_not_authorized", `End user ${userId}'s delegation does not cover ${address}.`);
  // An active grant wins over an ended one made in the same millisecond (a frozen clock, a revoke and grant again).
  const latest = covering.find((g) => grantState(g, ctx.clock.now()) === "active") ?? covering[0]!;
  const state = grantState(latest, ctx.clock.now());
  if (state === "revoked") throw apiError("delegation_revoked", `End user ${userId} revoked the delegation for ${address}.`);
  if (state === "expired") {
    throw apiError("delegation_expired", `The delegation of end user ${userId} expired at ${new Date(latest.expiresAtMs).toISOString()}.`);
  }
  return latest;
}

/**
 * Who may use an end user's account: the end user with their own token, or the developer
 * under a delegation grant covering `address`. Returns who acted, as webhook payloads name them.
 */
export function authorizeAccountUse(req: RequestFacts, ctx: HandlerContext, userId: string, address: string): WalletActor {
  if (req.auth.kind === "endUser") {
    if (req.auth.endUserId !== userId) throw apiError("unauthorized", `The access token belongs to another end user, not ${userId}.`);
    return { user_id: userId };
  }
  return { user_id: userId, delegation_id: delegationIdOf(assertDelegated(ctx, userId, address)) };
}
