#!/usr/bin/env bash
# The start step of action.yml: starts cdp-sandbox in the background, waits for GET /_sandbox/health, and hands the
# default project's credentials and the base path to later steps (GITHUB_ENV) and to the workflow (GITHUB_OUTPUT).
# Inputs come as INPUT_* variables; CDP_SANDBOX_ACTION_PATH is the action's folder. The sandbox runs until the stop
# action (stop/action.yml, scripts/action/stop.sh) ends it, or the runner ends the job's processes.
set -euo pipefail

action_path="${CDP_SANDBOX_ACTION_PATH:?CDP_SANDBOX_ACTION_PATH names the folder of the action}"
port="${INPUT_PORT:-8080}"
timeout="${INPUT_TIMEOUT:-60}"
: "${GITHUB_ENV:?GITHUB_ENV names the file of variables for later steps}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT names the file of step outputs}"
state="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/cdp-sandbox.XXXXXX")"

fail() {
  echo "::error title=cdp-sandbox::$1"
  exit 1
}

# The package to run: a version from the registry, or the action's own copy (built once: npm ci runs the build).
if [ -n "${INPUT_VERSION:-}" ]; then
  echo "::group::npm install cdp-sandbox@${INPUT_VERSION}"
  npm install --prefix "$state/package" --omit=dev --no-audit --no-fund "cdp-sandbox@${INPUT_VERSION}"
  echo "::endgroup::"
  root="$state/package/node_modules/cdp-sandbox"
else
  root="$action_path"
  if [ ! -f "$root/dist/cli.js" ]; then
    echo "::group::build cdp-sandbox (the action's copy)"
    (cd "$root" && npm ci --no-audit --no-fund)
    echo "::endgroup::"
  fi
fi
cli="$root/dist/cli.js"
[ -f "$cli" ] || fail "cdp-sandbox is not built: $cli is missing"

args=(--port "$port" --credentials-file "$state/credentials.json")
if [ -n "${INPUT_SEED:-}" ]; then args+=(--seed "$INPUT_SEED"); fi
if [ -n "${INPUT_DATA_FILE:-}" ]; then args+=(--data "$INPUT_DATA_FILE"); fi
if [ -n "${INPUT_INIT_FILE:-}" ]; then args+=(--init "$INPUT_INIT_FILE"); fi
if [ -n "${INPUT_JOURNAL_FILE:-}" ]; then args+=(--journal "$INPUT_JOURNAL_FILE"); fi
if [ -n "${INPUT_EXPORT_FILE:-}" ]; then args+=(--export-on-exit "$INPUT_EXPORT_FILE"); fi
# The verdict is drawn by the stop action (it reads the coverage); the sandbox's own --strict adds the lines to its log.
if [ "${INPUT_STRICT:-false}" = "true" ]; then
  args+=(--strict)
  touch "$state/strict"
fi
if [ -n "${INPUT_REPORT_DIR:-}" ]; then
  report_dir="$(cd "$(dirname "$INPUT_REPORT_DIR")" 2>/dev/null && pwd)/$(basename "$INPUT_REPORT_DIR")" || report_dir="$INPUT_REPORT_DIR"
  args+=(--report "$report_dir")
  printf '%s\n' "$report_dir" >"$state/report-dir"
fi
while IFS= read -r scenario; do
  scenario="${scenario#"${scenario%%[![:space:]]*}"}"
  scenario="${scenario%"${scenario##*[![:space:]]}"}"
  if [ -n "$scenario" ]; then args+=(--scenario "$scenario"); fi
done < <(printf '%s\n' "${INPUT_SCENARIOS:-}" | tr ',' '\n')

nohup node "$cli" "${args[@]}" >"$state/sandbox.log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$state/pid"

# Ready when the credentials file names the base path and the sandbox answers its health check there.
deadline=$((SECONDS + timeout))
url=""
while :; do
  if ! kill -0 "$pid" 2>/dev/null; then
    cat "$state/sandbox.log"
    fail "cdp-sandbox exited before it answered (log above)"
  fi
  if [ -z "$url" ] && [ -s "$state/credentials.json" ]; then
    url="$(node -p 'new URL(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).basePath).origin' "$state/credentials.json" 2>/dev/null || true)"
  fi
  if [ -n "$url" ] && curl -fsS -o /dev/null --max-time 2 "$url/_sandbox/health" 2>/dev/null; then break; fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    kill "$pid" 2>/dev/null || true
    cat "$state/sandbox.log"
    fail "cdp-sandbox did not answer GET /_sandbox/health within ${timeout} s (log above)"
  fi
  sleep 0.2
done

# Variables for later steps and outputs for the workflow; secrets are masked in the job's log.
node - "$state" "$pid" "$root" "${INPUT_REGISTER:-false}" <<'NODE'
const { appendFileSync, readFileSync } = require("node:fs");
const { randomBytes } = require("node:crypto");
const { pathToFileURL } = require("node:url");
const [state, pid, root, register] = process.argv.slice(2);
const c = JSON.parse(readFileSync(`${state}/credentials.json`, "utf8"));
const url = new URL(c.basePath).origin;
const line = (name, value) => {
  const delimiter = `CDP_SANDBOX_${randomBytes(8).toString("hex")}`;
  return String(value).includes("\n") ? `${name}<<${delimiter}\n${value}\n${delimiter}\n` : `${name}=${value}\n`;
};
for (const secret of [c.apiKeySecret, c.walletSecret, c.adminToken]) if (secret) console.log(`::add-mask::${secret}`);
const env = {
  CDP_API_KEY_ID: c.apiKeyId,
  CDP_API_KEY_SECRET: c.apiKeySecret,
  CDP_WALLET_SECRET: c.walletSecret,
  CDP_SANDBOX_URL: url,
  CDP_SANDBOX_BASE_PATH: c.basePath,
  CDP_SANDBOX_PROJECT_ID: c.projectId,
  CDP_SANDBOX_IMPORT_KEY: c.encryptionPublicKey,
  CDP_SANDBOX_ADMIN_TOKEN: c.adminToken,
  CDP_SANDBOX_STATE_DIR: state,
  DISABLE_CDP_USAGE_TRACKING: "true",
  DISABLE_CDP_ERROR_REPORTING: "true",
};
if (register === "true") {
  env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(`${root}/dist/register.js`).href}`.trim();
}
const outputs = {
  url,
  "base-path": c.basePath,
  "project-id": c.projectId,
  "api-key-id": c.apiKeyId,
  "api-key-secret": c.apiKeySecret,
  "wallet-secret": c.walletSecret,
  pid,
};
appendFileSync(process.env.GITHUB_ENV, Object.entries(env).filter(([, v]) => v !== undefined).map(([k, v]) => line(k, v)).join(""));
appendFileSync(process.env.GITHUB_OUTPUT, Object.entries(outputs).map(([k, v]) => line(k, v)).join(""));
console.log(`cdp-sandbox is up at ${c.basePath} (pid ${pid}); its journal: GET ${url}/_sandbox/requests`);
NODE
