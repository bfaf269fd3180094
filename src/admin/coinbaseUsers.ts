/**
 * Simulated Coinbase users (POST/GET /_sandbox/coinbase-users…): what a
 * payer's app gets from Coinbase's login, which the platform's REST contract
 * does not cover — a user with balances, its OAuth access tokens, and the
 * MFA challenges it passes. Scoped to the bearer token's project, else the
 * default project; each call is one all-or-nothing store transaction.
 */
import { settleProject } from "../products/settle.js";
import {
  coinbaseBalancesView,
  createCoinbaseUser,
  findCoinbaseUser,
  issueAccessToken,
  passChallenge,
  type CoinbaseUserRecord,
} from "../products/payment-sessions/coinbaseUsers.js";
import { type AdminHandler, callerProject, locking } from "./types.js";

const userView = (u: CoinbaseUserRecord) => ({
  coinbaseUserId: u.coinbaseUserId,
  ...(u.email !== undefined ? { email: u.email } : {}),
  balances: coinbaseBalancesView(u).balances,
  createdAt: u.createdAt,
});

const tokenView = (t: { accessToken: string; scopes: string[]; expiresAt: string }) => ({
  accessToken: t.accessToken,
  scopes: t.scopes,
  accessTokenExpiresAt: t.expiresAt,
});

export const createSandboxCoinbaseUser: AdminHandler<"createSandboxCoinbaseUser"> = locking("project", async (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const body = call.body ?? {};
  const user = createCoinbaseUser(tx, ctx.random.coinbaseUsers, ctx.clock.iso(), body);
  const token = issueAccessToken(tx, ctx.random.coinbaseUsers, user, ctx.clock.now(), body.scopes);
  await tx.commit();
  return { status: 201, body: { ...userView(user), ...tokenView(token) } };
});

export const getSandboxCoinbaseUser: AdminHandler<"getSandboxCoinbaseUser"> = locking("project", async (call, ctx) => {
  // Actions the clock made due (a capture spending a hold, a refund) land first, as before a platform read.
  const tx = ctx.store.begin(callerProject(call, ctx));
  settleProject(tx, { clock: ctx.clock, random: ctx.random.settle });
  const user = findCoinbaseUser(tx, call.pathParams.coinbaseUserId);
  await tx.commit();
  return { status: 200, body: userView(user) };
});

export const issueSandboxCoinbaseAccessToken: AdminHandler<"issueSandboxCoinbaseAccessToken"> = locking("project", async (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const user = findCoinbaseUser(tx, call.pathParams.coinbaseUserId);
  const token = issueAccessToken(tx, ctx.random.coinbaseUsers, user, ctx.clock.now(), call.body?.scopes);
  await tx.commit();
  return { status: 201, body: { coinbaseUserId: user.coinbaseUserId, ...tokenView(token) } };
});

export const passSandboxCoinbaseAuthorizationChallenge: AdminHandler<"passSandboxCoinbaseAuthorizationChallenge"> = locking("project", async (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const user = findCoinbaseUser(tx, call.pathParams.coinbaseUserId);
  const challenge = passChallenge(tx, ctx.random.coinbaseUsers, user, ctx.clock.now());
  await tx.commit();
  return { status: 201, body: { coinbaseUserId: user.coinbaseUserId, ...challenge } };
});
