/**
 * The tools `cdp-sandbox mcp` offers a coding assistant: what it needs to test
 * an app end to end against the sandbox (credentials, projects, money, one-time
 * codes, end-user sign-in, the clock, scenarios, the journal, webhooks,
 * snapshots, export). Each is one or a few calls of the admin or platform API
 * over HTTP, so a tool does nothing a client could not do, and a call the
 * sandbox refuses changes nothing (each API call is all-or-nothing).
 */
import { ledgerToken } from "../chain/credit.js";
import { SandboxRefusedError, signInEndUser } from "../testing.js";
import { type Json, type ProjectKeys, RefusedError, type SandboxClient } from "./client.js";

/** What a tool runs with: the sandbox and the default project's credentials (read once). */
export interface ToolContext {
  client: SandboxClient;
  defaultKeys(): Promise<ProjectKeys>;
}

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, object>; required?: string[]; additionalProperties: false };
  outputSchema: { type: "object"; [key: string]: unknown };
  run(args: Record<string, Json>, ctx: ToolContext): Promise<Record<string, unknown>>;
}

const PROJECT = { type: "string", description: "The project to act on (a projectId); the default project when left out" };
const OBJECT = { type: "object", additionalProperties: true } as const;
const str = (description: string) => ({ type: "string", description });
const list = (key: string) => ({
  type: "object" as const,
  required: [key],
  properties: { [key]: { type: "array", items: OBJECT } },
  additionalProperties: true,
});

/** The keys of `projectId`'s project, or of the default one. */
const keysOf = (ctx: ToolContext, projectId?: string) => (projectId ? ctx.client.projectKeys(projectId) : ctx.defaultKeys());

/** `amount` in the token's standard unit ("12.5") as a whole number of its smallest unit. */
function smallestUnits(amount: string, decimals: number, token: string): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) throw new ToolInputError(`amount must be a positive decimal in ${token}'s standard unit, e.g. "12.5"; got '${amount}'`);
  const fraction = match[2] ?? "";
  if (fraction.length > decimals) throw new ToolInputError(`amount has ${fraction.length} decimals; ${token} has ${decimals}`);
  return (BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0")).toString();
}

/** A tool's argument the schema lets through but the tool cannot use: reported like a schema problem. */
export class ToolInputError extends Error {}

const query = (params: Record<string, unknown>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const text = q.toString();
  return text ? `?${text}` : "";
};

