/**
 * The platform's delivery signature (its webhooks run on Hook0, signature
 * version v1): header `X-Hook0-Signature: t=<unix seconds>,h=<signed header
 * names>,v1=<hex HMAC-SHA256>`, where the HMAC key is the subscription's
 * secret (the UTF-8 text of the UUID) and the signed text is
 *
 *   `${t}.${h}.${values of the h headers joined by "."}.${raw body}`
 *
 * `h` lists every header the delivery sets before signing (the target's own
 * headers, Content-Type, X-Event-Id, X-Event-Type), lowercased, sorted and
 * separated by spaces.
 *
 * @example
 *   signDelivery("9a8b…", { "content-type": "application/json" }, '{"a":1}', 1700000000)
 *   // → "t=1700000000,h=content-type,v1=…"
 */
import { createHmac } from "node:crypto";

export const SIGNATURE_HEADER = "X-Hook0-Signature";

export function signDelivery(secret: string, headers: Record<string, string>, body: string, unixSeconds: number): string {
  const signed = Object.entries(headers)
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const names = signed.map(([name]) => name).join(" ");
  const values = signed.map(([, value]) => value).join(".");
  const v1 = createHmac("sha256", secret).update(`${unixSeconds}.${names}.${values}.`).update(body).digest("hex");
  return `t=${unixSeconds},h=${names},v1=${v1}`;
}
