#!/usr/bin/env bash
# Builds a minimal OpenTelemetry Collector (OTLP receiver → batch processor →
# OTLP/HTTP exporter) from the Collector's official Go modules, pinned in
# e2e/testdata/otelcol/go.mod, into tools/otelcol/otelcol, for
# e2e/otlp_test.go. Idempotent: rebuilds only when that module's sources
# change (a stamp holds their hash).
set -euo pipefail
cd "$(dirname "$0")/../.."

src=e2e/testdata/otelcol
dest=tools/otelcol
stamp=$(cat "$src/go.mod" "$src/go.sum" "$src/main.go" | sha256sum | cut -d' ' -f1)
if [ -x "$dest/otelcol" ] && [ "$(cat "$dest/STAMP" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
echo "setup: building the OpenTelemetry Collector for the OTLP tests (a few minutes the first time)" >&2
mkdir -p "$dest"
(cd "$src" && go build -o "../../../$dest/otelcol.new" .)
mv "$dest/otelcol.new" "$dest/otelcol"
echo "$stamp" >"$dest/STAMP"
