//! `#[gate]`, `#[gate_turn]`, `#[gate_skill]` and `#[after_tool_call]` inside an `#[agent]` block
//! and on free functions, with and without the context, sync and async.

use agents_kt::prelude::*;
use agents_kt_tests::Log;
use serde_json::{Value, json};

pub struct Files {
    log: Log<String>,
}

#[agent]
impl Files {
    /// Writes a file.
    #[tool]
    fn write(&self, path: String) -> String {
        self.log.push(format!("wrote {path}"));
        format!("wrote {path}")
    }

    /// Relative paths resolve under /etc (a rewrite that makes the check matter).
    #[before_tool_call(write)]
    fn resolve(&self, args: &WriteArgs) -> Decision<WriteArgs, String> {
        match args.path.strip_prefix("./") {
            Some(rest) => Decision::ProceedWith(WriteArgs {
                path: format!("/etc/{rest}"),
            }),
            None => Decision::Proceed,
        }
    }

    /// Sees the rewritten path; async, and reads the context across an await.
    #[gate(write)]
    async fn not_etc(&self, args: &WriteArgs, ctx: &InterceptContext) -> Verdict {
        tokio::task::yield_now().await;
        self.log
            .push(format!("gate {} in {}", args.path, ctx.ids().session_id));
        if args.path.starts_with("/etc/") {
            Verdict::deny("not /etc")
        } else {
            Verdict::Allow
        }
    }

    #[gate]
    fn any_tool(&self, name: &str, _args: &Value) -> Verdict {
        self.log.push(format!("any gate {name}"));
        Verdict::Allow
    }

    #[gate_turn]
    fn turns(&self, messages: &[Message]) -> Verdict {
        self.log.push(format!("turn gate {}", messages.len()));
        Verdict::Allow
    }

    #[gate_skill]
    fn skills(&self, skill: &str, ctx: &InterceptContext) -> Result<Verdict, String> {
        self.log.push(format!("skill gate {skill} {}", ctx.agent()));
        Ok(Verdict::Allow)
    }

    #[after_tool_call(write)]
    fn shout(&self, out: &String) -> Decision<String, String> {
        Decision::ProceedWith(out.to_uppercase())
    }

    #[after_tool_call]
    fn audit(&self, name: &str, args: &Value, result: &Value) -> Decision<Value, Value> {
        self.log.push(format!("after {name} {args} {result}"));
        Decision::Proceed
    }
}

#[tokio::test]
async fn agent_block_gates_and_after_interceptors_guard_and_clean_in_source_order() {
    let log = Log::new();
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("write", json!({"path": "./passwd"})),
            ("write", json!({"path": "/tmp/ok"})),
        ]),
        Reply::text("done"),
    ]);
    let decisions = Log::<String>::new();
    let names = decisions.clone();
    let agent: Agent<String, String> = Files { log: log.clone() }
        .agent_builder("files")
        .model(model.clone())
        .on_interceptor_decision(move |d| {
            names.push(format!("{} {} {}", d.stage, d.name, d.decision))
        })
        .build()
        .unwrap();
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    assert_eq!(
        log.entries(),
        [
            "skill gate default files",
            "turn gate 1",
            "gate /etc/passwd in files/run-1",
            "any gate write",
            "gate /tmp/ok in files/run-1",
            "any gate write",
            "wrote /tmp/ok",
            r#"after write {"path":"/tmp/ok"} "WROTE /TMP/OK""#,
            "turn gate 4",
        ]
    );
    let tool_messages: Vec<String> = model.requests()[1]
        .messages
        .iter()
        .filter(|m| m.tool_call_id.is_some())
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(
        tool_messages,
        [
            "ERROR: Tool 'write' denied by policy: not /etc",
            "WROTE /TMP/OK"
        ]
    );
    assert_eq!(
        decisions.entries(),
        [
            "interceptor resolve ProceedWith",
            "gate not_etc Deny",
            "interceptor shout ProceedWith",
        ]
    );
}

/// Fetches a page.
#[tool]
fn fetch(url: String) -> String {
    format!("page {url} key=sk-1")
}

#[after_tool_call(fetch)]
async fn redact(page: &String, ctx: &InterceptContext) -> Decision<String, String> {
    tokio::task::yield_now().await;
    let _ = ctx.tool_call_id();
    Decision::ProceedWith(page.replace("sk-1", "[redacted]"))
}

#[gate_turn]
fn small_prompts(messages: &[Message]) -> Verdict {
    if messages.len() > 10 {
        Verdict::deny("too long")
    } else {
        Verdict::Allow
    }
}

#[tokio::test]
async fn free_function_gates_and_after_interceptors_register_by_name() {
    let model = ScriptedModel::new([
        Reply::tool_call("fetch", json!({"url": "u"})),
        Reply::text("done"),
    ]);
    let agent: Agent<String, String> = Agent::builder("web")
        .model(model.clone())
        .tool(Fetch)
        .after_tool_call::<Fetch, _>(redact)
        .gate_turn(small_prompts)
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    assert_eq!(
        agents_kt_tests::last_message(&model, 1),
        "page u key=[redacted]"
    );
}
