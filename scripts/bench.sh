#!/usr/bin/env bash
# Runs every measure of BENCHMARKS.md's current table, each against its baseline in the same run,
# and prints that table (Markdown) to stdout and to target/bench-table.md: the criterion benches
# (typed call, JSON dispatch, agent loop, OpenTelemetry, MCP, A2A, sub-agents, against rig), the compile-time bench
# (200 tools against rmcp's macros, with LLVM IR lines from cargo-llvm-lines, installed into the
# cache once), the allocation tests, then MCP under load (benches/mcp_load.rs) and instructions
# per call under callgrind (scripts/call-counts.sh). Takes about 25 minutes on the project's 2-core VM; run it
# on an idle machine.
# Usage: scripts/bench.sh            every measure
#        BENCH_QUICK=1 scripts/bench.sh   shorter criterion runs (1 s warm-up, 3 s measurement)
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/cargo-tool.sh
cargo_tool cargo-llvm-lines 0.4.48 llvm-lines

criterion=()
if [ -n "${BENCH_QUICK:-}" ]; then
  criterion=(--warm-up-time 1 --measurement-time 3)
fi
# Criterion keeps each bench's last estimate here; the table reads them back.
rm -rf target/criterion
run() {
  echo "[bench.sh] cargo bench $*" >&2
  cargo bench --quiet -p agents-kt "$@" -- "${criterion[@]}" >&2
}
run --bench interception
run --bench otel --features otel
run --bench agents
run --bench mcp --features mcp
run --bench a2a --features a2a
# Against rig: a crate of its own (rig's dependencies stay out of the workspace), its target
# directory in the cache; its estimates land beside the others for the table.
echo "[bench.sh] against rig (rig-comparison/)" >&2
CRITERION_HOME="$PWD/target/criterion" \
  CARGO_TARGET_DIR="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}/rig-target" \
  cargo bench --quiet --manifest-path rig-comparison/Cargo.toml -- "${criterion[@]}" >&2
echo "[bench.sh] compile time (several minutes)" >&2
cargo bench --quiet -p agents-kt --bench compile_time >&2
echo "[bench.sh] allocation tests" >&2
allocations=passed
cargo test --quiet -p agents-kt-tests --test chain_allocations --test loop_allocations >&2 \
  || allocations=failed
python3 scripts/bench_table.py --allocations "$allocations" | tee target/bench-table.md
# MCP under load: 50 clients, a session each, against each server in a process of its own.
echo "[bench.sh] MCP under load (about a minute)" >&2
echo
cargo bench --quiet -p agents-kt --bench mcp_load --features mcp,openai | tee target/mcp-load.md
# Instructions per call (callgrind): the stable judge beside the times above, which a noisy VM
# moves by ±20%. Same build settings as the benches; counts repeat exactly run to run.
echo "[bench.sh] instructions per call (callgrind)" >&2
echo
echo '```'
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}" scripts/call-counts.sh "${CARGO_TARGET_DIR:-target}" \
  | tee target/call-counts.txt
echo '```'
# What 8 hooks add to a run, ours against rig's, in instructions (a rig run's time spreads more on
# this VM than its hooks add).
echo "[bench.sh] against rig, instructions per run (callgrind)" >&2
echo
echo '```'
scripts/rig-counts.sh | tee target/rig-counts.txt
echo '```'
