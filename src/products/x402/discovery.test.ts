/**
 * The Bazaar: settlements carrying the bazaar extension catalogue their
 * resource (the settle answer says so in EXTENSION-RESPONSES); list,
 * merchant, search and the curated bundles answer from that index, without
 * credentials (the default project's index) or with a key (that project's).
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";
import { signAuthorization, v1Body, v1Requirements, v2Body, v2Requirements } from "#test/helpers/x402.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "x402-discovery", validateResponses: true });
});
afterAll(() => sandbox.close());

const MERCHANT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const OTHER_MERCHANT = "0x742d35Cc6634C0532925a3b844Bc454e4438f44e";
const anonymous = (path: string) => call(sandbox, "GET", `/platform/v2/x402/discovery${path}`, { anonymous: true });

const bazaar = (description: string) => ({
  info: { input: { type: "http", method: "GET", queryParams: { harbour: "Brest" } }, output: { type: "json", example: { tides: [] } } },
  schema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://tides.example.org/schemas/discovery.json", // servers may name their schema: every payment repeats it
    type: "object",
    properties: {
      input: { type: "object", properties: { type: { const: "http" }, method: { enum: ["GET"] } }, required: ["type", "method"] },
      output: { type: "object" },
    },
    required: ["input"],
    description,
  },
});

/** Settles a payment for `url` that carries discovery data; returns the settle answer. */
async function paidCall(url: string, o: { payTo?: string; amount?: string; extensions?: unknown; tags?: string[]; serviceName?: string } = {}) {
  const payer = privateKeyToAccount(generatePrivateKey());
  const amount = o.amount ?? "5000";
  const payTo = o.payTo ?? MERCHANT;
  await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount });
  const requirements = v2Requirements(payTo, amount);
  const payload = await signAuthorization(payer, { to: payTo as `0x${string}`, value: amount, nowSeconds: Math.floor(sandbox.clock.now() / 1000) });
  const resource = { url, description: `Paid data at ${url}`, mimeType: "application/json", serviceName: o.serviceName, tags: o.tags };
  return call(sandbox, "POST", "/platform/v2/x402/settle", {
    body: v2Body(requirements, payload, { resource, extensions: { bazaar: o.extensions ?? bazaar("tides") } }),
  });
}

const extensionResponse = (res: { headers: Record<string, string> }) => JSON.parse(Buffer.from(res.headers["extension-responses"]!, "base64").toString("utf8"));

describe("cataloguing on settlement", () => {
  it("lists a settled resource with its payment options, service metadata and 30-day usage", async () => {
    const first = await paidCall("https://tides.example.org/v1/forecast", { tags: ["weather", "marine", "weather"], serviceName: "Tide Tables" });
    expect(first.status).toBe(200);
    expect(extensionResponse(first)).toEqual({ bazaar: { status: "success" } });
    await paidCall("https://tides.example.org/v1/forecast");
    const res = await anonymous("/resources");
    expect(res.status).toBe(200);
    const item = (res.body.items as Array<Record<string, any>>).find((i) => i.resource === "https://tides.example.org/v1/forecast")!;
    expect(item).toMatchObject({ type: "http", x402Version: 2, serviceName: "Tide Tables", tags: ["weather", "marine"], curated: false });
    expect(item.accepts).toEqual([v2Requirements(MERCHANT, "5000")]);
    expect(item.quality).toMatchObject({ l30DaysTotalCalls: 2, l30DaysUniquePayers: 2 });
    expect(item.extensions.bazaar.info.input.method).toBe("GET");
  });

  it("refuses to catalogue discovery info that fails its own schema, yet settles the payment", async () => {
    const broken = bazaar("x");
    (broken.info.input as Record<string, unknown>).method = "PUT";
    const res = await paidCall("https://broken.example.org/api", { extensions: broken });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(extensionResponse(res).bazaar).toMatchObject({ status: "rejected", rejectedReason: expect.stringContaining("schema") });
    const list = await anonymous("/resources?limit=100");
    expect((list.body.items as Array<{ resource: string }>).map((i) => i.resource)).not.toContain("https://broken.example.org/api");
  });

  it("catalogues a version 1 payment whose outputSchema is discoverable", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount: "7000" });
    const requirements = v1Requirements(MERCHANT, "7000", {
      resource: "https://v1.example.org/quote",
      outputSchema: { input: { type: "http", method: "GET", discoverable: true } },
    });
    const payload = await signAuthorization(payer, { to: MERCHANT, value: "7000", nowSeconds: Math.floor(sandbox.clock.now() / 1000) });
    expect((await call(sandbox, "POST", "/platform/v2/x402/settle", { body: v1Body(requirements, payload) })).status).toBe(200);
    const item = ((await anonymous("/resources")).body.items as Array<Record<string, unknown>>).find((i) => i.resource === "https://v1.example.org/quote");
    expect(item).toMatchObject({ x402Version: 1, accepts: [requirements] });
  });

  it("keeps each project's index apart: a key reads its own project's Bazaar", async () => {
    const other = await sandbox.createProject();
    const res = await call(sandbox, "GET", "/platform/v2/x402/discovery/resources", { credentials: other });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
  });
});

