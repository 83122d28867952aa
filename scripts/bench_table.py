#!/usr/bin/env python3
"""BENCHMARKS.md's current table, from one run of scripts/bench.sh: criterion's last estimates
(target/criterion/**/new/) and the compile-time bench's result (target/compile-time-bench/
result.json). Each row compares a measure with its baseline from the same run and says whether the
target is met. A measure that did not run is shown as such, never guessed."""

import argparse
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CRITERION = ROOT / "target" / "criterion"
COMPILE_TIME = ROOT / "target" / "compile-time-bench" / "result.json"
TURNS = 50


def estimates():
    """Mean time in ns of every bench criterion ran, by 'group/function'."""
    found = {}
    for bench in CRITERION.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        # The figure criterion prints: the slope of time over iterations when it fitted one.
        estimate = (estimates.get("slope") or estimates["mean"])["point_estimate"]
        found[f"{meta['group_id']}/{meta['function_id']}"] = estimate
    return found


def ns(value):
    if value >= 1e6:
        return f"{value / 1e6:.2f} ms"
    if value >= 1e3:
        return f"{value / 1e3:.1f} µs"
    return f"{value:.1f} ns"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--allocations", default="not run")
    args = parser.parse_args()
    times = estimates()
    rows = []

    def row(measure, baseline_name, baseline, ours, result, target, met):
        rows.append((measure, baseline_name, baseline, ours, result, target, met))

    def pair(measure, group, base, mine, how, target, check, baseline_name=None):
        base_t, mine_t = times.get(f"{group}/{base}"), times.get(f"{group}/{mine}")
        if base_t is None or mine_t is None:
            row(measure, baseline_name or base, "—", "—", "not run", target, "—")
            return
        if how == "over":
            result, value = f"+{ns(mine_t - base_t)}", mine_t - base_t
        elif how == "ratio":
            result, value = f"{mine_t / base_t:.2f}×", mine_t / base_t
        elif how == "per_turn":
            value = (mine_t - base_t) / TURNS
            result = f"{ns(value)}/turn"
        elif how == "rate":
            value = base_t / mine_t
            result = f"{value:.2f}× the baseline's rate"
        else:
            raise ValueError(how)
        met = "—" if check is None else ("**yes**" if check(value) else "**no**")
        row(measure, baseline_name or base, ns(base_t), ns(mine_t), result, target, met)

    direct = "direct tool call (baseline)"
    pair("typed call, 0 interceptors, over a direct call", "typed_call", direct,
         "agents-kt, 0 Proceed interceptors", "over", "≤ +10 ns", lambda v: v <= 10)
    pair("typed call, 8 sync Proceed, `#[agent]` compile-time chain, over a direct call",
         "typed_call", direct, "agents-kt, 8 Proceed interceptors, compile-time chain", "over",
         "≤ +20 ns", lambda v: v <= 20)
    pair("same, against tower's 8 static layers", "typed_call", "tower, 8 layers",
         "agents-kt, 8 Proceed interceptors, compile-time chain", "ratio", "≤ 1.5×",
         lambda v: v <= 1.5)
    pair("typed call, 8 sync Proceed, builder-registered (run-time links), over a direct call",
         "typed_call", direct, "agents-kt, 8 Proceed interceptors", "over", "≤ +60 ns",
         lambda v: v <= 60)
    pair("JSON dispatch through 8 interceptors (compile-time chain), against serde_json alone",
         "dispatch_json", "serde_json parse + serialize alone (baseline)",
         "agents-kt, text → Args → 8 interceptors (compile-time chain) → tool → text", "ratio",
         "≤ 1.3×", lambda v: v <= 1.3)
    pair("JSON dispatch through 8 interceptors (run-time links), against serde_json alone",
         "dispatch_json", "serde_json parse + serialize alone (baseline)",
         "agents-kt, text → Args → 8 interceptors → tool → text", "ratio", "≤ 1.3×",
         lambda v: v <= 1.3)
    pair("agent loop, 50 turns × 2 tools, run path, per turn", "agent_loop_50_turns",
         "scripted model alone (baseline: its 50 replies)", "run path", "per_turn", "≤ 2 µs/turn",
         lambda v: v <= 2000)
    pair("agent loop, 50 turns × 2 tools, session path, per turn", "agent_loop_50_turns",
         "scripted model alone, streamed (baseline for the session path)", "session path",
         "per_turn", "≤ 3 µs/turn", lambda v: v <= 3000)
    pair("OTel: a turn exported (no-op exporter) over nobody listening",
         "traced_agent_loop_50_turns", "nobody listens (baseline)",
         "otel layer, no-op exporter, SDK metrics", "per_turn", "≤ 5 µs/turn",
         lambda v: v <= 5000)
    pair("MCP `tools/call`, 32 in flight, McpServer + 8 interceptors against a bare rmcp server",
         "mcp_tools_call", "32 calls in flight, bare rmcp server (baseline)",
         "32 calls in flight, agents-kt McpServer, 8 interceptors", "rate", "≥ 0.9×",
         lambda v: v >= 0.9)
    pair("A2A `SendMessage` (blocking, one tool call), A2aServer + 8 interceptors against a bare "
         "a2a-server-lf handler running the same agent", "a2a_send_message",
         "bare a2a-server-lf handler running the agent (baseline)",
         "agents-kt A2aServer, 8 interceptors", "rate", "≥ 0.9×", lambda v: v >= 0.9)
    pair("A2A client: `A2aAgent::send` over a bare POST of the same request", "a2a_client",
         "bare POST of SendStreamingMessage (baseline)", "A2aAgent::send", "over", "≤ +0.2 ms",
         lambda v: v <= 200_000)
    pair("one sub-agent call, over a tool that runs the child directly", "sub_agent_call",
         "baseline: a tool that runs the child directly", "sub_agent (linked run)", "over", "—",
         None)
    pair("a remembered turn (20 stored messages), over no store", "memory_turn",
         "baseline: run without a store", "run_in (InMemoryStore, 20 stored messages)", "over",
         "—", None)

    # Against rig (rig-comparison/, a crate of its own): what 8 hooks that let a tool call through
    # add to a run, ours against rig's, each over its own run without hooks.
    rig = {n: times.get(f"against_rig/rig, {n} proceeding hooks") for n in (0, 8)}
    ours = {n: times.get(f"against_rig/agents-kt, {n} proceeding interceptors") for n in (0, 8)}
    if None in rig.values() or None in ours.values():
        row("against rig: what 8 proceeding hooks add to a run with one tool call", "rig-agent",
            "—", "—", "not run", "≤ 0.5× rig's", "—")
    else:
        added = {"rig": rig[8] - rig[0], "ours": ours[8] - ours[0]}
        ratio = added["ours"] / added["rig"] if added["rig"] > 0 else float("inf")
        row("against rig: what 8 proceeding hooks add to a run with one tool call",
            "rig-agent 0.44, 8 `on_dispatch` hooks", f"+{ns(added['rig'])}",
            f"+{ns(added['ours'])}", f"{ratio:.2f}×", "≤ 0.5× rig's",
            "**yes**" if ratio <= 0.5 else "**no**")
        row("against rig: the whole run (prompt, one tool call, answer), no hooks",
            "rig-agent 0.44", ns(rig[0]), ns(ours[0]), f"{ours[0] / rig[0]:.2f}×", "—", "—")

    if COMPILE_TIME.exists():
        ct = json.loads(COMPILE_TIME.read_text())
        ratio = ct["ours_s"] / ct["rmcp_s"]
        row(f"{ct['tools']} `#[tool]`s, generated crate alone, deps prebuilt, median of "
            f"{ct['rounds']}", "rmcp's `#[tool]`/`#[tool_router]`", f"{ct['rmcp_s']:.2f} s",
            f"{ct['ours_s']:.2f} s", f"{ratio:.2f}×", "≤ 1.5×",
            "**yes**" if ratio <= 1.5 else "**no**")
        if ct.get("checked_s"):
            ratio = ct["checked_s"] / ct["rmcp_s"]
            row(f"{ct['tools']} `#[tool]`s, each with a typed interceptor, crate alone",
                "rmcp's `#[tool]`/`#[tool_router]`", f"{ct['rmcp_s']:.2f} s",
                f"{ct['checked_s']:.2f} s", f"{ratio:.2f}×", "≤ 2.5×",
                "**yes**" if ratio <= 2.5 else "**no**")
        if ct.get("ours_ir") and ct.get("rmcp_ir"):
            ratio = ct["ours_ir"] / ct["rmcp_ir"]
            row(f"{ct['tools']} `#[tool]`s, LLVM IR lines (`cargo llvm-lines`)", "rmcp",
                f"{ct['rmcp_ir']:,}", f"{ct['ours_ir']:,}", f"{ratio:.2f}×", "≤ 1.5×",
                "**yes**" if ratio <= 1.5 else "**no**")
        ratio = ct["ours_cold_s"] / ct["rmcp_cold_s"]
        row(f"{ct['tools']} `#[tool]`s, fully cold build, deps included (one run)", "rmcp",
            f"{ct['rmcp_cold_s']:.2f} s", f"{ct['ours_cold_s']:.2f} s", f"{ratio:.2f}×", "—", "—")
    else:
        row("200 `#[tool]`s, generated crate alone", "rmcp", "—", "—", "not run", "≤ 1.5×", "—")
    met = {"passed": "**yes** (test)", "failed": "**no** (test failed)"}.get(args.allocations, "—")
    row("allocations on the sync Proceed path; history not copied per turn",
        "—", "—", "0 allocations; flat per turn", "chain_allocations, loop_allocations",
        "0", met)

    print("| measure | baseline | baseline (same run) | ours | result | target | met? |")
    print("|---|---|---|---|---|---|---|")
    for measure, baseline_name, baseline, ours, result, target, met in rows:
        print(f"| {measure} | {baseline_name} | {baseline} | {ours} | {result} | {target} | {met} |")


if __name__ == "__main__":
    main()
