//! Typed bindings of remote MCP tools (`remote_tool!` + `McpToolset::bind`) against a real
//! FastMCP server (`tests/mcp-servers/ledger_server.py`): typed interceptors, gates and
//! after-interceptors guard the remote tool with compiler-checked decisions — a rewrite is what the
//! server receives, a denial never reaches it (its call log proves it), a substitute stands in for
//! it — on `run` and `session` and from code skills; and a binding that does not fit the server's
//! input schema is refused at bind time, naming the property.
//!
//! Needs `MCP_PYTHONPATH` (`eval "$(scripts/mcp-clients.sh)"`, which `scripts/test.sh` runs);
//! `AGENTS_KT_REQUIRE_MCP_CLIENTS=1` makes its absence a failure.

use agents_kt::prelude::*;
use agents_kt::{AgentError, BuildError, Role};
use agents_kt_tests::ledger::{ledger, python_path, received};
use agents_kt_tests::{PATHS, drive};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The ledger's `transfer` arguments.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct TransferArgs {
    pub source: String,
    pub target: String,
    pub cents: i64,
}

/// What the ledger's `transfer` answers.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Moved {
    pub moved: i64,
    pub from: String,
    pub to: String,
}

agents_kt::remote_tool! {
    /// The ledger's `transfer`, typed.
    pub struct Transfer("transfer"): TransferArgs => Moved;
}

/// The ledger's `balance` arguments.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct BalanceArgs {
    pub account: String,
}

/// FastMCP sends a function's plain return value as structured content `{"result": …}`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Wrapped {
    pub result: String,
}

agents_kt::remote_tool! {
    /// The ledger's `balance`, typed.
    pub struct Balance("balance"): BalanceArgs => Wrapped;
}

/// Large transfers are capped: the server receives the rewrite.
#[before_tool_call(Transfer)]
fn cap_transfers(args: &TransferArgs) -> Decision<TransferArgs, Moved> {
    if args.cents > 10_000 {
        Decision::ProceedWith(TransferArgs {
            cents: 10_000,
            ..args.clone()
        })
    } else {
        Decision::Proceed
    }
}

/// Nothing goes to mallory, whatever an interceptor rewrote.
#[gate(Transfer)]
fn no_mallory(args: &TransferArgs) -> Verdict {
    if args.target == "mallory" {
        Verdict::deny("mallory is blocked")
    } else {
        Verdict::Allow
    }
}

/// Frozen accounts are answered here: the server is not asked.
#[before_tool_call(Balance)]
fn frozen(args: &BalanceArgs) -> Decision<BalanceArgs, Wrapped> {
    if args.account == "frozen" {
        Decision::Substitute(Wrapped {
            result: "frozen: 0.00 USD".into(),
        })
    } else {
        Decision::Proceed
    }
}

/// The model never sees where money came from.
#[after_tool_call(Transfer)]
fn hide_source(out: &Moved) -> Decision<Moved, Moved> {
    Decision::ProceedWith(Moved {
        from: "***".into(),
        ..out.clone()
    })
}

