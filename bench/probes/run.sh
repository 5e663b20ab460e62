#!/usr/bin/env bash
# Times the probe ledger: `debug-mode probes` over a generated tree of 20,000
# source files in the fourteen template languages (about 3 KiB each, one in
# fifty with a region, one in a thousand broken, plus node_modules and
# .gitignore'd output that must be skipped). Target: under 2 seconds.
#
#   bench/probes/run.sh              # 10 timed CLI runs (median), then the Go benchmark
#   RUNS=3 GOBENCH=0 bench/probes/run.sh
#
# The tree is the one BenchmarkScan (internal/probes/bench_test.go) builds;
# it is written to a temporary folder and removed afterwards. Timings are
# with a warm page cache (one untimed run first).
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-10}
OUT=bench/out
mkdir -p "$OUT"
go build -o "$OUT/debug-mode" ./cmd/debug-mode
bin=$(pwd)/$OUT/debug-mode

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
echo "generating 20,000 source files in $tree ..." >&2
PROBES_BENCH_TREE=$tree go test -count=1 -run '^TestGenerateBenchTree$' ./internal/probes/ >/dev/null

cd "$tree"
"$bin" probes --json >"$tree.json" || true # warm-up, and the counts below
regions=$(grep -c '"startLine"' "$tree.json" || true)
scanned=$(sed -n 's/.*"filesScanned": \([0-9]*\).*/\1/p' "$tree.json")
rm -f "$tree.json"

times=()
for _ in $(seq "$RUNS"); do
  start=$(date +%s%N)
  "$bin" probes >/dev/null || true
  end=$(date +%s%N)
  times+=($(((end - start) / 1000000)))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
median=${sorted[$((RUNS / 2))]}
cd - >/dev/null

echo
echo "debug-mode probes — $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(go env GOVERSION)"
echo "| measure | result | target | verdict |"
echo "| --- | --- | --- | --- |"
verdict=pass
[ "$median" -lt 2000 ] || verdict=FAIL
echo "| probes over 20,000 source files ($scanned scanned, $regions regions; median of $RUNS runs, warm cache) | ${median} ms | < 2000 ms | $verdict |"
echo "(all runs, ms: ${times[*]})"

if [ "${GOBENCH:-1}" = 1 ]; then
  echo
  echo "in-process scan (go test -bench Scan ./internal/probes/):"
  go test -run '^$' -bench Scan -benchtime "${BENCHTIME:-5x}" ./internal/probes/ | grep -E '^(Benchmark|ok|FAIL)'
fi
