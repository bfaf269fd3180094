/**
 * The secure key-export iframe, served by the sandbox so that an app whose `secureIframeBasePath` points here
 * (`http://127.0.0.1:<port>/_sandbox/secure-iframe`) exports keys offline. It speaks the React kit's postMessage
 * protocol (messages typed `CDP_WEB_SECURE_IFRAME_*`):
 *
 *   frame → page  LISTENING                        once loaded
 *   page → frame  GET_PRIVATE_KEY {address, type: "evm" | "solana", authState: {accessToken, expiresAt, user}, theme}
 *   frame → page  STATUS {status: "ready"}          the button is live
 *   (click)       the frame registers a Temporary Wallet Secret of its own (a P-256 key that never leaves it, PUT
 *                 …/wallet-secrets), makes an RSA-OAEP-2048 key, calls …/evm/export or …/solana/export signed with
 *                 X-Wallet-Auth, decrypts the key and copies it to the clipboard
 *   frame → page  STATUS {status: "success" | "error" | "expired", message?}
 *   page → frame  THEME {theme}
 *
 * The key exists in clear only inside the frame, as on the platform. The copied text is the EVM key as 0x-prefixed
 * hex, or the Solana key as base58 of the 64-byte seed and public key (what wallets import). The frame's calls are
 * same-origin (the sandbox), so they need no CORS. Unlike the platform, any parent page may frame it: the sandbox
 * serves local development, whose origins are not known in advance.
 */
import { type AdminHandler, type ServedFile, served } from "./types.js";

const HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>cdp-sandbox key export</title>
<style>
  html, body { margin: 0; padding: 0; background: transparent; font-family: system-ui, sans-serif; }
  button { width: 100%; border: 1px solid #014cec; border-radius: 99999px; padding: 0.75em 1em; background: #0052ff; color: #fff;
    font-size: 16px; font-weight: 500; cursor: pointer; }
  button:disabled { opacity: 0.6; cursor: default; }
</style>
<script type="module" src="/_sandbox/secure-iframe/app.js"></script>
</head>
<body><button id="export" type="button" disabled>Copy key</button></body>
</html>
`;

/** The frame's script (plain browser JavaScript: WebCrypto for every key, fetch for the two calls). */
const SCRIPT = String.raw`
const PREFIX = "CDP_WEB_SECURE_IFRAME_";
const params = new URLSearchParams(location.search);
const button = document.getElementById("export");
const label = params.get("label") || "Copy key";
const copiedLabel = params.get("copiedLabel") || "Copied";
const projectId = params.get("projectId") || "";
button.textContent = label;
let request;
let parentOrigin;

function post(message) {
  // LISTENING carries nothing and goes out before the page is known; everything after goes to the page that asked.
  window.parent.postMessage(message, parentOrigin || "*");
}
const status = (status, message) => post({ type: PREFIX + "STATUS", payload: message === undefined ? { status } : { status, message } });

function applyTheme(theme) {
  if (!theme) return;
  const s = button.style;
  if (theme.pageBg) document.body.style.background = theme.pageBg;
  if (theme.buttonBg) s.background = theme.buttonBg;
  if (theme.buttonText) s.color = theme.buttonText;
  if (theme.buttonBorder) s.borderColor = theme.buttonBorder;
  if (theme.buttonBorderRadius !== undefined) s.borderRadius = theme.buttonBorderRadius + "px";
  if (theme.buttonFontSize) s.fontSize = theme.buttonFontSize + "px";
  if (theme.buttonFontWeight) s.fontWeight = String(theme.buttonFontWeight);
  if (theme.fontFamily) s.fontFamily = theme.fontFamily;
}

const enc = new TextEncoder();
const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const b64url = (bytes) => b64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
function base58(bytes) {
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let out = "";
  while (n > 0n) { out = ALPHABET[Number(n % 58n)] + out; n /= 58n; }
  for (const b of bytes) { if (b !== 0) break; out = "1" + out; }
  return out;
}
function unbase58(text) {
  let n = 0n;
  for (const c of text) { const i = ALPHABET.indexOf(c); if (i < 0) throw new Error("not base58"); n = n * 58n + BigInt(i); }
  const out = [];
  while (n > 0n) { out.unshift(Number(n % 256n)); n /= 256n; }
  for (const c of text) { if (c !== "1") break; out.unshift(0); }
  return new Uint8Array(out);
}
function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted(value[k])]));
  return value;
}

