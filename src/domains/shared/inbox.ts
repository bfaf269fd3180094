/**
 * The sandbox's message inbox: one-time codes the platform would send by email or SMS are recorded here instead, for
 * the tester to read (`GET /_sandbox/messages`). Minimal version for the MFA codes; the sign-in work owns this module.
 */
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";

export interface InboxMessage {
  to: string;
  channel: "email" | "sms";
  code: string;
  flowId: string;
  sentAt: string;
}

const INBOX_MESSAGES = declareCollection<InboxMessage>("inboxMessages", { order: "insertion" });

/** Records a code "sent" to `to`; the message's id is its flow and time, so a resent code is a new message. */
export function recordInboxMessage(tx: ProjectTx, message: InboxMessage): void {
  tx.collection(INBOX_MESSAGES).insert(`${message.flowId}:${message.sentAt}:${message.code}`, message);
}
