#!/usr/bin/env bash
# Installs Arize Phoenix (PyPI `arize-phoenix`, a self-hosted trace backend that receives OTLP
# over HTTP; licence Elastic 2.0, self-hosting allowed) into a virtualenv in a cache outside the
# clone, once. Prints:
#   PHOENIX=/…/bin/phoenix
# Usage: eval "$(scripts/phoenix.sh)"
set -euo pipefail

version="20.26.1"
cache="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}"
dir="$cache/phoenix-$version"

if [ ! -x "$dir/bin/phoenix" ]; then
  echo "[phoenix.sh] installing arize-phoenix $version into $dir" >&2
  rm -rf "$dir"
  python3 -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "arize-phoenix==$version" >&2
fi
echo "PHOENIX=$dir/bin/phoenix"
