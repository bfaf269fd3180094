/**
 * End users of a project, with the accounts the platform keeps for them: an
 * EVM account (always), optional smart accounts (owned by an EVM account of
 * the user) and Solana accounts. Their keys are the sandbox's, never the
 * developer's; userIds are unique per project.
 */
import type { Hex } from "viem";
import type { ResponseBody, Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { Collection, ProjectTx } from "../../store/store.js";

/** How an end user signs in: email, SMS, the developer's JWT, an OAuth provider or Sign-In with Ethereum. */
export type AuthenticationMethod = Schema<"AuthenticationMethod">;

export interface EndUserRecord {
  userId: string;
  authenticationMethods: AuthenticationMethod[];
  evmAccounts: Array<{ address: `0x${string}`; privateKey: Hex; createdAt: string }>;
  evmSmartAccounts: Array<{ address: `0x${string}`; ownerAddresses: string[]; createdAt: string }>;
  solanaAccounts: Array<{ address: string; seedHex: string; createdAt: string }>;
  createdAt: string;
  /** Set by embedded-wallet sign-in (wallet/identity). */
  lastAuthenticatedAt?: string;
}

/**
 * Found by each identity they sign in with (two end users never share one), by each of their accounts' addresses
 * (EVM addresses lowercased), and listed by creation time: none of these lookups reads every end user.
 */
const END_USERS = declareCollection<EndUserRecord>("endUsers", {
  indexes: {
    identity: (u) => u.authenticationMethods.map(identityOf),
    smartAccount: (u) => u.evmSmartAccounts.map((a) => a.address.toLowerCase()),
    account: (u) => [
      ...u.evmAccounts.map((a) => a.address.toLowerCase()),
      ...u.evmSmartAccounts.map((a) => a.address.toLowerCase()),
      ...u.solanaAccounts.map((a) => a.address),
    ],
  },
  order: (a, b) => a.createdAt.localeCompare(b.createdAt),
});

export const endUsers = (store: ProjectTx): Collection<EndUserRecord> => store.collection(END_USERS);

type EndUserView = ResponseBody<"getEndUser", 200>;

export function endUserView(u: EndUserRecord): EndUserView {
  return {
    userId: u.userId,
    authenticationMethods: u.authenticationMethods,
    evmAccounts: u.evmAccounts.map((a) => a.address),
    evmAccountObjects: u.evmAccounts.map((a) => ({ address: a.address, createdAt: a.createdAt })),
    evmSmartAccounts: u.evmSmartAccounts.map((a) => a.address),
    evmSmartAccountObjects: u.evmSmartAccounts.map((a) => ({ address: a.address, ownerAddresses: a.ownerAddresses, createdAt: a.createdAt })),
    solanaAccounts: u.solanaAccounts.map((a) => a.address),
    solanaAccountObjects: u.solanaAccounts.map((a) => ({ address: a.address, createdAt: a.createdAt })),
    createdAt: u.createdAt,
    ...(u.lastAuthenticatedAt ? { lastAuthenticatedAt: u.lastAuthenticatedAt } : {}),
  };
}

export function findEndUser(store: ProjectTx, userId: string): EndUserRecord {
  const user = endUsers(store).get(userId);
  if (!user) throw apiError("not_found", `End user ${userId} was not found in this project.`);
  return user;
}

/** The identity an authentication method claims, e.g. "email:ada@example.com"; two end users cannot share one. */
export function identityOf(m: AuthenticationMethod): string {
  switch (m.type) {
    case "email":
      return `email:${m.email.toLowerCase()}`;
    case "sms":
      return `sms:${m.phoneNumber}`;
    case "jwt":
      return `jwt:${m.kid}:${m.sub}`;
    case "siwe":
      return `siwe:${m.address.toLowerCase()}`;
    default:
      // OAuth providers name the user by `sub`; Telegram has none and names them by username.
      return `${m.type}:${("sub" in m ? m.sub : undefined) ?? m.username ?? JSON.stringify(m)}`;
  }
}
