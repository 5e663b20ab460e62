#!/usr/bin/env bash
# Installs tsx (npm, pinned; it brings its own esbuild) into tools/tsx: the
# TypeScript loader the Node.js logpoint tests run TypeScript through
# (e2e/logpoints_node_test.go), and whose esbuild the add-time check uses.
# Idempotent: does nothing when the pinned version is there; without npm it
# only says what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

version=4.23.15
dest=tools/tsx
if [ -x "$dest/node_modules/.bin/tsx" ] && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: npm is needed for tsx (e2e/logpoints_node_test.go); skipping it" >&2
  exit 0
fi
echo "setup: installing tsx $version" >&2
rm -rf "$dest"
mkdir -p "$dest"
echo '{"private": true}' >"$dest/package.json"
npm install --prefix "$dest" --no-audit --no-fund --silent --save-exact "tsx@$version" >/dev/null
echo "$version" >"$dest/VERSION"
