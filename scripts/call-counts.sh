#!/usr/bin/env bash
# Instructions per call of the interception paths, counted by valgrind's callgrind (valgrind is on
# every machine of this project's kind; Debian's package otherwise). Each path runs twice, with
# LOW and HIGH calls; (instructions(HIGH) - instructions(LOW)) / (HIGH - LOW) is one call's count,
# set-up cancelled. Counts do not move with the machine's load: they judge a change where the
# times of a noisy VM cannot (BENCHMARKS.md).
#
# Usage: scripts/call-counts.sh [TARGET_DIR]   (default: the cache's bench target)
# To compare two commits, run it in a checkout of each with the same TARGET_DIR; a commit older
# than the driver needs agents-kt/benches/call_counts.rs and its [[bench]] entry copied in.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${1:-${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}/bench-target}"
mkdir -p "$target"
command -v valgrind >/dev/null || { echo "[call-counts] needs valgrind" >&2; exit 1; }
build() { # [CARGO ARGS...] -> the driver's path
  CARGO_TARGET_DIR="$target" cargo bench -p agents-kt --bench call_counts --no-run "$@" \
    --message-format=json 2>/dev/null >"$target/call_counts.json"
  python3 -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "call_counts" and m.get("executable"):
        print(m["executable"])
' "$target/call_counts.json" | tail -1
}
driver="$(build)"
[ -x "$driver" ] || { echo "[call-counts] the driver did not build" >&2; exit 1; }

count() { # PATH CALLS -> total instructions
  local out
  out="$(mktemp)"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$driver" "$1" "$2" >/dev/null 2>&1
  awk '/^summary:/ {print $2}' "$out"
  rm -f "$out"
}

printf '%-34s %14s\n' "path" "instr/call"
per_call() { # PATH LOW HIGH [LABEL]
  local a b
  a="$(count "$1" "$2")"
  b="$(count "$1" "$3")"
  printf '%-34s %14s\n' "${4:-$1}" "$(( (b - a) / ($3 - $2) ))"
}
for path in direct typed_0 typed_8 typed_8_compile_time json_8 json_8_compile_time \
  loop_50_turns loop_50_turns_json_interceptor loop_50_turns_session depth2_gates_on_child depth2_gates_inherited \
  one_turn one_turn_remembered child_by_tool child_by_sub_agent; do
  case "$path" in
    loop_*) per_call "$path" 4 12 ;;
    depth2_* | child_*) per_call "$path" 20 80 ;;
    one_turn*) per_call "$path" 20 60 ;;
    *) per_call "$path" 10000 40000 ;;
  esac
done
# One turn of a run at two lengths of history (each turn adds a tool call and its result):
# flat when a turn costs the same however long the conversation.
for path in turns turns_journaled; do
  per_call "$path" 6 14 "$path at turn 10"
  per_call "$path" 196 204 "$path at turn 200"
done
# The same turn with its call behind 8 JSON interceptors that proceed (rig's comparison's path).
per_call turns_8_dynamic 6 14 "turns_8_dynamic at turn 10"
# MCP tools/call in process, 32 in flight, client included: a bare rmcp server, then McpServer
# with 8 interceptors (the mcp bench's row, in instructions).
per_call mcp_in_process_bare 320 1280
per_call mcp_in_process 320 1280
# A turn under the OpenTelemetry layer (no-op exporter) over the same turn with nobody listening,
# both from a build with `otel` on (the feature changes the run path's code).
driver="$(build --features otel)"
[ -x "$driver" ] || { echo "[call-counts] the otel driver did not build" >&2; exit 1; }
plain="$(( ($(count loop_50_turns 6) - $(count loop_50_turns 2)) / 4 ))"
traced="$(( ($(count loop_50_turns_otel 6) - $(count loop_50_turns_otel 2)) / 4 ))"
printf '%-34s %14s\n' "loop_50_turns (otel build)" "$plain"
printf '%-34s %14s\n' "loop_50_turns_otel" "$traced"
printf '%-34s %14s\n' "otel per turn (difference / 50)" "$(( (traced - plain) / 50 ))"
