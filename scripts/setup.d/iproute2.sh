#!/usr/bin/env bash
# Installs iproute2 (the ip command) for e2e/otlp_test.go's multi-host test,
# which makes two network namespaces, a bridge and veth pairs of its own.
# Idempotent: does nothing when ip is on PATH; without root it only says
# what to install.
set -euo pipefail

if command -v ip >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup: missing ip (for e2e/otlp_test.go); install it (sudo apt-get install iproute2) or run as root" >&2
  exit 0
fi
echo "setup: installing iproute2" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends iproute2 >/dev/null
