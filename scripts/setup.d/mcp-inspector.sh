#!/usr/bin/env bash
# Installs the MCP Inspector (npm, pinned) into tools/node_modules for
# e2e/mcp_test.go: a real MCP client, outside this project's code, that lists
# debug-mode's tools and calls them over stdio (`mcp-inspector --cli`).
# Idempotent: does nothing when the pinned version is already there; without
# npm it only says what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

version=2.12.0
installed=tools/node_modules/@modelcontextprotocol/inspector/package.json
if [ -x tools/node_modules/.bin/mcp-inspector ] && [ -f "$installed" ] &&
  grep -q "\"version\": \"$version\"" "$installed"; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: npm is needed for the MCP Inspector (e2e/mcp_test.go); skipping it" >&2
  exit 0
fi
echo "setup: installing @modelcontextprotocol/inspector $version" >&2
mkdir -p tools
# --ignore-scripts: its one install script does nothing in a dependency. It
# asks for Node 22; its CLI mode, all the test uses, runs on Node 20 too.
npm install --prefix tools --no-audit --no-fund --silent --ignore-scripts --save-exact \
  "@modelcontextprotocol/inspector@$version" >/dev/null 2>&1
