#!/usr/bin/env bash
# The whole test suite, with what it needs: a real llama-server and its model, real MCP clients,
# the official A2A Python SDK, a Restate server, an Arize Phoenix trace backend and the official openai Python client (built
# or installed once into a cache outside the clone), then `cargo test --workspace`.
set -euo pipefail
cd "$(dirname "$0")/.."

eval "$(scripts/llama-server.sh)"
export LLAMA_SERVER LLAMA_MODEL
export AGENTS_KT_REQUIRE_LLAMA=1
eval "$(scripts/mcp-clients.sh)"
export MCP_PYTHONPATH MCP_NODE_DIR
export AGENTS_KT_REQUIRE_MCP_CLIENTS=1
eval "$(scripts/a2a-peers.sh)"
export A2A_PYTHONPATH A2A_NODE_DIR
export AGENTS_KT_REQUIRE_A2A=1
eval "$(scripts/restate-server.sh)"
export RESTATE_SERVER
export AGENTS_KT_REQUIRE_RESTATE=1
eval "$(scripts/phoenix.sh)"
export PHOENIX
export AGENTS_KT_REQUIRE_PHOENIX=1
eval "$(scripts/provider-peers.sh)"
export OPENAI_PEER_PYTHONPATH
export AGENTS_KT_REQUIRE_PEERS=1
echo "llama-server: $("$LLAMA_SERVER" --version 2>&1 | grep -m1 -i version || true)"
cargo test --workspace
