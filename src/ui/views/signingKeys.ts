/// <reference lib="dom" />
/**
 * Request signing: the RSA public keys registered for the project shown. With one, every request made with the
 * project's API keys must carry X-Signature signed by the matching private key (docs/authentication.md).
 */
import { api, currentProject } from "../api.js";
import { field, fill, h, table } from "../dom.js";
import type { Overview, Shell, View } from "../view.js";

export function signingKeysView(shell: Shell): View {
  const list = h("div", { class: "results" });
  const kid = h("input", { type: "text", placeholder: "server-1", required: true });
  const publicKey = h("textarea", { rows: 6, placeholder: "-----BEGIN PUBLIC KEY-----", required: true });
  let projectId = currentProject();
  const keysPath = () => `/projects/${encodeURIComponent(projectId ?? "")}/signing-keys`;

  async function act(run: () => Promise<unknown>, done: string): Promise<void> {
    try {
      await run();
      shell.say(done);
      await load();
    } catch (error) {
      shell.say((error as Error).message, "error");
    }
  }

  function register(e: Event): void {
    e.preventDefault();
    const name = kid.value.trim();
    void act(async () => {
      await api<"createSandboxSigningKey">("POST", keysPath(), { body: { kid: name, publicKey: publicKey.value } });
      kid.value = "";
      publicKey.value = "";
    }, `Key ${name} is registered: this project's requests must now carry X-Signature.`);
  }

  const remove = (name: string) => act(() => api<"deleteSandboxSigningKey">("DELETE", `${keysPath()}/${encodeURIComponent(name)}`), `Key ${name} is removed.`);

  async function load(): Promise<void> {
    // The default project is shown when none was picked: the overview names it.
    projectId ??= (await api<"getSandboxOverview">("GET", "/overview")).projectId;
    const { signingKeys } = await api<"listSandboxSigningKeys">("GET", keysPath());
    fill(
      list,
      table(
        "Request-signing keys",
        [
          ["kid", (k) => h("span", { class: "mono" }, k.kid)],
          ["Size", (k) => `${k.modulusLength} bits`],
          ["Registered", (k) => k.createdAt],
          ["", (k) => h("button", { type: "button", onclick: () => void remove(k.kid), "aria-label": `Remove key ${k.kid}` }, "Remove")],
        ],
        signingKeys,
        "No key: requests need no X-Signature.",
      ),
    );
  }

  return {
    async mount(root) {
      fill(
        root,
        h("h2", {}, "Request signing"),
        h(
          "p",
          {},
          "With a key registered, every request made with this project's API keys must carry X-Signature: a JWS signed with the key's private half over the method, the target, the body's SHA-256, the time and a one-time jti. The bearer token is still required.",
        ),
        h(
          "form",
          { class: "toolbar", onsubmit: register, "aria-label": "Register a request-signing key" },
          field("kid", kid),
          field("RSA public key (PEM, 2048 bits or more)", publicKey),
          h("button", { type: "submit" }, "Register"),
        ),
        list,
      );
      await load();
    },
    async refresh(overview: Overview) {
      projectId = currentProject() ?? overview.projectId;
      await load();
    },
  };
}
