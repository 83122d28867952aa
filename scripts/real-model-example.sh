#!/usr/bin/env bash
# Runs `examples/real_model_tools.rs` against a real model in one command: the cached llama-server
# and SmolLM2-135M (built or fetched once by scripts/llama-server.sh), started on a free loopback
# port with the tool-call chat template the tests use, greedy sampling, and tool_choice=required.
# Usage: scripts/real-model-example.sh ["your question"]
set -euo pipefail
cd "$(dirname "$0")/.."

eval "$(scripts/llama-server.sh)"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$LLAMA_SERVER" -m "$LLAMA_MODEL" --host 127.0.0.1 --port "$port" --ctx-size 2048 --temp 0 \
  --chat-template-file tests/fixtures/llama-tools.jinja >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 240); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 0.5
done
OPENAI_BASE_URL="http://127.0.0.1:$port/v1" AGENTS_KT_MODEL=smollm2 AGENTS_KT_TOOL_CHOICE=required \
  cargo run --quiet --example real_model_tools -- "$@"
