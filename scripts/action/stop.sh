#!/usr/bin/env bash
# The stop action (stop/action.yml): ends the sandbox scripts/action/start.sh started in this job, after saying how many
# requests it answered, and prints its log. Safe to run when nothing was started or it has already stopped.
set -uo pipefail

state="${CDP_SANDBOX_STATE_DIR:-}"
if [ -z "$state" ] || [ ! -f "$state/pid" ]; then
  echo "cdp-sandbox: no sandbox was started in this job"
  exit 0
fi
pid="$(cat "$state/pid")"
url="${CDP_SANDBOX_URL:-}"
if [ -n "$url" ] && kill -0 "$pid" 2>/dev/null; then
  count="$(curl -fsS --max-time 5 "$url/_sandbox/requests" 2>/dev/null | node -e 'let t="";process.stdin.on("data",(c)=>(t+=c)).on("end",()=>console.log(JSON.parse(t).requests.length))' 2>/dev/null || true)"
  if [ -n "$count" ]; then echo "cdp-sandbox answered ${count} requests (the journal keeps the latest)"; fi
  # With strict, the coverage as it stands before the stop, in case no report folder was given.
  if [ -f "$state/strict" ]; then
    curl -fsS --max-time 10 ${CDP_SANDBOX_ADMIN_TOKEN:+-H "X-Sandbox-Admin-Token: $CDP_SANDBOX_ADMIN_TOKEN"} "$url/_sandbox/coverage" -o "$state/coverage.json" 2>/dev/null || true
  fi
fi

if kill -0 "$pid" 2>/dev/null; then
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "cdp-sandbox did not stop within 10 s of SIGTERM; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
fi
rm -f "$state/pid"
echo "::group::cdp-sandbox log"
cat "$state/sandbox.log" 2>/dev/null || true
echo "::endgroup::"
echo "cdp-sandbox stopped"

# The reports the sandbox wrote as it stopped: the summary goes on the job's page.
report_dir=""
if [ -f "$state/report-dir" ]; then report_dir="$(cat "$state/report-dir")"; fi
if [ -n "$report_dir" ] && [ -f "$report_dir/summary.md" ]; then
  echo "cdp-sandbox reports: $report_dir (coverage.json, junit.xml, summary.md)"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$report_dir/summary.md" >>"$GITHUB_STEP_SUMMARY"; fi
fi

# The verdict: with strict, one error line per distinct contract violation, and a failed step.
if [ -f "$state/strict" ]; then
  coverage="$state/coverage.json"
  if [ -n "$report_dir" ] && [ -f "$report_dir/coverage.json" ]; then coverage="$report_dir/coverage.json"; fi
  if [ ! -f "$coverage" ]; then
    echo "::error title=cdp-sandbox::strict: the sandbox's coverage could not be read, so no verdict can be drawn"
    exit 1
  fi
  node - "$coverage" <<'NODE' || exit 1
const { readFileSync } = require("node:fs");
const { total } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const one = (text) => String(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
for (const v of total.violations) {
  const code = v.errorType ? ` ${v.errorType}` : v.rpcCode !== undefined ? ` (JSON-RPC ${v.rpcCode})` : "";
  console.log(`::error title=cdp-sandbox contract violation::${one(`${v.operation} ${v.status}${code}: ${v.problems[0]} (×${v.count}, first ${v.correlationId})`)}`);
}
if (total.violations.length > 0) {
  console.log(`cdp-sandbox: ${total.summary.violations} request(s) broke the platform's contract (strict)`);
  process.exit(1);
}
console.log("cdp-sandbox: no request broke the platform's contract");
NODE
fi
