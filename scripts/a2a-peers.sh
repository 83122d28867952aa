#!/usr/bin/env bash
# Installs the real A2A peers the tests drive — the official Python SDK (PyPI `a2a-sdk` 1.x, with
# its HTTP server extras, and uvicorn to serve its Starlette app) — into a cache outside the
# clone, once (about 45 s, 60 MB). Prints:
#   A2A_PYTHONPATH=/…   (a pip --target directory)
# Usage: eval "$(scripts/a2a-peers.sh)"
set -euo pipefail

cache="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}"
python_dir="$cache/a2a-python"

if ! PYTHONPATH="$python_dir" python3 -c 'import a2a.client, httpx, uvicorn' >/dev/null 2>&1; then
  echo "[a2a-peers.sh] installing the Python A2A SDK into $python_dir" >&2
  rm -rf "$python_dir"
  python3 -m pip install --quiet --disable-pip-version-check --target "$python_dir" \
    "a2a-sdk[http-server]>=1.3,<2" "uvicorn>=0.30,<1" >&2
fi

echo "A2A_PYTHONPATH=$python_dir"