/** An ES256 X-Wallet-Auth token for this call: method, host and path, and the hash of the body. */
async function walletAuth(key, method, path, body) {
  const now = Math.floor(Date.now() / 1000);
  const claims = { iat: now, nbf: now, jti: hex(crypto.getRandomValues(new Uint8Array(16))), uris: [method + " " + location.host + path] };
  if (body !== undefined) claims.reqHash = hex(await crypto.subtle.digest("SHA-256", enc.encode(JSON.stringify(sorted(body)))));
  const input = b64url(enc.encode(JSON.stringify({ alg: "ES256", typ: "JWT" }))) + "." + b64url(enc.encode(JSON.stringify(claims)));
  const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, enc.encode(input));
  return input + "." + b64url(signature);
}

async function call(method, path, body, accessToken, signingKey) {
  const url = path + (projectId ? "?projectID=" + encodeURIComponent(projectId) : "");
  const headers = { "Content-Type": "application/json", Authorization: "Bearer " + accessToken };
  headers["X-Wallet-Auth"] = await walletAuth(signingKey, method, path, body);
  const res = await fetch(url, { method, headers, body: JSON.stringify(body) });
  const text = await res.text();
  const json = text ? JSON.parse(text) : {};
  if (!res.ok) throw Object.assign(new Error(json.errorMessage || res.status + " " + res.statusText), { status: res.status });
  return json;
}

/** A Temporary Wallet Secret of the frame's own, registered for the signed-in user: its private half cannot be read. */
async function walletSecret(userId, accessToken) {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  const walletSecretId = hex(crypto.getRandomValues(new Uint8Array(16)));
  const publicKey = b64(await crypto.subtle.exportKey("spki", pair.publicKey));
  const validUntil = new Date(Date.now() + 10 * 60_000).toISOString();
  await call("PUT", "/platform/v2/embedded-wallet-api/end-users/" + userId + "/wallet-secrets", { walletSecretId, publicKey, validUntil }, accessToken, pair.privateKey);
  return { walletSecretId, key: pair.privateKey };
}

async function exportKey() {
  const { address, type, authState } = request;
  const expiresAtMs = authState.expiresAt < 1e12 ? authState.expiresAt * 1000 : authState.expiresAt;
  if (!authState.accessToken || (expiresAtMs && Date.now() >= expiresAtMs)) return "expired";
  const userId = authState.user.userId;
  const secret = await walletSecret(userId, authState.accessToken);
  const rsa = await crypto.subtle.generateKey({ name: "RSA-OAEP", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, false, ["encrypt", "decrypt"]);
  const exportEncryptionKey = b64(await crypto.subtle.exportKey("spki", rsa.publicKey));
  const path = "/platform/v2/embedded-wallet-api/end-users/" + userId + "/" + (type === "solana" ? "solana" : "evm") + "/export";
  const body = { address, exportEncryptionKey, walletSecretId: secret.walletSecretId, parentOrigin };
  const { encryptedPrivateKey } = await call("POST", path, body, authState.accessToken, secret.key);
  const ciphertext = Uint8Array.from(atob(encryptedPrivateKey), (c) => c.charCodeAt(0));
  const raw = new Uint8Array(await crypto.subtle.decrypt({ name: "RSA-OAEP" }, rsa.privateKey, ciphertext));
  const text = type === "solana" ? base58(new Uint8Array([...raw, ...unbase58(address)])) : "0x" + hex(raw);
  await navigator.clipboard.writeText(text);
  return "success";
}

window.addEventListener("message", (event) => {
  if (event.source !== window.parent || !event.data || typeof event.data.type !== "string") return;
  const { type, payload } = event.data;
  if (type === PREFIX + "GET_PRIVATE_KEY") {
    parentOrigin = event.origin;
    request = payload;
    applyTheme(payload.theme);
    button.disabled = false;
    status("ready");
  } else if (type === PREFIX + "THEME") {
    applyTheme(payload && payload.theme);
  }
});

button.addEventListener("click", async () => {
  if (!request) return;
  button.disabled = true;
  try {
    const outcome = await exportKey();
    if (outcome === "expired") return status("expired");
    button.textContent = copiedLabel;
    status("success");
  } catch (error) {
    status("error", error instanceof Error ? error.message : String(error));
  } finally {
    button.disabled = false;
  }
});

post({ type: PREFIX + "LISTENING" });
`;

export const openSandboxSecureIframe: AdminHandler<"openSandboxSecureIframe"> = served(
  async (): Promise<ServedFile> => ({ contentType: "text/html; charset=utf-8", text: PAGE, headers: HEADERS }),
);

export const getSandboxSecureIframeScript: AdminHandler<"getSandboxSecureIframeScript"> = served(
  async (): Promise<ServedFile> => ({ contentType: "text/javascript; charset=utf-8", text: SCRIPT, headers: HEADERS }),
);
