/**
 * The contract verdict for a coding assistant: which operations a run exercised with which statuses, and the
 * requests the sandbox refused because the caller broke the contract (GET /_sandbox/coverage, docs/ci.md). A
 * violation names its journal entry's correlationId, which `get_journal_entry` opens.
 */
import type { ToolContext, ToolDefinition } from "./mcpTools.js";

const PROJECT = { type: "string", description: "The project to judge (a projectId); every project together when left out" };

/** The coverage document of one project (X-Sandbox-Project), or of the whole sandbox. */
async function coverageOf(ctx: ToolContext, projectId: string | undefined) {
  const document = await ctx.client.adminOk("GET", "/coverage", projectId ? { project: projectId } : {});
  return projectId ? (document.projects.find((p: { projectId: string }) => p.projectId === projectId) ?? document.total) : document.total;
}

export const VERDICT_TOOLS: ToolDefinition[] = [
  {
    name: "get_coverage",
    description:
      "Contract coverage so far: per operation of the platform and embedded-wallet API whether it was called and its answers by status, the declared statuses never seen, JSON-RPC methods, scenarios fired, error-table rows reproduced, webhook deliveries",
    inputSchema: {
      type: "object",
      properties: { projectId: PROJECT, calledOnly: { type: "boolean", description: "Leave out the operations never called" } },
      additionalProperties: false,
    },
    outputSchema: { type: "object", required: ["summary", "operations", "violations"], additionalProperties: true },
    async run({ projectId, calledOnly }, ctx) {
      const coverage = await coverageOf(ctx, projectId as string | undefined);
      return calledOnly ? { ...coverage, operations: coverage.operations.filter((o: { called: boolean }) => o.called) } : coverage;
    },
  },
  {
    name: "list_violations",
    description:
      "Requests the sandbox refused because the caller broke the contract (invalid body, parameters or headers, unknown route, bad token, invalid JSON-RPC): each with its operation, status, first problems, count and a correlationId for get_journal_entry. Answers of state (not found, policy denial) or of scenarios are not violations",
    inputSchema: { type: "object", properties: { projectId: PROJECT }, additionalProperties: false },
    outputSchema: { type: "object", required: ["violations"], properties: { violations: { type: "array", items: { type: "object" } } } },
    async run({ projectId }, ctx) {
      return { violations: (await coverageOf(ctx, projectId as string | undefined)).violations };
    },
  },
];