#[tokio::test]
async fn typed_interceptors_gates_and_after_interceptors_guard_a_bound_remote_tool_on_both_paths() {
    let Some(python_path) = python_path() else {
        return;
    };
    for path in PATHS {
        let (set, calls) = ledger(&python_path).await;
        let set = set
            .bind::<Transfer>()
            .and_then(|set| set.bind::<Balance>())
            .expect("the bindings fit the server's schemas");
        let model = ScriptedModel::new([
            Reply::tool_calls([
                (
                    "transfer",
                    json!({"source": "acc-1", "target": "acc-2", "cents": 900_000}),
                ),
                (
                    "transfer",
                    json!({"source": "acc-1", "target": "mallory", "cents": 5}),
                ),
                ("balance", json!({"account": "frozen"})),
                ("balance", json!({"account": "acc-1"})),
            ]),
            Reply::text("done"),
        ]);
        let agent = Agent::<String, String>::builder("bank")
            .model(model.clone())
            .toolset(set)
            .before_tool_call(cap_transfers)
            .gate_tool_call(no_mallory)
            .before_tool_call(frozen)
            .after_tool_call::<Transfer, _>(hide_source)
            .build()
            .unwrap();
        let (output, _) = drive(&agent, "pay", path).await;
        assert_eq!(output.unwrap(), "done", "{path:?}");

        let received = received(&calls);
        assert_eq!(
            received,
            [
                json!({"tool": "transfer", "arguments": {"source": "acc-1", "target": "acc-2", "cents": 10_000}}),
                json!({"tool": "balance", "arguments": {"account": "acc-1"}}),
            ],
            "{path:?}: the rewrite reached the server; the denial and the substitute did not"
        );
        let told: Vec<String> = model.requests()[1]
            .messages
            .iter()
            .filter(|m| m.role == Role::Tool)
            .map(|m| m.content.clone())
            .collect();
        let moved: Moved = serde_json::from_str(&told[0]).expect("the typed result");
        assert_eq!(
            moved,
            Moved {
                moved: 10_000,
                from: "***".into(),
                to: "acc-2".into()
            },
            "{path:?}"
        );
        assert_eq!(
            told[1],
            "ERROR: Tool 'transfer' denied by policy: mallory is blocked"
        );
        assert_eq!(
            serde_json::from_str::<Value>(&told[2]).unwrap(),
            json!({"result": "frozen: 0.00 USD"})
        );
        assert_eq!(
            serde_json::from_str::<Value>(&told[3]).unwrap(),
            json!({"result": "acc-1: 100.00 USD"})
        );
    }
}

#[tokio::test]
async fn a_code_skill_calls_a_bound_remote_tool_with_typed_arguments_through_its_gate() {
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, calls) = ledger(&python_path).await;
    let agent = Agent::<String, String>::builder("bank")
        .toolset(set.bind::<Transfer>().unwrap())
        .gate_tool_call(no_mallory)
        .skill(Skill::code(
            "pay",
            |_: String, ctx: SkillContext<String>| async move {
                let moved: Moved = ctx
                    .call_tool(TransferArgs {
                        source: "a".into(),
                        target: "b".into(),
                        cents: 300,
                    })
                    .await?;
                let blocked = ctx
                    .call_tool(TransferArgs {
                        source: "a".into(),
                        target: "mallory".into(),
                        cents: 1,
                    })
                    .await;
                assert!(
                    matches!(&blocked, Err(AgentError::ToolDenied { reason, .. }) if reason == "mallory is blocked"),
                    "{blocked:?}"
                );
                Ok::<_, SkillError>(format!("{} to {}", moved.moved, moved.to))
            },
        ))
        .build()
        .unwrap();
    assert_eq!(agent.run("pay".into()).await.unwrap(), "300 to b");
    assert_eq!(received(&calls).len(), 1, "the blocked call never left");
}

/// `transfer` without its `cents`.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct NoCentsArgs {
    pub source: String,
    pub target: String,
}
agents_kt::remote_tool! {
    /// A binding that lacks a required property.
    pub struct NoCents("transfer"): NoCentsArgs => Value;
}

/// `transfer` with its `cents` as text.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct TextCentsArgs {
    pub source: String,
    pub target: String,
    pub cents: String,
}
agents_kt::remote_tool! {
    /// A binding with a property of the wrong type.
    pub struct TextCents("transfer"): TextCentsArgs => Value;
}

/// `transfer` with a property the server does not take.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct MemoArgs {
    pub source: String,
    pub target: String,
    pub cents: i64,
    pub memo: String,
}
agents_kt::remote_tool! {
    /// A binding with an extra property.
    pub struct WithMemo("transfer"): MemoArgs => Value;
}

/// `transfer` with `cents` optional.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct MaybeCentsArgs {
    pub source: String,
    pub target: String,
    pub cents: Option<i64>,
}
agents_kt::remote_tool! {
    /// A binding that makes a required property optional.
    pub struct MaybeCents("transfer"): MaybeCentsArgs => Value;
}

/// Arguments of a tool the ledger does not have.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct LaunchArgs {
    pub target: String,
}
agents_kt::remote_tool! {
    /// A binding of a tool the server does not list.
    pub struct Launch("launch"): LaunchArgs => Value;
}

