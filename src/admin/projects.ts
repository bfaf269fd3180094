/** The sandbox itself: liveness, projects and their settings, and the key imported private keys are encrypted with. */
import { customAuthProblem } from "../wallet/identity/settings.js";
import { apiError } from "../errors/catalogue.js";
import type { ProjectMeta } from "../store/state.js";
import type { AdminCall, AdminContext, AdminHandler } from "./types.js";

export const sandboxHealth: AdminHandler<"sandboxHealth"> = (_call, ctx) => {
  const journalFile = ctx.journal.sinkStatus();
  return {
    status: 200,
    body: {
      status: "ok",
      uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
      projects: ctx.store.projects().length,
      ...(journalFile ? { journalFile } : {}),
    },
  };
};

export const createSandboxProject: AdminHandler<"createSandboxProject"> = async ({ body }, ctx) => {
  const { name, apiKeyId, apiKeySecret, walletSecret } = body;
  let credentials: Awaited<ReturnType<typeof ctx.projects.create>>;
  try {
    credentials = await ctx.projects.create(name, { apiKeyId, apiKeySecret, walletSecret });
  } catch (error) {
    throw apiError("invalid_request", `The supplied credentials cannot be used: ${(error as Error).message}.`);
  }
  return { status: 201, body: { basePath: ctx.basePath(), ...credentials } };
};

/** A project the caller may see: any without a bearer token, only its own with one. */
function visibleProject(
  call: AdminCall<"getSandboxProject" | "getSandboxProjectCredentials" | "updateSandboxProjectSettings" | "rotateSandboxClientApiKey">,
  ctx: AdminContext,
): ProjectMeta {
  const id = call.pathParams.projectId;
  const project = call.projectId && call.projectId !== id ? undefined : ctx.store.project(id);
  if (!project) throw apiError("not_found", `Project ${id} was not found.`);
  return project;
}

const projectView = (p: ProjectMeta) => ({
  projectId: p.id,
  name: p.name,
  createdAt: p.createdAt,
  settings: p.settings,
  ...(p.clientApiKey ? { clientApiKey: p.clientApiKey } : {}),
});

/** Every project, oldest first; with a bearer token or X-Sandbox-Project, only that one. */
export const listSandboxProjects: AdminHandler<"listSandboxProjects"> = ({ projectId }, ctx) => {
  const defaultId = ctx.projects.defaultProjectId();
  const all = ctx.store
    .projects()
    .filter((p) => projectId === undefined || p.id === projectId)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return { status: 200, body: { projects: all.map((p) => ({ ...projectView(p), isDefault: p.id === defaultId })) } };
};

export const getSandboxProject: AdminHandler<"getSandboxProject"> = (call, ctx) => ({ status: 200, body: projectView(visibleProject(call, ctx)) });

/** The credentials the project's clients sign with: its first verified key whose secret the sandbox holds, and its wallet secret. */
export const getSandboxProjectCredentials: AdminHandler<"getSandboxProjectCredentials"> = (call, ctx) => {
  const project = visibleProject(call, ctx);
  const key = project.apiKeys.find((k) => k.verified && k.apiKeySecret);
  if (!key)
    throw apiError("not_found", `Project ${project.id} has no API key whose secret the sandbox holds (a registered key's secret stays with its owner).`);
  const walletSecret = project.walletSecret ? { walletSecret: project.walletSecret } : {};
  return { status: 200, body: { projectId: project.id, apiKeyId: key.apiKeyId, apiKeySecret: key.apiKeySecret!, ...walletSecret } };
};

export const updateSandboxProjectSettings: AdminHandler<"updateSandboxProjectSettings"> = async (call, ctx) => {
  const project = visibleProject(call, ctx);
  const problem = customAuthProblem(call.body.settings);
  if (problem) throw apiError("invalid_request", problem);
  const updated = await ctx.projects.updateSettings(project.id, call.body.settings);
  return { status: 200, body: projectView(updated!) };
};

/** A new client API key; the old one's node URL answers 401 from now on. */
export const rotateSandboxClientApiKey: AdminHandler<"rotateSandboxClientApiKey"> = async (call, ctx) => {
  const project = visibleProject(call, ctx);
  const clientApiKey = await ctx.projects.rotateClientKey(project.id);
  return { status: 200, body: { projectId: project.id, clientApiKey: clientApiKey! } };
};

/** The RSA key to encrypt imported private keys with: pass it to the client as `encryptionPublicKey`. */
export const getSandboxImportKey: AdminHandler<"getSandboxImportKey"> = (_call, ctx) => ({
  status: 200,
  body: { publicKeyPem: ctx.keys.importKey.publicKeyPem, algorithm: "RSA-OAEP-SHA256" },
});
