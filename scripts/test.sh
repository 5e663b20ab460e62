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
go test -count=1 -race ./internal/service/... ./internal/store/... ./internal/spool/... ./internal/safefs/... ./internal/capture/...
go test -count=1 -race -short ./internal/query/...
# Brief fuzzing of everything that parses untrusted or stored bytes.
for target in evidence:FuzzNormalize evidence:FuzzRedactText query:FuzzCursorDecode query:FuzzStoredLineDecoder spool:FuzzReader; do
  go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime 8s "./internal/${target%%:*}/"
done
