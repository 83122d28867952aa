#!/usr/bin/env bash
# The house rules of docs/architecture.md, checked with grep: lower floors never import the agent
# (top floor), the macro crate's phases run one way, and no source file holds more than 600 lines
# of code (comments, rustdoc and blank lines aside). Prints every breach; exits 1 on any.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
breach() {
  echo "architecture: $*" >&2
  status=1
}

# 1. Lower floors of the runtime crate never name agent/ — by path, or by the names the crate
#    root re-exports from it.
src=agents-kt/src
lower=(
  "$src/chain" "$src/tool" "$src/memory" "$src/model" "$src/providers" "$src/events"
  "$src/telemetry" "$src/mcp_client" "$src/intercept" "$src/policy"
  "$src/approval" "$src/budget.rs" "$src/error.rs" "$src/journal" "$src/ledger.rs" "$src/message.rs"
  "$src/observers.rs" "$src/schema_fit.rs" "$src/error_chain.rs" "$src/sqlite_file.rs"
)
agent_names='crate::agent\b|super::super::agent\b|crate::\{?[^;]*\b(Agent|AgentBuilder|AgentInput|AgentOutput|AgentSession|AgentTool|EventStream|Skill|SkillContext|SkillError|IntoSkill|ToolSet)\b'
for place in "${lower[@]}"; do
  [ -e "$place" ] || continue
  while IFS= read -r hit; do
    breach "a lower floor imports the agent: $hit"
  done < <(grep -rnHE "$agent_names" "$place" --include=*.rs | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
done

# 2. The macro crate's phases: ast, attr, naming, point, signature, valid and fallback never
#    import expand (expand reads them, never the reverse).
macros=agents-kt-macros/src
for phase in ast attr naming point signature valid fallback errors enclosing; do
  file="$macros/$phase.rs"
  [ -e "$file" ] || continue
  while IFS= read -r hit; do
    breach "$phase.rs imports a later phase: $hit"
  done < <(grep -nE 'crate::expand\b|super::expand\b' "$file" || true)
done

# 3. Files with one job: at most 600 lines of code each.
while IFS= read -r file; do
  code=$(grep -cvE '^\s*(//.*)?$' "$file" || true)
  if [ "$code" -gt 600 ]; then
    breach "$file has $code lines of code (at most 600): split it by job"
  fi
done < <(find agents-kt/src agents-kt-macros/src agents-kt-restate/src -name '*.rs')

if [ "$status" -eq 0 ]; then
  echo "architecture: floors, phases and file sizes as docs/architecture.md says"
fi
exit "$status"
