#!/usr/bin/env bash
# The main job, end to end, on the built-in example: build debug-mode, create
# a session, run an instrumented program that sends evidence over both
# transports, read it back, reset, read again, clean up. Each step prints
# what it does. Uses a private state directory, so it leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

work=$(mktemp -d)
export AGENT_DEBUG_MODE_HOME="$work/state"
bin="$work/debug-mode"
trap '"$bin" stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

step "Build debug-mode"
run go build -o "$bin" ./cmd/debug-mode
dm() { printf '$ debug-mode %s\n' "$*"; "$bin" "$@"; }

step "Create a session"
out=$(dm create | tee /dev/stderr)
id=$(printf '%s\n' "$out" | sed -n 's/^Session ID *//p')
url=$(printf '%s\n' "$out" | sed -n 's/^Ingest URL *//p')
append=$(printf '%s\n' "$out" | sed -n 's/^Append Path *//p')

step "Reproduce: the instrumented program appends events to the Append Path"
run python3 examples/quickstart/cart.py "$append"

step "A browser-side probe posts NDJSON to the Ingest URL"
ts=$(($(date +%s) * 1000))
printf '{"hypothesisId":"H3","location":"web/cart.js:12","message":"total shown","data":{"shown":"40.49","apiKey":"sk_live_0123456789abcdefghijklmn"},"timestamp":%s}\n' "$ts" |
  curl -sS -H 'Content-Type: application/x-ndjson' --data-binary @- "$url"; echo

step "Read the evidence"
dm logs --session "$id"

step "Ask a precise question with jq: which totals were discounted twice?"
dm query --session "$id" --hypothesis H1 --slurp 'map(select(.data.member)) | length'

step "Evidence health"
dm status --session "$id"

step "Reset before the next reproduction: same session, sequence restarts at 1"
dm reset --session "$id"
run python3 examples/quickstart/cart.py "$append"
dm logs --session "$id" --hypothesis H2

step "Clean up"
dm clean --session "$id"
dm stop