#[tokio::test]
async fn a_binding_that_does_not_fit_the_servers_schema_is_refused_naming_the_property() {
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, _) = ledger(&python_path).await;
    let refusal = |result: Result<agents_kt::McpToolset, agents_kt::McpClientError>| {
        result
            .expect_err("the binding does not fit")
            .reason
            .to_string()
    };
    let missing = refusal(set.clone().bind::<NoCents>());
    assert!(
        missing.contains("NoCentsArgs") && missing.contains("requires the property `cents`"),
        "{missing}"
    );
    let wrong = refusal(set.clone().bind::<TextCents>());
    assert!(
        wrong.contains("`cents` is string") && wrong.contains("takes integer"),
        "{wrong}"
    );
    let extra = refusal(set.clone().bind::<WithMemo>());
    assert!(
        extra.contains("`memo`") && extra.contains("does not take"),
        "{extra}"
    );
    let optional = refusal(set.clone().bind::<MaybeCents>());
    assert!(
        optional.contains("`cents`") && optional.contains("optional"),
        "{optional}"
    );
    let unknown = refusal(set.clone().bind::<Launch>());
    assert!(
        unknown.contains("`launch`") && unknown.contains("balance, transfer"),
        "{unknown}"
    );
}

/// The ledger's `transfer`, bound under the toolset's prefix.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct BankTransferArgs {
    pub source: String,
    pub target: String,
    pub cents: i64,
}
agents_kt::remote_tool! {
    /// `transfer` as registered with the prefix `bank`.
    pub struct BankTransfer("bank_transfer"): BankTransferArgs => Moved;
}

#[tokio::test]
async fn a_binding_names_the_registered_tool_and_a_prefix_given_after_it_fails_the_build() {
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, calls) = ledger(&python_path).await;
    // Prefixed first, then bound by the prefixed name: typed interceptors guard it.
    let prefixed = set.clone().prefix("bank").bind::<BankTransfer>().unwrap();
    let model = ScriptedModel::new([
        Reply::tool_calls([(
            "bank_transfer",
            json!({"source": "a", "target": "b", "cents": 7}),
        )]),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("bank")
        .model(model.clone())
        .toolset(prefixed)
        .before_tool_call(ToolInterceptor::<BankTransfer>::new(
            |_: &BankTransferArgs| Decision::<BankTransferArgs, Moved>::deny("read-only day"),
        ))
        .build()
        .unwrap();
    agent.run("pay".into()).await.unwrap();
    let told = &model.requests()[1].messages;
    assert!(
        told.iter()
            .any(|m| m.content == "ERROR: Tool 'bank_transfer' denied by policy: read-only day")
    );
    assert!(received(&calls).is_empty());

    // Bound, then prefixed: the binding would name no registered tool — refused, not ignored.
    let renamed = set.bind::<Transfer>().unwrap().prefix("bank");
    let error = Agent::<String, String>::builder("bank")
        .model(ScriptedModel::default())
        .toolset(renamed)
        .before_tool_call(cap_transfers)
        .build()
        .unwrap_err();
    let errors = match error {
        BuildError::Several(errors) => errors,
        error => vec![error],
    };
    assert!(
        errors.iter().any(|e| matches!(e, BuildError::BoundToolRenamed { bound, registered, .. } if bound == "transfer" && registered == "bank_transfer")),
        "{errors:?}"
    );
}

/// `balance` read as a number, which its result is not.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct CountArgs {
    pub account: String,
}
agents_kt::remote_tool! {
    /// A binding whose output does not fit the server's result.
    pub struct Count("balance"): CountArgs => i64;
}

#[tokio::test]
async fn a_result_that_does_not_fit_the_bound_output_fails_the_call_saying_so() {
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, _) = ledger(&python_path).await;
    let model = ScriptedModel::new([
        Reply::tool_calls([("balance", json!({"account": "acc-1"}))]),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("bank")
        .model(model.clone())
        .toolset(set.bind::<Count>().unwrap())
        .build()
        .unwrap();
    agent.run("count".into()).await.unwrap();
    let told = &model.requests()[1].messages;
    let answer = told
        .iter()
        .find(|m| m.role == Role::Tool)
        .map(|m| m.content.as_str())
        .unwrap_or_default();
    assert!(
        answer.starts_with("ERROR: Tool 'balance' failed: the server's result does not fit `i64`"),
        "{answer}"
    );
}