export const TOOLS: ToolDefinition[] = [
  {
    name: "get_status",
    description:
      "The sandbox's URL, health and clock, and a project's credentials (basePath, projectId, apiKeyId, apiKeySecret, walletSecret, clientApiKey) to configure the app under test",
    inputSchema: { type: "object", properties: { projectId: PROJECT }, additionalProperties: false },
    outputSchema: {
      type: "object",
      required: ["url", "basePath", "health", "clock", "credentials"],
      properties: { url: { type: "string" }, basePath: { type: "string" }, health: OBJECT, clock: OBJECT, credentials: OBJECT },
    },
    async run({ projectId }, ctx) {
      const [health, clock, keys] = await Promise.all([ctx.client.adminOk("GET", "/health"), ctx.client.adminOk("GET", "/clock"), keysOf(ctx, projectId)]);
      const project = await ctx.client.adminOk("GET", `/projects/${keys.projectId}`);
      const basePath = `${ctx.client.url}/platform`;
      return { url: ctx.client.url, basePath, health, clock, credentials: { basePath, ...keys, clientApiKey: project.clientApiKey } };
    },
  },
  {
    name: "create_project",
    description: "A new isolated project with fresh credentials (its own accounts, balances, end users and webhooks)",
    inputSchema: { type: "object", properties: { name: str("A name to recognise it by") }, additionalProperties: false },
    outputSchema: { type: "object", required: ["projectId", "apiKeyId", "apiKeySecret", "walletSecret", "basePath"], additionalProperties: true },
    run: ({ name }, ctx) => ctx.client.adminOk("POST", "/projects", { body: name === undefined ? {} : { name } }),
  },
  {
    name: "fund_address",
    description:
      "Credits an address on the sandbox's ledger, on any EVM network of the platform (base, base-sepolia, ethereum, ...) or solana / solana-devnet: the native token when `token` is left out, else a symbol (USDC) or contract/mint address. `amount` is in the token's standard unit (\"10.5\" USDC).",
    inputSchema: {
      type: "object",
      required: ["network", "address", "amount"],
      properties: {
        network: str("e.g. base-sepolia, base, ethereum, solana-devnet"),
        address: str("0x address, or base-58 Solana address"),
        token: str("USDC, EURC, ... or a contract/mint address; the native token when left out"),
        amount: { type: "string", pattern: "^[0-9]+(\\.[0-9]+)?$", description: 'In the token\'s standard unit, e.g. "10.5"' },
        projectId: PROJECT,
      },
      additionalProperties: false,
    },
    outputSchema: { type: "object", required: ["network", "address", "token", "decimals", "balance"], additionalProperties: true },
    async run({ network, address, token, amount, projectId }, ctx) {
      const known = ledgerToken(network, token);
      // An unknown network or token is the sandbox's to refuse, with its own message: sent as it is.
      const units = known ? smallestUnits(amount, known.decimals, known.symbol) : amount;
      return ctx.client.adminOk("POST", "/balances", { body: { network, address, amount: units, ...(token ? { token } : {}) }, project: projectId });
    },
  },
  {
    name: "read_inbox",
    description: "The one-time codes the sandbox 'sent' by email or SMS (embedded-wallet sign-in, SMS second factors), newest first",
    inputSchema: {
      type: "object",
      properties: { to: str("Only the messages sent to this email address or phone number"), projectId: PROJECT },
      additionalProperties: false,
    },
    outputSchema: list("messages"),
    run: ({ to, projectId }, ctx) => ctx.client.adminOk("GET", `/messages${query({ to })}`, { project: projectId }),
  },
  {
    name: "sign_in_end_user",
    description:
      "Signs an end user in by email without a browser, through the embedded-wallet API's own email sign-in (init, the inbox's code, verify; the user is created on first sign-in), and issues a Temporary Wallet Secret: the access token and wallet secret an end user's requests need",
    inputSchema: {
      type: "object",
      required: ["email"],
      properties: { email: { type: "string", format: "email" }, projectId: PROJECT },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      required: ["userId", "accessToken", "walletSecretId", "walletSecret", "endUser"],
      properties: {
        userId: { type: "string" },
        accessToken: { type: "string" },
        walletSecretId: { type: "string" },
        walletSecret: { type: "string" },
        endUser: OBJECT,
      },
      additionalProperties: true,
    },
    async run({ email, projectId }, ctx) {
      const project = projectId ?? (await ctx.defaultKeys()).projectId;
      const at = { url: ctx.client.url, projectId: project, adminToken: ctx.client.adminToken };
      const signedIn = await signInEndUser({ ...at, email }).catch((error: unknown) => {
        // The sandbox's refusal (an unknown project, a disabled email sign-in) answers the assistant with its error body.
        if (error instanceof SandboxRefusedError) refused(error.call, { status: error.status, body: error.body });
        throw error;
      });
      const userId = signedIn.endUser.userId;
      const token = await ctx.client.adminOk("POST", `/end-users/${encodeURIComponent(userId)}/token`, { project });
      return { ...token, endUser: signedIn.endUser, isNewEndUser: signedIn.isNewEndUser };
    },
  },
  {
    name: "set_clock",
    description:
      'Moves the sandbox clock (quotes expire, transfers settle, onramp orders advance, tokens of end users age): `advance` a duration ("15m", "1h30m", "90s"; negative moves back), `set` an ISO time, `freeze` true/false. Auth tokens are checked against the machine\'s clock and are not affected.',
    inputSchema: {
      type: "object",
      properties: { advance: { type: "string" }, set: { type: "string", format: "date-time" }, freeze: { type: "boolean" } },
      additionalProperties: false,
    },
    outputSchema: { type: "object", required: ["now"], additionalProperties: true },
    run: (args, ctx) => ctx.client.adminOk("POST", "/clock", { body: args }),
  },
  {
    name: "list_scenarios",
    description: "The shipped scenarios (injected errors, delays and faults) and those active, with every error case a rule may name",
    inputSchema: { type: "object", properties: { projectId: PROJECT }, additionalProperties: false },
    outputSchema: { type: "object", required: ["active", "available"], additionalProperties: true },
    run: ({ projectId }, ctx) => ctx.client.adminOk("GET", "/scenarios", { project: projectId }),
  },
  {
    name: "enable_scenario",
    description:
      "Switches a scenario on for a project: a shipped one by `name` (list_scenarios shows them), or an inline `scenario` ({name, rules}, the shape of a scenario file)",
    inputSchema: {
      type: "object",
      properties: { name: { type: "string" }, scenario: { type: "object", required: ["name", "rules"], additionalProperties: true }, projectId: PROJECT },
      additionalProperties: false,
    },
    outputSchema: { type: "object", required: ["activated"], additionalProperties: true },
    async run({ name, scenario, projectId }, ctx) {
      if ((name === undefined) === (scenario === undefined))
        throw new ToolInputError("give exactly one of name (a shipped scenario) and scenario (an inline one)");
      const keys = await keysOf(ctx, projectId);
      return ctx.client.adminOk("POST", "/scenarios", { body: name === undefined ? { scenario } : { name }, project: keys.projectId });
    },
  },
  {
    name: "clear_scenarios",
    description: "Switches off one scenario (`name`) or every scenario of a project",
    inputSchema: { type: "object", properties: { name: { type: "string" }, projectId: PROJECT }, additionalProperties: false },
    outputSchema: { type: "object", required: ["removed"], additionalProperties: true },
    async run({ name, projectId }, ctx) {
      const keys = await keysOf(ctx, projectId);
      return ctx.client.adminOk("DELETE", `/scenarios${query({ name })}`, { project: keys.projectId });
    },
  },
  {
    name: "query_journal",
    description:
      "The journal of requests the sandbox answered (platform API, admin API, JSON-RPC node, WebSockets), oldest first: filter by operationId, status (2xx, 4xx, 404, error), text `q` (an error type, a correlation id, a path), kind; `limit` keeps the newest",
    inputSchema: {
      type: "object",
      properties: {
        operationId: { type: "string" },
        status: { type: "string", description: "2xx, 4xx, 5xx, an exact status such as 404, or error" },
        q: { type: "string", description: "Text in the path, operationId, JSON-RPC method, correlationId, error type or validation problems" },
        kind: { type: "string", enum: ["platform", "admin", "node", "websocket"] },
        limit: { type: "integer", minimum: 1, maximum: 10000 },
        projectId: PROJECT,
      },
      additionalProperties: false,
    },
    outputSchema: list("requests"),
    async run({ projectId, ...filters }, ctx) {
      const keys = await keysOf(ctx, projectId);
      return ctx.client.adminOk("GET", `/requests${query(filters)}`, { project: keys.projectId });
    },
  },
  {
    name: "get_journal_entry",
    description: "One journal entry by its correlationId (the one in every error body): the request, the answer, both bodies, the scenarios that applied",
    inputSchema: {
      type: "object",
      required: ["correlationId"],
      properties: { correlationId: { type: "string" }, projectId: PROJECT },
      additionalProperties: false,
    },
    outputSchema: { type: "object", required: ["entry"], properties: { entry: OBJECT, request: OBJECT, response: OBJECT } },
    async run({ correlationId, projectId }, ctx) {
      const keys = await keysOf(ctx, projectId);
      return ctx.client.adminOk("GET", `/requests/${encodeURIComponent(correlationId)}`, { project: keys.projectId });
    },
  },
  {
    name: "list_webhook_deliveries",
    description: "A project's webhook deliveries, newest first, each with its payload, status and every attempt (what the receiver answered)",
    inputSchema: {
      type: "object",
      properties: { subscriptionId: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 1000 }, projectId: PROJECT },
      additionalProperties: false,
    },
    outputSchema: list("deliveries"),
    async run({ subscriptionId, limit, projectId }, ctx) {
      const keys = await keysOf(ctx, projectId);
      return ctx.client.adminOk("GET", `/webhooks/deliveries${query({ subscriptionId, limit })}`, { project: keys.projectId });
    },
  },
  {
    name: "replay_webhook_delivery",
    description: "Sends a delivery again now (same event and payload, freshly signed) and answers once the attempt is made",
    inputSchema: {
      type: "object",
      required: ["subscriptionId", "eventId"],
      properties: { subscriptionId: { type: "string" }, eventId: { type: "string" }, projectId: PROJECT },
      additionalProperties: false,
    },
    outputSchema: { type: "object", required: ["eventId"], additionalProperties: true },
    async run({ subscriptionId, eventId, projectId }, ctx) {
      const keys = await keysOf(ctx, projectId);
      const path = `/webhooks/${encodeURIComponent(subscriptionId)}/events/${encodeURIComponent(eventId)}/replay`;
      return ctx.client.adminOk("POST", path, { project: keys.projectId });
    },
  },
  {
    name: "take_snapshot",
    description: "Saves the state in memory (of one project with projectId, else of the whole sandbox) to restore later",
    inputSchema: { type: "object", properties: { projectId: { type: "string" } }, additionalProperties: false },
    outputSchema: { type: "object", required: ["snapshotId", "scope"], additionalProperties: true },
    run: ({ projectId }, ctx) => ctx.client.adminOk("POST", "/snapshots", { project: projectId }),
  },
  {
    name: "list_snapshots",
    description: "The snapshots taken (of one project with projectId, else the sandbox-wide ones)",
    inputSchema: { type: "object", properties: { projectId: { type: "string" } }, additionalProperties: false },
    outputSchema: list("snapshots"),
    run: ({ projectId }, ctx) => ctx.client.adminOk("GET", "/snapshots", { project: projectId }),
  },
  {
    name: "restore_snapshot",
    description: "Puts back the state saved in a snapshot",
    inputSchema: {
      type: "object",
      required: ["snapshotId"],
      properties: { snapshotId: { type: "string" }, projectId: { type: "string" } },
      additionalProperties: false,
    },
    outputSchema: { type: "object", additionalProperties: true },
    run: ({ snapshotId, projectId }, ctx) => ctx.client.adminOk("POST", `/snapshots/${encodeURIComponent(snapshotId)}/restore`, { project: projectId }),
  },
  {
    name: "export_state",
    description: "The state as a state file (the format --init reads): identities, credentials, settings and records. It holds secrets.",
    inputSchema: { type: "object", properties: { projectId: { type: "string" } }, additionalProperties: false },
    outputSchema: { type: "object", required: ["version", "projects"], additionalProperties: true },
    run: ({ projectId }, ctx) => ctx.client.adminOk("GET", "/export", { project: projectId }),
  },
];

/** A refusal met in the middle of a tool's steps, as the adminOk/platformOk helpers report one. */
function refused(call: string, answer: { status: number; body: unknown }): never {
  throw new RefusedError(call, answer);
}