describe("listing, merchants and search", () => {
  beforeAll(async () => {
    await paidCall("https://swell.example.org/v2/swell", { payTo: OTHER_MERCHANT, amount: "20000", tags: ["marine", "surf"] });
    await paidCall("https://prices.example.org/usdc", { amount: "1000", tags: ["defi"] });
  });

  it("pages with limit and offset and reports the total", async () => {
    const all = await anonymous("/resources");
    const total = all.body.pagination.total as number;
    expect(total).toBeGreaterThanOrEqual(4);
    const page = await anonymous("/resources?limit=2&offset=1");
    expect(page.body.pagination).toEqual({ limit: 2, offset: 1, total });
    expect(page.body.items).toEqual(all.body.items.slice(1, 3));
    expect((await anonymous("/resources?type=mcp")).body.items).toEqual([]);
    expect((await anonymous("/resources?offset=-1")).status).toBe(400);
  });

  it("lists a merchant's resources by payTo, in any address casing", async () => {
    const res = await anonymous(`/merchant?payTo=${OTHER_MERCHANT.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.resources.map((r: { resource: string }) => r.resource)).toEqual(["https://swell.example.org/v2/swell"]);
    expect(res.body.pagination).toEqual({ limit: 20, offset: 0, total: 1 });
  });

  it("searches by words and by payment and catalogue filters", async () => {
    const search = async (q: string) => ((await anonymous(`/search?${q}`)).body.resources as Array<{ resource: string }>).map((r) => r.resource);
    expect(await search("query=swell")).toEqual(["https://swell.example.org/v2/swell"]);
    expect(await search("query=tides+harbour&network=base-sepolia")).toContain("https://tides.example.org/v1/forecast");
    expect(await search("maxUsdPrice=0.002")).toEqual(["https://prices.example.org/usdc"]);
    expect(await search("tags=surf&tags=defi")).toEqual(expect.arrayContaining(["https://swell.example.org/v2/swell", "https://prices.example.org/usdc"]));
    expect(await search("urlSubstring=prices")).toEqual(["https://prices.example.org/usdc"]);
    expect(await search(`payTo=${OTHER_MERCHANT}`)).toEqual(["https://swell.example.org/v2/swell"]);
    expect(await search("network=solana-devnet")).toEqual([]);
    expect(await search("extensions=bazaar&limit=1")).toHaveLength(1);
    const res = await anonymous("/search?query=tides");
    expect(res.body).toMatchObject({ x402Version: 2, partialResults: false, searchMethod: "text" });
    expect((await anonymous("/search?maxUsdPrice=cheap")).status).toBe(400);
    expect((await anonymous("/search?limit=21")).status).toBe(400);
  });
});

describe("curated bundles", () => {
  const putBundle = (slug: string, body: unknown) => call(sandbox, "PUT", `/_sandbox/x402/bundles/${slug}`, { body, anonymous: true });

  it("lists bundles defined through /_sandbox and returns a bundle's resources in bundle order, marked curated", async () => {
    await paidCall("https://tides.example.org/v1/forecast");
    const put = await putBundle("coastal-weather", {
      name: "Coastal Weather",
      description: "Tides and swell.",
      resources: ["https://swell.example.org/v2/swell", "https://tides.example.org/v1/forecast", "https://unknown.example.org"],
    });
    expect(put.status).toBe(200);
    expect((await anonymous("/bundles")).body).toEqual({ bundles: [{ slug: "coastal-weather", name: "Coastal Weather", description: "Tides and swell." }] });
    const bundle = await anonymous("/bundles/coastal-weather");
    expect(bundle.status).toBe(200);
    expect(bundle.body.resources.map((r: { resource: string }) => r.resource)).toEqual([
      "https://swell.example.org/v2/swell",
      "https://tides.example.org/v1/forecast",
    ]);
    expect(bundle.body.resources[0]).toMatchObject({ curated: true, bundleSlugs: ["coastal-weather"] });
    const curated = await anonymous("/search?curatedOnly=true");
    expect(curated.body.resources.map((r: { resource: string }) => r.resource).sort()).toEqual([
      "https://swell.example.org/v2/swell",
      "https://tides.example.org/v1/forecast",
    ]);
    expect((await anonymous("/search?bundleSlugs=coastal-weather&query=swell")).body.resources).toHaveLength(1);
  });

  it("answers 404 for an unknown bundle and 400 for a malformed slug or bundle", async () => {
    expect((await anonymous("/bundles/no-such-bundle")).status).toBe(404);
    expect((await anonymous("/bundles/Not_A_Slug")).status).toBe(400);
    expect((await putBundle("ok-slug", { name: "", resources: [] })).status).toBe(400);
    expect((await putBundle("Bad_Slug", { name: "x", resources: [] })).status).toBe(400);
    const deleted = await call(sandbox, "DELETE", "/_sandbox/x402/bundles/coastal-weather", { anonymous: true });
    expect(deleted.status).toBe(200);
    expect((await anonymous("/bundles/coastal-weather")).status).toBe(404);
  });
});

describe("the Bazaar MCP server", () => {
  const rpc = (body: unknown) => call(sandbox, "POST", "/platform/v2/x402/discovery/mcp", { body, anonymous: true });

  it("initializes, lists its two tools and searches the same index", async () => {
    const init = await rpc({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(init.body).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} } } });
    expect((await rpc({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(200);
    const tools = await rpc({ jsonrpc: "2.0", id: "t", method: "tools/list", params: {} });
    expect(tools.body.result.tools.map((t: { name: string }) => t.name)).toEqual(["search_resources", "proxy_tool_call"]);
    const found = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search_resources", arguments: { query: "swell" } } });
    expect(found.body.result.structuredContent.resources.map((r: { resource: string }) => r.resource)).toEqual(["https://swell.example.org/v2/swell"]);
    expect(JSON.parse(found.body.result.content[0].text).resources).toHaveLength(1);
  });

  it("answers JSON-RPC errors for unknown methods and tools, and a tool error for a tool no resource offers", async () => {
    expect((await rpc({ jsonrpc: "2.0", id: 3, method: "resources/list" })).body.error).toEqual({ code: -32601, message: "Method not found" });
    expect((await rpc({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "nope" } })).body.error.code).toBe(-32602);
    const proxied = await rpc({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "proxy_tool_call", arguments: { toolName: "financial_analysis" } },
    });
    expect(proxied.body.result).toMatchObject({ isError: true });
    expect((await rpc({ jsonrpc: "1.0", id: 6, method: "ping" })).status).toBe(400);
  });
});
