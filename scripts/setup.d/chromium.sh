#!/usr/bin/env bash
# Installs Debian's Chromium for the browser end-to-end test (e2e/browser_test.go:
# the JavaScript HTTP helper posting cross-origin from a page to the Ingest URL).
# Idempotent: does nothing when chromium is already on PATH; without root it
# only says what to install.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup: missing chromium (for e2e/browser_test.go); install it (sudo apt-get install chromium) or run as root" >&2
  exit 0
fi
echo "setup: installing chromium" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
