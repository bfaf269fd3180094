/**
 * `cdp-sandbox mcp`: a Model Context Protocol server over stdio, so a coding
 * assistant can drive the sandbox the way a developer's test would: it starts
 * a sandbox in this process (the usual start options) or attaches to a running
 * one (`--attach URL`), then offers the tools of mcpTools.ts and, as resources,
 * the ready line's credentials and the documentation pages.
 *
 * Errors: an unknown tool or an argument its schema refuses is a protocol
 * error (invalid params) naming what is accepted; a call the sandbox refuses
 * is a tool result with `isError` and the sandbox's error body (errorType,
 * errorMessage, correlationId, errorLink), so the assistant sees why. Nothing
 * a tool call does can end the server.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Ajv, type ValidateFunction } from "ajv";
import { packageRoot } from "../paths.js";
import { type ProjectKeys, RefusedError } from "./client.js";
import { connect, type Connected, START_OPTIONS, UsageError } from "./connect.js";
import { type ToolContext, ToolInputError, TOOLS as BASE_TOOLS } from "./mcpTools.js";
import { VERDICT_TOOLS } from "./mcpVerdictTools.js";

const TOOLS = [...BASE_TOOLS, ...VERDICT_TOOLS];

const OPTIONS = { ...START_OPTIONS, attach: { type: "string" }, help: { type: "boolean", short: "h" } } as const;

const USAGE =
  "usage: cdp-sandbox mcp [--port 0] [--seed S] [--data FILE] [--init FILE] [--scenario NAME ...] [--journal FILE]\n" +
  "                       [--attach URL [--admin-token T]]\n" +
  "  An MCP server over stdio (docs/mcp.md): starts a sandbox in-process, or attaches to the one at URL.\n";

const CREDENTIALS_URI = "cdp-sandbox://credentials";
const DOCS_URI = "cdp-sandbox://docs/";
const docsDir = join(packageRoot, "docs");

/** Runs the server until stdin closes or a signal comes; resolves with the exit code. */
export async function runMcp(argv: string[]): Promise<number> {
  const say = (message: string) => process.stderr.write(`cdp-sandbox mcp: ${message}\n`);
  let connected: Connected;
  try {
    let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>["values"];
    try {
      ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
    } catch (error) {
      throw new UsageError(`${(error as Error).message} (cdp-sandbox mcp --help lists the options)`);
    }
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    // stdout carries the protocol: everything the sandbox says goes to stderr.
    connected = await connect(values.attach, values, (line) => process.stderr.write(`cdp-sandbox: ${line}\n`));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(error.message);
    return 2;
  }
  const server = createMcpServer(connected);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  say(`serving ${TOOLS.length} tools for the sandbox at ${connected.client.url}`);
  const stop = () => void server.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  process.stdin.once("end", stop);
  await closed;
  await connected.close();
  return 0;
}

function createMcpServer(connected: Connected): Server {
  const { client } = connected;
  let keys: Promise<ProjectKeys> | undefined;
  const ctx: ToolContext = {
    client,
    defaultKeys: () => {
      keys ??= client.projectKeys();
      keys.catch(() => {
        keys = undefined; // a failed read is tried again on the next call
      });
      return keys;
    },
  };
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const validators = new Map<string, ValidateFunction>(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema)]));
  const server = new Server({ name: "cdp-sandbox", version: packageVersion() }, { capabilities: { tools: {}, resources: {} } });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map(({ name, description, inputSchema, outputSchema }) => ({ name, description, inputSchema, outputSchema })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async ({ params }): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool '${params.name}'. The tools are: ${TOOLS.map((t) => t.name).join(", ")}.`);
    const args = params.arguments ?? {};
    const validate = validators.get(tool.name)!;
    if (!validate(args))
      throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${describe(validate)}. ${accepted(tool.inputSchema)}`);
    try {
      const result = await tool.run(args, ctx);
      return { content: [{ type: "text", text: JSON.stringify(result, null, 2) }], structuredContent: result };
    } catch (error) {
      if (error instanceof ToolInputError)
        throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${error.message}. ${accepted(tool.inputSchema)}`);
      if (error instanceof RefusedError) {
        const refusal = { status: error.answer.status, error: error.answer.body };
        return {
          isError: true,
          content: [{ type: "text", text: `The sandbox refused ${error.call} (${error.answer.status}):\n${JSON.stringify(refusal, null, 2)}` }],
        };
      }
      return { isError: true, content: [{ type: "text", text: `${tool.name} failed: ${(error as Error).message}` }] };
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: CREDENTIALS_URI,
        name: "credentials",
        description: "The ready line's fields: the base path and the default project's credentials, the dashboard, the admin token if any",
        mimeType: "application/json",
      },
      ...docPages().map((page) => ({ uri: `${DOCS_URI}${page}`, name: `docs/${page}.md`, mimeType: "text/markdown" })),
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
    if (params.uri === CREDENTIALS_URI) {
      const k = await ctx.defaultKeys();
      const project = await client.adminOk("GET", `/projects/${k.projectId}`);
      const ready = {
        basePath: `${client.url}/platform`,
        ...k,
        clientApiKey: project.clientApiKey,
        dashboard: `${client.url}/_sandbox/ui/`,
        ...(client.adminToken ? { adminToken: client.adminToken } : {}),
      };
      return { contents: [{ uri: params.uri, mimeType: "application/json", text: JSON.stringify(ready, null, 2) }] };
    }
    const page = params.uri.startsWith(DOCS_URI) ? params.uri.slice(DOCS_URI.length) : undefined;
    if (page === undefined || !docPages().includes(page)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown resource '${params.uri}'. The resources are ${CREDENTIALS_URI} and ${DOCS_URI}<page> for ${docPages().join(", ")}.`,
      );
    }
    return { contents: [{ uri: params.uri, mimeType: "text/markdown", text: readFileSync(join(docsDir, `${page}.md`), "utf8") }] };
  });
  return server;
}

/** The documentation pages shipped with the package, by name (mcp for docs/mcp.md). */
function docPages(): string[] {
  try {
    return readdirSync(docsDir)
      .filter((f) => f.endsWith(".md"))
      .map((f) => f.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }).version;
}

function describe(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((e) => {
      const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "arguments";
      if (e.keyword === "additionalProperties") return `${where} has an unknown argument '${(e.params as { additionalProperty: string }).additionalProperty}'`;
      return `${where} ${e.message}`;
    })
    .join("; ");
}

function accepted(schema: { properties: Record<string, object>; required?: string[] }): string {
  const names = Object.keys(schema.properties).map((n) => (schema.required?.includes(n) ? `${n} (required)` : n));
  return names.length ? `Accepted arguments: ${names.join(", ")}.` : "It takes no arguments.";
}
