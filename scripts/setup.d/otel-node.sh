#!/usr/bin/env bash
# Installs the OpenTelemetry JavaScript SDK (logs and traces) and its four
# OTLP/HTTP exporters (npm, pinned) into tools/otel-node, for
# e2e/otlp_test.go: exporter-*-otlp-http send JSON, exporter-*-otlp-proto
# send protobuf. The 0.223 / 2.12 line is the newest that runs on Node 20.
# Idempotent: does nothing when the pinned versions are there; without npm
# it only says what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

experimental=0.223.1
stable=2.12.1
api=1.9.1
stamp="$experimental $stable $api"
dest=tools/otel-node
if [ -d "$dest/node_modules/@opentelemetry/exporter-trace-otlp-proto" ] && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: npm is needed for the OpenTelemetry JavaScript SDK (e2e/otlp_test.go); skipping it" >&2
  exit 0
fi
echo "setup: installing the OpenTelemetry JavaScript SDK $experimental / $stable" >&2
rm -rf "$dest"
mkdir -p "$dest"
echo '{"private": true}' >"$dest/package.json"
npm install --prefix "$dest" --no-audit --no-fund --silent --save-exact \
  "@opentelemetry/api@$api" "@opentelemetry/api-logs@$experimental" \
  "@opentelemetry/sdk-logs@$experimental" "@opentelemetry/sdk-trace-base@$stable" "@opentelemetry/resources@$stable" \
  "@opentelemetry/exporter-logs-otlp-http@$experimental" "@opentelemetry/exporter-logs-otlp-proto@$experimental" \
  "@opentelemetry/exporter-trace-otlp-http@$experimental" "@opentelemetry/exporter-trace-otlp-proto@$experimental" >/dev/null
echo "$stamp" >"$dest/VERSION"
