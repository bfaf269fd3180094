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
