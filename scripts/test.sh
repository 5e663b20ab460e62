#!/usr/bin/env bash
# Runs every test: unit, contract (testscript), lifecycle, security, live
# end-to-end, race detector on the service and store, and brief fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt needed:"; echo "$unformatted"; exit 1; fi
go test -count=1 ./...
go test -count=1 -race ./internal/service/... ./internal/store/... ./internal/spool/... ./internal/safefs/... ./internal/capture/... ./internal/reproduce/...
go test -count=1 -race -short ./internal/query/...
# Brief fuzzing of everything that parses untrusted or stored bytes. Counts,
# not durations: a duration can end mid-input and fail with "context
# deadline exceeded" (a known go test -fuzz flake).
for target in evidence:FuzzNormalize:50000 evidence:FuzzRedactText:50000 evidence:FuzzParseHeldBack:20000 evidence:FuzzParseLogpointReport:20000 query:FuzzCursorDecode:50000 \
              query:FuzzStoredLineDecoder:50000 capture:FuzzParseEvent:50000 spool:FuzzReader:3000 \
              otlp:FuzzDecodeAndMap:20000; do
  IFS=: read -r pkg name count <<<"$target"
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "${count}x" "./internal/${pkg}/"
done
