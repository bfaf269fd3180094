/**
 * The dashboard at /_sandbox/ui/: one page, one script, one style sheet,
 * all served by the sandbox (no network at run time; system fonts). The
 * script talks only to this admin API. `npm run build` bundles src/ui into
 * dist/ui (scripts/bundle-ui.mjs); running from source (the tests), the
 * bundle is built on the first request with the same bundler and kept in
 * memory, so tests never depend on a stale build.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { apiError } from "../errors/catalogue.js";
import { packageRoot } from "../paths.js";
import { type AdminHandler, type ServedFile, served } from "./types.js";

interface Bundle {
  script: string;
  style: string;
}

const fromSource = fileURLToPath(import.meta.url).endsWith(".ts");
let bundle: Promise<Bundle | undefined> | undefined;

/** The built files (dist/ui), or the source bundled now when running from source; undefined when neither exists. */
function loadBundle(): Promise<Bundle | undefined> {
  bundle ??= (async () => {
    if (fromSource) {
      const { bundleDashboard } = (await import(pathToFileURL(join(packageRoot, "scripts", "bundle-ui.mjs")).href)) as {
        bundleDashboard: () => Promise<Bundle>;
      };
      return bundleDashboard();
    }
    try {
      const dir = join(packageRoot, "dist", "ui");
      return { script: await readFile(join(dir, "app.js"), "utf8"), style: await readFile(join(dir, "app.css"), "utf8") };
    } catch {
      return undefined;
    }
  })();
  bundle.catch(() => {
    bundle = undefined;
  });
  return bundle;
}

async function built(): Promise<Bundle> {
  const b = await loadBundle();
  if (!b) throw apiError("not_found", "The dashboard is not built: run npm run build.");
  return b;
}

/** Only the sandbox's own script, style sheet and API; no framing, no other site. */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cdp-sandbox dashboard</title>
<link rel="stylesheet" href="/_sandbox/ui/app.css">
<script type="module" src="/_sandbox/ui/app.js"></script>
</head>
<body>
<noscript>The dashboard needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;

export const openSandboxDashboard: AdminHandler<"openSandboxDashboard"> = served(async (): Promise<ServedFile> => {
  await built();
  return { contentType: "text/html; charset=utf-8", text: PAGE, headers: SECURITY_HEADERS };
});

export const getSandboxDashboardAsset: AdminHandler<"getSandboxDashboardAsset"> = served(async (call): Promise<ServedFile> => {
  const b = await built();
  return call.pathParams.asset === "app.css"
    ? { contentType: "text/css; charset=utf-8", text: b.style, headers: SECURITY_HEADERS }
    : { contentType: "text/javascript; charset=utf-8", text: b.script, headers: SECURITY_HEADERS };
});
