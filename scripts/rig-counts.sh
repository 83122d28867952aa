#!/usr/bin/env bash
# Instructions per run of the comparison with rig (rig-comparison/benches/rig_counts.rs), counted by
# valgrind's callgrind like scripts/call-counts.sh: each side at 0 and 8 proceeding hooks, at two
# run counts; the difference over the difference in runs is one run. Prints what 8 hooks add to a
# run on each side and their ratio (the goal: ours ≤ 0.5× rig's).
# Usage: scripts/rig-counts.sh   (builds into the cache's rig target, outside the workspace)
set -euo pipefail
cd "$(dirname "$0")/.."

target="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}/rig-target"
mkdir -p "$target"
command -v valgrind >/dev/null || { echo "[rig-counts] needs valgrind" >&2; exit 1; }
CARGO_TARGET_DIR="$target" cargo bench --manifest-path rig-comparison/Cargo.toml \
  --bench rig_counts --no-run --message-format=json 2>/dev/null >"$target/rig_counts.json"
driver="$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "rig_counts" and m.get("executable"):
        print(m["executable"])
' "$target/rig_counts.json" | tail -1)"
[ -x "$driver" ] || { echo "[rig-counts] the driver did not build" >&2; exit 1; }

count() { # SIDE HOOKS RUNS -> total instructions
  local out
  out="$(mktemp)"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$driver" "$1" "$2" "$3" >/dev/null 2>&1
  awk '/^summary:/ {print $2}' "$out"
  rm -f "$out"
}
per_run() { # SIDE HOOKS -> instructions per run
  local a b
  a="$(count "$1" "$2" 10)"
  b="$(count "$1" "$2" 40)"
  echo $(( (b - a) / 30 ))
}
rig0="$(per_run rig 0)"; rig8="$(per_run rig 8)"
ours0="$(per_run ours 0)"; ours8="$(per_run ours 8)"
printf '%-44s %12s %12s\n' "instructions per run (prompt, 1 tool call)" "rig-agent" "agents-kt"
printf '%-44s %12s %12s\n' "0 hooks" "$rig0" "$ours0"
printf '%-44s %12s %12s\n' "8 proceeding hooks" "$rig8" "$ours8"
printf '%-44s %12s %12s\n' "what 8 hooks add" "$((rig8 - rig0))" "$((ours8 - ours0))"
python3 -c "import sys; r, o = int(sys.argv[1]), int(sys.argv[2]); print(f'ours / rig, what 8 hooks add: {o / r:.2f}x (goal <= 0.5x)')" \
  "$((rig8 - rig0))" "$((ours8 - ours0))"
