//! Runnable examples of agents-kt (see the `[[example]]` targets in this crate's manifest), and
//! the helpers they share.

use agents_kt::PipelineEvent;

pub mod multi_agent_tree;
pub mod telemetry_demo;

/// `Ok` when the example reached the outcome it demonstrates; otherwise an error that makes the
/// example exit non-zero, saying what was not reached.
///
/// ```
/// assert!(agents_kt_examples::ensure(true, "anything").is_ok());
/// assert!(agents_kt_examples::ensure(false, "the denial").is_err());
/// ```
pub fn ensure(condition: bool, what: &str) -> Result<(), String> {
    if condition {
        Ok(())
    } else {
        Err(format!("example outcome not reached: {what}"))
    }
}

/// One line of a run's transcript for a pipeline event (the quickstart's and the real-model
/// example's).
///
/// ```
/// let ids = agents_kt::RunIds::new("a/run-1", "a/run-1");
/// agents_kt_examples::print_event(&agents_kt::PipelineEvent::run_completed(ids));
/// ```
pub fn print_event(event: &PipelineEvent) {
    match event {
        PipelineEvent::RunStarted { ids, agent, .. } => println!("run {} of {agent}", ids.run_id),
        PipelineEvent::SkillChosen { skill, .. } => println!("skill: {skill}"),
        PipelineEvent::TurnStarted { turn, .. } => println!("-- turn {turn}: calling the model"),
        PipelineEvent::TurnCompleted { tool_calls, .. } if tool_calls.is_empty() => {
            println!("   model answered")
        }
        PipelineEvent::TurnCompleted { tool_calls, .. } => {
            for call in tool_calls {
                println!("   model asks {}({})", call.name, call.arguments);
            }
        }
        PipelineEvent::InterceptorDecision { decision: d, .. } => {
            let reason = d
                .reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            println!(
                "     decision [{} {}, {} {}] {}{reason}",
                d.point, d.target, d.stage, d.name, d.decision
            );
        }
        PipelineEvent::ToolUsed {
            tool,
            args,
            result,
            substituted,
            ..
        } => {
            let how = if *substituted { "substituted" } else { "ran" };
            println!("     tool {tool}({args}) {how} -> {result}");
        }
        PipelineEvent::ToolDenied {
            tool, args, reason, ..
        } => println!("     tool {tool}({args}) denied by policy: {reason}"),
        PipelineEvent::ToolFailed {
            tool, args, error, ..
        } => println!("     tool {tool}({args}) failed: {error}"),
        PipelineEvent::ToolRejected { tool, reason, .. } => {
            println!("     tool {tool} rejected: {reason}")
        }
        PipelineEvent::RunCompleted { .. } => println!("run completed"),
        PipelineEvent::RunFailed { error, .. } => println!("run failed: {error}"),
        other => println!("   {other:?}"),
    }
}

/// A path with `.` and `..` resolved and repeated slashes collapsed, without touching the file
/// system — one spelling per path, so a check on it cannot be dodged with `//etc`, `/tmp/../etc`
/// or `/etc/./x`. A relative path stays relative.
///
/// Its limits, which a check built on it inherits: it is **lexical** — it never asks the file
/// system, so a symbolic link inside an allowed directory that points outside it passes (keep
/// the server's own roots at least as narrow as the check); `..` at the top of a relative path
/// is dropped (`../etc` becomes `etc`, so refuse relative paths where it matters); and it knows
/// only `/` as a separator, not Windows' `\`, drive letters or percent-encoding.
///
/// ```
/// assert_eq!(agents_kt_examples::normalize_path("/tmp/../etc//passwd"), "/etc/passwd");
/// assert_eq!(agents_kt_examples::normalize_path("a/./b/../c"), "a/c");
/// ```
pub fn normalize_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if path.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}
