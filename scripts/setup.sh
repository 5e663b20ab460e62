#!/usr/bin/env bash
# Installs what the tests and the demo need, idempotently: Go modules, the
# language runtimes the live template tests use (Debian packages), and
# TypeScript (npm, into tools/node_modules). Safe to run again; fast when
# everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Collector build (scripts/setup.d/otelcol.sh) is CPU-bound and the rest
# mostly waits on the network, so it runs beside everything else; setup still
# fails if it fails.
bash scripts/setup.d/otelcol.sh &
collector=$!

# command → Debian package that provides it
declare -A debs=(
  [curl]=curl [python3]=python3 [jq]=jq
  [ruby]=ruby [php]=php-cli [mcs]=mono-mcs [mono]=mono-runtime [kotlinc]=kotlin
)
missing=()
for cmd in "${!debs[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${debs[$cmd]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing ${missing[*]}; install them (sudo apt-get install ${missing[*]}) or run as root" >&2
  fi
fi

# TypeScript from npm, pinned, local to the checkout.
if command -v npm >/dev/null 2>&1 && [ ! -x tools/node_modules/.bin/tsc ]; then
  echo "setup: installing typescript" >&2
  mkdir -p tools
  npm install --prefix tools --no-audit --no-fund --silent typescript@5 >/dev/null
fi

go mod download

# Extra installers, one file per concern (e.g. a current Kotlin compiler).
for extra in scripts/setup.d/*.sh; do
  case $extra in */otelcol.sh) continue ;; esac
  if [ -e "$extra" ]; then bash "$extra"; fi
done
wait "$collector"
