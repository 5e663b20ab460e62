#!/usr/bin/env bash
# Builds debug-mode into bench/out/ and measures it against the performance
# targets: sustained HTTP, file and OTLP ingestion, service memory while
# ingesting, the CLI round trip to a warm service, and what hostile input
# costs (huge bodies of bad lines, slow bodies, over-limit queries). Prints
# one Markdown table.
#
#   bench/run.sh                 # 1,000,000 events per transport, 3 runs each
#   EVENTS=200000 REPEAT=1 bench/run.sh
#   STORE_BENCH=1 bench/run.sh   # also the in-process store benchmarks
#   PROFILE=1 bench/run.sh       # also CPU/heap/mutex profiles of the service
#
# Everything runs against a private temporary state root and its own
# service, on loopback only, and stops that service when done.
set -euo pipefail
cd "$(dirname "$0")/.."

EVENTS=${EVENTS:-1000000}
BATCH=${BATCH:-400}
POSTERS=${POSTERS:-2}
REPEAT=${REPEAT:-3}
RUNS=${RUNS:-200}
OUT=bench/out
mkdir -p "$OUT"

echo "building into $OUT/ ..." >&2
go build -o "$OUT/debug-mode" ./cmd/debug-mode
go build -o "$OUT/ingest" ./bench/ingest
go build -o "$OUT/roundtrip" ./bench/roundtrip
go build -o "$OUT/reading" ./bench/reading
go build -o "$OUT/diff" ./bench/diff
go build -o "$OUT/hostile" ./bench/hostile

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- cmd internal go.mod go.sum 2>/dev/null)" ]; then rev="$rev + uncommitted changes"; fi
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo
echo "debug-mode benchmarks — $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($cpu), $(go env GOVERSION), tree $rev"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "workload: $EVENTS events per transport (HTTP, file, OTLP/HTTP protobuf logs), $BATCH-event batches, $POSTERS HTTP posters, $REPEAT runs each (median reported); $RUNS CLI runs per command"
echo
echo "| measure | result | target | verdict |"
echo "| --- | --- | --- | --- |"
"$OUT/ingest" -bin "$OUT/debug-mode" -events "$EVENTS" -batch "$BATCH" -posters "$POSTERS" -repeat "$REPEAT" -transport all -table
"$OUT/roundtrip" -bin "$OUT/debug-mode" -n "$RUNS" -table
"$OUT/diff" -bin "$OUT/debug-mode" -table
# Hostile input: 4 × 8 MiB bodies of bad / mixed / good lines at once, slow
# bodies next to good POSTs, over-limit queries.
"$OUT/hostile" -bin "$OUT/debug-mode" -table -query-events "${QUERY_EVENTS:-$EVENTS}"
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "${STORE_BENCH:-0}" = 1 ]; then
  echo
  echo "in-process store pipeline (go test -bench, internal/store/bench_test.go):"
  go test -run '^$' -bench . -benchtime "${BENCHTIME:-1s}" -count "${COUNT:-3}" ./internal/store/ | grep -E '^(Benchmark|ok|FAIL)'
fi

if [ "${PROFILE:-0}" = 1 ]; then
  # The same workload through a service built with profiling (bench/profsvc).
  prof="$OUT/prof"
  rm -rf "$prof"
  go build -o "$OUT/debug-mode-prof" ./bench/profsvc
  echo
  echo "profiling the service (profiles in $prof/):"
  DEBUG_MODE_BENCH_PROFILE_DIR="$PWD/$prof" "$OUT/ingest" -bin "$OUT/debug-mode-prof" -events "$EVENTS" -batch "$BATCH" -posters "$POSTERS" -transport both
  for cpuprof in "$prof"/cpu-*.prof; do
    echo
    echo "== $cpuprof (top 20 by own CPU)"
    go tool pprof -top -nodecount=20 "$OUT/debug-mode-prof" "$cpuprof" 2>/dev/null | sed -n '/flat%/,$p'
    heap="${cpuprof/cpu-/heap-}"
    echo "== ${heap} (live heap when the service stopped, top 5)"
    go tool pprof -sample_index=inuse_space -top -nodecount=5 "$OUT/debug-mode-prof" "$heap" 2>/dev/null | sed -n '/flat%/,$p'
  done
fi

# Reading a 1,000,000-event session: logs pages, a streaming query next to
# jq (and gojq/jaq when installed) on the same file, service memory.
if [ "${READING:-1}" = 1 ]; then
  echo
  "$OUT/reading" -bin "$OUT/debug-mode" -events "$EVENTS" -runs 15 -qruns 3
fi
