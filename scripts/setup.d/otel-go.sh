#!/usr/bin/env bash
# Downloads the OpenTelemetry Go SDK modules (pinned in
# e2e/testdata/otelgo/go.mod) that e2e/otlp_test.go builds its Go program
# with. The SDK stays in that module of its own: it is no dependency of
# cmd/debug-mode. Fast when the modules are already in the module cache.
set -euo pipefail
cd "$(dirname "$0")/../../e2e/testdata/otelgo"
go mod download
