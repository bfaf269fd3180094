/**
 * The sandbox's message inbox: one-time codes "sent" by email or SMS never
 * leave the machine; they are recorded here and read back through
 * `GET /_sandbox/messages?to=…` or the dashboard's Inbox.
 */
import { declareCollection } from "../../store/collections.js";
import type { Collection, ProjectTx } from "../../store/store.js";

export interface InboxMessage {
  /** The email address (lowercased) or phone number. */
  to: string;
  channel: "email" | "sms";
  code: string;
  flowId: string;
  sentAt: string;
}

const INBOX_MESSAGES = declareCollection<InboxMessage & { id: string }>("inboxMessages", {
  indexes: { to: (m) => m.to },
  order: "insertion",
});

const inboxMessages = (tx: ProjectTx): Collection<InboxMessage & { id: string }> => tx.collection(INBOX_MESSAGES);

/** Records a code as sent to `to`; lands with the request's transaction (a refused request sends nothing). */
export function recordInboxMessage(tx: ProjectTx, message: InboxMessage): void {
  const messages = inboxMessages(tx);
  const to = message.channel === "email" ? message.to.toLowerCase() : message.to;
  // Ids in sending order: the flow id alone may repeat (a resent code) and the clock may stand still.
  const id = `${message.sentAt}|${String(messages.page(0, 0).total).padStart(9, "0")}|${message.flowId}`;
  messages.insert(id, { ...message, to, id });
}

/** The messages sent to `to` (all when undefined), newest first. */
export function listInboxMessages(tx: ProjectTx, to: string | undefined, limit = 100): InboxMessage[] {
  const wanted = to?.includes("@") ? to.toLowerCase() : to;
  const page = inboxMessages(tx).pageWhere(0, limit, (m) => wanted === undefined || m.to === wanted, { descending: true });
  return page.items.map(({ id: _id, ...m }) => m);
}
