/**
 * Embedded-wallet sign-in over HTTP, as the end user's client performs it: the sign-in paths of a project, the
 * sandbox's inbox, and a whole email sign-in.
 */
import type { Sandbox } from "cdp-sandbox";
import request, { type Response } from "supertest";
import { expect } from "vitest";
import { call } from "./sandbox.js";

export interface InboxMessage {
  to: string;
  channel: string;
  code: string;
  flowId: string;
  sentAt: string;
}

/** `/platform/v2/embedded-wallet-api/projects/{projectId}/auth/{path}` of the sandbox's default project. */
const authPath = (sandbox: Sandbox, path: string) => `/platform/v2/embedded-wallet-api/projects/${sandbox.credentials.projectId}/auth/${path}`;

/** The messages sent to `to`, newest first. */
export async function inbox(sandbox: Sandbox, to: string): Promise<InboxMessage[]> {
  const res = await request(sandbox.url).get(`/_sandbox/messages?to=${encodeURIComponent(to)}`);
  expect(res.status).toBe(200);
  return res.body.messages as InboxMessage[];
}

/** Starts an email sign-in, reads the code from the inbox and verifies it: the verify answer. */
export async function signInByEmail(sandbox: Sandbox, email: string, headers: Record<string, string> = {}): Promise<Response> {
  const init = await request(sandbox.url).post(authPath(sandbox, "init")).set(headers).send({ type: "email", email });
  expect(init.status).toBe(200);
  const [message] = await inbox(sandbox, email);
  expect(message!.flowId).toBe(init.body.flowId);
  return request(sandbox.url).post(authPath(sandbox, "verify/email")).set(headers).send({ flowId: init.body.flowId, otp: message!.code });
}

/** How many end users the default project has (a refused request must not change it). */
export const endUserCount = async (sandbox: Sandbox) => (await call(sandbox, "GET", "/platform/v2/end-users")).body.endUsers.length as number;
