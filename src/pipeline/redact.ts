/**
 * Secrets cut from the bodies the journal shows and writes (`GET /_sandbox/requests`, the HAR, `--journal FILE`),
 * as credential headers are: an evidence file is attached to bug reports and CI artefacts, and a live refresh token
 * or one-time code in it signs whoever reads it in. Worked on the text, not a parse: a body the journal cut short is
 * no longer JSON, and its secrets must go all the same. The inbox keeps its codes readable through its own endpoint.
 */

/** Fields whose string value is a secret wherever they appear: tokens, keys, wallet and API secrets, codes. */
const SECRET_FIELDS = [
  "accessToken",
  "refreshToken",
  "idToken",
  "otp",
  "mfaCode",
  "otpCode",
  "secret",
  "privateKey",
  "encryptedPrivateKey",
  "walletSecret",
  "apiKeySecret",
  "clientApiKey",
  "adminToken",
];
const REMOVED = "<removed>";

// A JSON string is `"` then (any character but `"` or `\`, or an escape) then `"`: linear, whatever the input.
const secretField = new RegExp(`("(?:${SECRET_FIELDS.join("|")})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, "g");
/**
 * `code` names other things too (a payment error's reason): only a one-time code (six digits) or an OAuth code (32
 * hex digits) is cut.
 */
const oneTimeCode = /("code"\s*:\s*)"(?:\d{6}|[0-9a-f]{32})"/g;
/** An `otpauth://` URI carries the TOTP secret in its query. */
const otpauthUri = /otpauth:\/\/[^"\s\\]*/g;

/** `text` with the values of secret fields replaced by `<removed>` (the text itself when it holds none). */
export function redactedBody(text: string): string {
  return text.replace(secretField, `$1"${REMOVED}"`).replace(oneTimeCode, `$1"${REMOVED}"`).replace(otpauthUri, `otpauth://${REMOVED}`);
}

/** A `Location` header keeps where it goes, not the OAuth `code` it hands back. */
export function redactedLocation(value: string): string {
  return value.replace(/([?&#]code=)[^&#]*/g, `$1${REMOVED}`);
}
