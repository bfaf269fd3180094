/**
 * The state file: what `--init FILE` seeds and `GET /_sandbox/export` writes
 * (schemas/state-file.schema.json is the same shape for editors). The fields
 * at the top level describe the default project; `projects` names others (or
 * the default one, with `default: true`). Two kinds of content live side by
 * side: what a person writes (named accounts with balances in decimal token
 * units, end users, policies…), applied through the platform's own
 * operations so every record is real, and `records`, the store's records as
 * an export holds them, written as they are so an export comes back exactly.
 */

/** network → token → decimal amount. */
export type Balances = Record<string, Record<string, string>>;

export interface ProjectContent {
  settings?: Record<string, unknown>;
  scenarios?: string[];
  evmAccounts?: Array<{ name: string; privateKey?: string; balances?: Balances }>;
  solanaAccounts?: Array<{ name: string; privateKey?: string; balances?: Balances }>;
  evmSmartAccounts?: Array<{ name: string; owner: string; balances?: Balances }>;
  endUsers?: Array<Record<string, unknown> & { delegation?: { scope?: "project" | "account"; account?: string; expiresAt: string } }>;
  policies?: Array<Record<string, unknown>>;
  webhookSubscriptions?: Array<Record<string, unknown>>;
  customers?: Array<Record<string, unknown>>;
  custodialAccounts?: Array<Record<string, unknown> & { balances?: Record<string, string> }>;
  fund?: Array<{ network: string; address: string; token?: string; amount: string }>;
  /** collection name → record id → record. */
  records?: Record<string, Record<string, unknown>>;
}

export interface ProjectEntry extends ProjectContent {
  id?: string;
  name?: string;
  default?: boolean;
  createdAt?: string;
  credentials?: { apiKeyId: string; apiKeySecret: string; walletSecret?: string };
  /** The project's other identity fields as the store holds them, whatever they are (an export's). */
  meta?: Record<string, unknown>;
}

export interface StateFile extends ProjectContent {
  $schema?: string;
  version?: 1;
  clock?: { now?: string };
  /** Dev accounts the node holds keys for (as `--dev-accounts N`); not an export's: it describes the start. */
  devAccounts?: number;
  projects?: ProjectEntry[];
}
