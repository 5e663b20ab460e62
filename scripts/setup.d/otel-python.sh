#!/usr/bin/env bash
# Installs the OpenTelemetry Python SDK and its OTLP/HTTP exporter (PyPI,
# pinned) into a virtual environment at tools/otel-python, for
# e2e/otlp_test.go (a Python program exporting logs and traces to a
# session's OTLP Endpoint). Idempotent: does nothing when the pinned
# versions are there; without python3 it only says what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

version=1.45.2
dest=tools/otel-python
if [ -x "$dest/bin/python" ] && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1; then
  echo "setup: python3 with venv is needed for the OpenTelemetry Python SDK (e2e/otlp_test.go); skipping it" >&2
  exit 0
fi
echo "setup: installing opentelemetry-sdk $version and opentelemetry-exporter-otlp-proto-http $version" >&2
rm -rf "$dest"
if ! python3 -m venv "$dest" >/dev/null 2>&1; then
  # Debian's python3 needs python3-venv (ensurepip) for a virtual environment.
  rm -rf "$dest"
  if [ "$(id -u)" != 0 ]; then
    echo "setup: python3 cannot make a virtual environment; install python3-venv (sudo apt-get install python3-venv)" >&2
    exit 0
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
  python3 -m venv "$dest"
fi
"$dest/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  "opentelemetry-sdk==$version" "opentelemetry-exporter-otlp-proto-http==$version" >/dev/null
echo "$version" >"$dest/VERSION"
