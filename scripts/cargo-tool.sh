# Sourced by the scripts that need a cargo subcommand from crates.io (cargo-fuzz,
# cargo-public-api, cargo-llvm-lines): installs it once, pinned and locked, into the cache —
# outside the clone, so CI and later clones reuse it — and puts it on PATH.
# Usage: source scripts/cargo-tool.sh; cargo_tool CRATE VERSION CACHE_SUBDIR
cargo_tool() {
  local crate="$1" version="$2" root="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}/$3"
  if [ ! -x "$root/bin/$crate" ]; then
    echo "[cargo-tool] installing $crate $version into $root" >&2
    cargo install --quiet --locked "$crate" --version "$version" --root "$root"
  fi
  export PATH="$root/bin:$PATH"
}
