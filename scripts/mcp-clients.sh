#!/usr/bin/env bash
# Installs the real MCP peers the tests drive — the PyPI package `mcp` (1.x: a client, and the
# FastMCP server framework), the npm package @modelcontextprotocol/sdk (1.x), and the npm servers
# @modelcontextprotocol/server-filesystem and @modelcontextprotocol/server-everything, and the
# official conformance suite @modelcontextprotocol/conformance — into a cache outside the clone,
# once. Prints:
#   MCP_PYTHONPATH=/…   (a pip --target directory)
#   MCP_NODE_DIR=/…     (holds node_modules)
# Usage: eval "$(scripts/mcp-clients.sh)"
set -euo pipefail

cache="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}"
python_dir="$cache/python"
node_dir="$cache/node"

if ! PYTHONPATH="$python_dir" python3 -c 'import mcp, mcp.client.stdio' >/dev/null 2>&1; then
  echo "[mcp-clients.sh] installing the Python MCP client into $python_dir" >&2
  rm -rf "$python_dir"
  python3 -m pip install --quiet --disable-pip-version-check --target "$python_dir" "mcp>=1.20,<2" >&2
fi
if [ ! -f "$node_dir/node_modules/@modelcontextprotocol/sdk/package.json" ] \
  || [ ! -f "$node_dir/node_modules/@modelcontextprotocol/server-filesystem/package.json" ] \
  || [ ! -f "$node_dir/node_modules/@modelcontextprotocol/server-everything/package.json" ] \
  || ! grep -q '"version": "0.1.13"' \
    "$node_dir/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  echo "[mcp-clients.sh] installing the npm MCP SDK, the filesystem and everything servers and the conformance suite into $node_dir" >&2
  mkdir -p "$node_dir"
  npm install --silent --no-audit --no-fund --prefix "$node_dir" \
    "@modelcontextprotocol/sdk@1" "@modelcontextprotocol/server-filesystem@2026" \
    "@modelcontextprotocol/server-everything@2026" "@modelcontextprotocol/conformance@0.1.13" >&2
fi

echo "MCP_PYTHONPATH=$python_dir"
echo "MCP_NODE_DIR=$node_dir"
