#!/usr/bin/env bash
# Installs what the tests and the demo need, idempotently. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v curl >/dev/null || need_apt+=(curl)
command -v python3 >/dev/null || need_apt+=(python3)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install: ${need_apt[*]}" >&2
    exit 1
  fi
fi
go mod download
