#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/) for SECONDS each (default 30) on the nightly
# toolchain, starting from the committed seeds (fuzz/seeds/<target>/); what libFuzzer learns goes
# to a corpus in the cache, never into the clone. A crash, a hang (20 s) or an out-of-memory
# fails the script; the input is in fuzz/artifacts/<target>/ (turn it into a regression test).
# cargo-fuzz is installed into the cache once.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-30}"
shift || true
cache="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}"
source scripts/cargo-tool.sh
cargo_tool cargo-fuzz 0.13.2 cargo-fuzz
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "[fuzz.sh] cargo fuzz needs the nightly toolchain (rustup toolchain install nightly)" >&2
  exit 1
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list --fuzz-dir fuzz)
fi
# Built outside the clone, so a later clone (CI) reuses the instrumented build.
target_dir="$cache/fuzz-target"
cargo +nightly fuzz build -O --fuzz-dir fuzz --target-dir "$target_dir" >&2
failed=()
for target in "${targets[@]}"; do
  corpus="$cache/fuzz-corpus/$target"
  log="$cache/fuzz-logs/$target.log"
  mkdir -p "$corpus" "$(dirname "$log")"
  rm -rf "fuzz/artifacts/$target"
  echo "[fuzz.sh] $target for ${seconds}s" >&2
  status=0
  cargo +nightly fuzz run -O --fuzz-dir fuzz --target-dir "$target_dir" "$target" "$corpus" "fuzz/seeds/$target" -- \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    > "$log" 2>&1 || status=$?
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+\s+DONE' "$log" | sed "s/^/  $target: /" >&2 || true
  if [ "$status" -ne 0 ]; then
    echo "[fuzz.sh] $target FAILED (exit $status); the end of its log ($log):" >&2
    tail -n 40 "$log" >&2
    failed+=("$target")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "[fuzz.sh] failed: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
  exit 1
fi
echo "[fuzz.sh] every target ran ${seconds}s without a crash" >&2
