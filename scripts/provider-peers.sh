#!/usr/bin/env bash
# Installs the official `openai` Python client (the peer that parses the same model answers as
# our OpenAiCompatible client in tests/tests/providers_peer.rs) into a cache outside the clone,
# once. Prints:
#   OPENAI_PEER_PYTHONPATH=/…   (a pip --target directory)
# Usage: eval "$(scripts/provider-peers.sh)"
set -euo pipefail

cache="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}"
python_dir="$cache/python-openai"

if ! PYTHONPATH="$python_dir" python3 -c 'from openai.lib.streaming.chat import ChatCompletionStreamState' >/dev/null 2>&1; then
  echo "[provider-peers.sh] installing the openai Python client into $python_dir" >&2
  rm -rf "$python_dir"
  python3 -m pip install --quiet --disable-pip-version-check --target "$python_dir" "openai>=1.50,<3" >&2
fi

echo "OPENAI_PEER_PYTHONPATH=$python_dir"
