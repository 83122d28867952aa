#!/usr/bin/env bash
# The whole test suite, with what it needs: a real llama-server and its model (built and fetched
# once into a cache outside the clone), then `cargo test --workspace`.
set -euo pipefail
cd "$(dirname "$0")/.."

eval "$(scripts/llama-server.sh)"
export LLAMA_SERVER LLAMA_MODEL
export AGENTS_KT_REQUIRE_LLAMA=1
echo "llama-server: $("$LLAMA_SERVER" --version 2>&1 | grep -m1 -i version || true)"
cargo test --workspace
