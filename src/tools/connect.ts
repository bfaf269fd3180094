/**
 * The sandbox a tool works on: one it starts in this process (with the usual
 * start options), or a running one it attaches to by URL. Either way the tool
 * then talks to it over HTTP (client.ts), so both kinds behave the same.
 */
import { isLoopbackHost } from "../admin/guard.js";
import { type Sandbox, type SandboxOptions, startSandbox } from "../index.js";
import { SandboxClient } from "./client.js";

/** The start options the tools accept, as `parseArgs` declares them (the same names as the main command's). */
export const START_OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  data: { type: "string" },
  seed: { type: "string" },
  scenario: { type: "string", multiple: true },
  init: { type: "string" },
  "export-on-exit": { type: "string" },
  journal: { type: "string" },
  mining: { type: "string" },
  "admin-token": { type: "string" },
} as const;

export interface StartValues {
  port?: string;
  host?: string;
  data?: string;
  seed?: string;
  scenario?: string[];
  init?: string;
  "export-on-exit"?: string;
  journal?: string;
  mining?: string;
  "admin-token"?: string;
}

/** A mistake in a tool's options: the message names what is accepted. */
export class UsageError extends Error {}

export interface Connected {
  client: SandboxClient;
  /** The sandbox when this process started it. */
  sandbox?: Sandbox;
  close(): Promise<void>;
}

/** Attaches to `url` (checking that a sandbox answers there) or starts one with `values`. */
export async function connect(url: string | undefined, values: StartValues, log: (line: string) => void): Promise<Connected> {
  if (url !== undefined) {
    for (const name of ["port", "host", "data", "seed", "scenario", "init", "export-on-exit", "journal", "mining"] as const) {
      if (values[name] !== undefined) throw new UsageError(`--${name} configures a sandbox this command starts; it cannot change the one at ${url}`);
    }
    let origin: string;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
      origin = parsed.origin;
    } catch {
      throw new UsageError(`the sandbox's URL must be http(s)://host:port, got '${url}'`);
    }
    const adminToken = values["admin-token"] ?? process.env.CDP_SANDBOX_ADMIN_TOKEN;
    if (!adminToken && !isLoopbackHost(new URL(origin).hostname)) {
      throw new UsageError(`${origin} is not on loopback: give its admin token with --admin-token or CDP_SANDBOX_ADMIN_TOKEN`);
    }
    const client = new SandboxClient(origin, adminToken);
    const health = await client.admin("GET", "/health").catch((error: Error & { cause?: Error }) => {
      throw new UsageError(`no sandbox answers at ${origin} (${error.cause?.message ?? error.message})`);
    });
    if (health.status !== 200) throw new UsageError(`the sandbox at ${origin} answered its health check with ${health.status}: ${JSON.stringify(health.body)}`);
    return { client, close: async () => undefined };
  }
  const port = Number(values.port ?? "0");
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got '${values.port}'`);
  const mining = values.mining ?? "auto";
  if (mining !== "auto" && mining !== "interval") throw new UsageError(`--mining must be auto or interval, got '${mining}'`);
  const options: SandboxOptions = {
    port,
    host: values.host ?? "127.0.0.1",
    data: values.data,
    seed: values.seed,
    scenario: values.scenario,
    init: values.init,
    exportOnExit: values["export-on-exit"],
    journal: values.journal,
    mining,
    adminToken: values["admin-token"],
    log,
  };
  const sandbox = await startSandbox(options);
  return { client: new SandboxClient(sandbox.url, sandbox.adminToken), sandbox, close: () => sandbox.close() };
}
