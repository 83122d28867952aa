#!/usr/bin/env bash
# Installs the Restate server (the npm package @restatedev/restate-server's Linux x64 binary,
# 1.7.x; licence BSL 1.1, self-hosting allowed) into a cache outside the clone, once. Prints:
#   RESTATE_SERVER=/…/restate-server
# Usage: eval "$(scripts/restate-server.sh)"
set -euo pipefail

version="1.7.12"
cache="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}"
dir="$cache/restate-$version"
binary="$dir/node_modules/@restatedev/restate-server-linux-x64/bin/restate-server"

if [ ! -x "$binary" ]; then
  echo "[restate-server.sh] installing restate-server $version into $dir" >&2
  mkdir -p "$dir"
  npm install --silent --no-audit --no-fund --prefix "$dir" \
    "@restatedev/restate-server-linux-x64@$version" >&2
fi
if [ ! -x "$binary" ]; then
  found="$(find "$dir/node_modules/@restatedev" -type f -name 'restate-server' -perm -u+x | head -n1)"
  [ -n "$found" ] || { echo "[restate-server.sh] no restate-server binary under $dir" >&2; exit 1; }
  binary="$found"
fi
echo "RESTATE_SERVER=$binary"
