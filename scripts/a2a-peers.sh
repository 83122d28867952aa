#!/usr/bin/env bash
# Installs the real A2A peers the tests drive — the official Python SDK (PyPI `a2a-sdk` 1.x, with
# its HTTP server extras, and uvicorn to serve its Starlette app) — into a cache outside the
# clone, once (about 45 s, 60 MB) — and the official JavaScript SDK (npm `@a2a-js/sdk` 1.x, with
# Express for its server; about 10 s, 72 packages). Prints:
#   A2A_PYTHONPATH=/…   (a pip --target directory)
#   A2A_NODE_DIR=/…     (holds node_modules)
# Usage: eval "$(scripts/a2a-peers.sh)"
set -euo pipefail

cache="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}"
python_dir="$cache/a2a-python"
node_dir="$cache/a2a-node"

if ! PYTHONPATH="$python_dir" python3 -c 'import a2a.client, httpx, uvicorn' >/dev/null 2>&1; then
  echo "[a2a-peers.sh] installing the Python A2A SDK into $python_dir" >&2
  rm -rf "$python_dir"
  python3 -m pip install --quiet --disable-pip-version-check --target "$python_dir" \
    "a2a-sdk[http-server]>=1.3,<2" "uvicorn>=0.30,<1" >&2
fi

if [ ! -f "$node_dir/node_modules/@a2a-js/sdk/package.json" ] \
  || [ ! -f "$node_dir/node_modules/express/package.json" ]; then
  echo "[a2a-peers.sh] installing the JavaScript A2A SDK into $node_dir" >&2
  mkdir -p "$node_dir"
  npm install --silent --no-audit --no-fund --prefix "$node_dir" \
    "@a2a-js/sdk@>=1.3 <2" "express@4" >&2
fi

echo "A2A_PYTHONPATH=$python_dir"
echo "A2A_NODE_DIR=$node_dir"
