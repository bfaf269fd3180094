/**
 * The Bazaar's MCP server (JSON-RPC 2.0 over POST): initialize, ping,
 * tools/list and tools/call with its two tools — `search_resources` (the
 * search operation over the same index) and `proxy_tool_call` (forwards a
 * tools/call to the MCP server of a catalogued tool, with the caller's
 * `_meta`, where an x402 payment travels). JSON-RPC errors are answered
 * with HTTP 200 and an `error` member, as JSON-RPC over HTTP does.
 */
import type { Handler, HandlerContext, HandlerRequest, HandlerResult } from "../../wallet/types.js";
import { activeResources } from "./bazaar.js";
import { searchResources } from "./discovery.js";
import { isLoopbackUrl, probe } from "./probe.js";

type Obj = Record<string, unknown>;
const PROTOCOL_VERSION = "2025-06-18";

const TOOLS = [
  {
    name: "search_resources",
    description: "Search the Bazaar for paid x402 resources by free text; returns their descriptions, payment options and input/output schemas.",
    inputSchema: { type: "object", properties: { query: { type: "string", description: "Free-text search terms." } } },
  },
  {
    name: "proxy_tool_call",
    description: "Call a catalogued MCP tool by name; other arguments are forwarded to it, and an x402 payment travels in _meta.",
    inputSchema: {
      type: "object",
      properties: { toolName: { type: "string", description: "The tool's name, as search_resources returns it." } },
      required: ["toolName"],
      additionalProperties: true,
    },
  },
];

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const text = (value: unknown, isError = false) => ({
  content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }],
  ...(isError ? { isError: true } : {}),
});

async function proxyToolCall(ctx: HandlerContext, args: Obj, meta: unknown): Promise<Obj> {
  const { toolName, ...forwarded } = args;
  if (typeof toolName !== "string" || toolName === "")
    throw new RpcError(-32602, "proxy_tool_call needs arguments.toolName, a tool name search_resources returned.");
  const target = activeResources(ctx).find((r) => r.type === "mcp" && r.tool === toolName);
  if (!target) return text(`No active Bazaar resource offers the tool ${toolName}.`, true);
  const url = new URL(target.resource);
  if (!isLoopbackUrl(url)) return text(`The sandbox runs offline and cannot reach ${url.host}; only tools served on loopback hosts can be called.`, true);
  const call = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: toolName, arguments: forwarded, ...(meta === undefined ? {} : { _meta: meta }) },
  };
  try {
    const answer = await probe(url, "POST", JSON.stringify(call));
    // Streamable HTTP servers may answer with one server-sent event; its data line is the JSON-RPC reply.
    const json = answer.headers["content-type"]?.includes("text/event-stream")
      ? (answer.body
          .split("\n")
          .find((l) => l.startsWith("data:"))
          ?.slice(5) ?? "")
      : answer.body;
    const reply = JSON.parse(json) as { result?: Obj; error?: { code: number; message: string; data?: Obj } };
    if (reply.error) throw new RpcError(reply.error.code, reply.error.message);
    return reply.result ?? {};
  } catch (error) {
    if (error instanceof RpcError) throw error;
    return text(`The tool's server at ${url.host} did not answer a tools/call: ${(error as Error).message}`, true);
  }
}

async function dispatch(ctx: HandlerContext, method: string, params: Obj): Promise<Obj> {
  switch (method) {
    case "initialize":
      return {
        protocolVersion: typeof params.protocolVersion === "string" ? params.protocolVersion : PROTOCOL_VERSION,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "cdp-sandbox-bazaar", version: "1.0.0" },
      };
    case "ping":
      return {};
    case "tools/list":
      return { tools: TOOLS };
    case "tools/call": {
      const args = (params.arguments && typeof params.arguments === "object" ? params.arguments : {}) as Obj;
      if (params.name === "search_resources") {
        if (args.query !== undefined && typeof args.query !== "string") throw new RpcError(-32602, "search_resources takes query as a string.");
        const resources = searchResources(ctx, args.query === undefined ? {} : { query: args.query });
        return { ...text({ resources }), structuredContent: { resources } };
      }
      if (params.name === "proxy_tool_call") return proxyToolCall(ctx, args, params._meta);
      throw new RpcError(-32602, `Unknown tool ${String(params.name)}; tools/list names search_resources and proxy_tool_call.`);
    }
  }
  throw new RpcError(-32601, "Method not found");
}

export const postX402DiscoveryMcp: Handler<"postX402DiscoveryMcp"> = Object.assign(
  async (req: HandlerRequest<"postX402DiscoveryMcp">, ctx: HandlerContext): Promise<HandlerResult<"postX402DiscoveryMcp">> => {
    const { id, method, params } = req.body;
    // A notification (no id) gets no result, only the acknowledgement.
    if (id === undefined) return { status: 200, body: { jsonrpc: "2.0", id: null } };
    try {
      return { status: 200, body: { jsonrpc: "2.0", id, result: await dispatch(ctx, method, params ?? {}) } };
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      return { status: 200, body: { jsonrpc: "2.0", id, error: { code: error.code, message: error.message } } };
    }
  },
  { outbound: true },
);
