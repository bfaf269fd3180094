/**
 * A project's request-signing keys (auth/requestSignature.ts): registered and removed here and from the
 * dashboard. With a bearer token or X-Sandbox-Project, only that project's keys are reachable.
 */
import { readSigningKey } from "../auth/requestSignature.js";
import { apiError } from "../errors/catalogue.js";
import type { ProjectMeta, SigningKeyRecord } from "../store/state.js";
import type { AdminCall, AdminContext, AdminHandler } from "./types.js";

type SigningKeyCall = AdminCall<"listSandboxSigningKeys" | "createSandboxSigningKey" | "deleteSandboxSigningKey">;

function visibleProject(call: SigningKeyCall, ctx: AdminContext): ProjectMeta {
  const id = call.pathParams.projectId;
  const project = call.projectId && call.projectId !== id ? undefined : ctx.store.project(id);
  if (!project) throw apiError("not_found", `Project ${id} was not found.`);
  return project;
}

const keyView = (k: SigningKeyRecord) => ({ kid: k.kid, publicKey: k.publicKeyPem, modulusLength: k.modulusLength, createdAt: k.createdAt });

export const listSandboxSigningKeys: AdminHandler<"listSandboxSigningKeys"> = (call, ctx) => {
  const project = visibleProject(call, ctx);
  return { status: 200, body: { signingKeys: ctx.projects.signingKeys(project.id).map(keyView) } };
};

export const createSandboxSigningKey: AdminHandler<"createSandboxSigningKey"> = async (call, ctx) => {
  const project = visibleProject(call, ctx);
  const { kid, publicKey } = call.body;
  const { publicKeyPem, modulusLength } = readSigningKey(kid, publicKey);
  const record: SigningKeyRecord = { kid, publicKeyPem, modulusLength, createdAt: new Date(ctx.clock.now()).toISOString() };
  if (!(await ctx.projects.addSigningKey(project.id, record))) {
    throw apiError("already_exists", `Project ${project.id} already has a request-signing key ${kid}; remove it first to replace it.`);
  }
  return { status: 201, body: keyView(record) };
};

export const deleteSandboxSigningKey: AdminHandler<"deleteSandboxSigningKey"> = async (call, ctx) => {
  const project = visibleProject(call, ctx);
  if (!(await ctx.projects.removeSigningKey(project.id, call.pathParams.kid))) {
    throw apiError("not_found", `Project ${project.id} has no request-signing key ${call.pathParams.kid}.`);
  }
  return { status: 204, body: undefined };
};
