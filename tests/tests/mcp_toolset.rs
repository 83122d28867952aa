//! Tools of a real MCP server (a FastMCP server from PyPI `mcp`, `tests/mcp-servers/
//! ledger_server.py`, started over stdio) used by an agent: listed with the server's
//! descriptions and schemas, filtered and prefixed, and every call through the agent's own
//! pipeline — a denial never reaches the server (its call log proves it), a rewrite is what the
//! server receives, an `isError` result is the model's `ERROR: Tool '<name>' failed: …`, and an
//! after-tool interceptor sees the result before the model — on `run` and `session`.
//!
//! Needs `MCP_PYTHONPATH` (`eval "$(scripts/mcp-clients.sh)"`, which `scripts/test.sh` runs);
//! `AGENTS_KT_REQUIRE_MCP_CLIENTS=1` makes its absence a failure.

use agents_kt::prelude::*;
use agents_kt::{BuildError, McpToolset};
use agents_kt_tests::ledger::{ledger, ledger_with, python_path, rand_suffix, received};
use agents_kt_tests::{PATHS, drive};
use serde_json::{Value, json};

/// A Rust tool named like one of the ledger's.
struct Balance;

impl agents_kt::Tool for Balance {
    const NAME: &'static str = "balance";
    type Args = agents_kt_tests::GetWeatherArgs;
    type Output = String;
    fn description(&self) -> std::borrow::Cow<'static, str> {
        "A local balance.".into()
    }
    async fn call(
        &self,
        _: agents_kt_tests::GetWeatherArgs,
        _: &ToolContext,
    ) -> Result<String, ToolError> {
        Ok("local".into())
    }
}

#[tokio::test]
async fn a_servers_tools_are_listed_filtered_prefixed_and_clash_with_rust_tools_by_name() {
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, _) = ledger(&python_path).await;
    assert_eq!(
        set.names(),
        [
            "balance",
            "transfer",
            "close_account",
            "audit",
            "crash",
            "reorganize"
        ]
    );
    let picked = set
        .clone()
        .except(["close_account", "audit", "crash", "reorganize"])
        .prefix("bank");
    assert_eq!(picked.names(), ["bank_balance", "bank_transfer"]);
    assert_eq!(set.clone().only(["balance"]).names(), ["balance"]);

    // The model is offered the server's description and input schema.
    let model = ScriptedModel::new([Reply::text("ok")]);
    let agent = Agent::<String, String>::builder("bank")
        .model(model.clone())
        .toolset(picked)
        .build()
        .unwrap();
    agent.run("hi".into()).await.unwrap();
    let offered = &model.requests()[0].tools;
    let transfer = offered
        .iter()
        .find(|t| t.name == "bank_transfer")
        .expect("offered");
    assert_eq!(transfer.description, "Move money between accounts.");
    assert_eq!(
        transfer.parameters["required"],
        json!(["source", "target", "cents"])
    );
    assert_eq!(
        transfer.parameters["properties"]["cents"]["type"],
        "integer"
    );

    // A remote tool named like a Rust tool is a build error.
    let clash = Agent::<String, String>::builder("bank")
        .model(ScriptedModel::default())
        .tool(agents_kt_tests::GetWeather::default())
        .toolset(set.only(["balance"]).prefix("get"))
        .build();
    assert!(clash.is_ok(), "no clash: get_balance");
    let (set, _) = ledger(&python_path).await;
    let renamed = Agent::<String, String>::builder("bank")
        .model(ScriptedModel::default())
        .tool(Balance)
        .toolset(set.only(["balance"]))
        .build()
        .err();
    let Some(BuildError::DuplicateTool {
        name,
        first,
        second,
        ..
    }) = renamed
    else {
        panic!("a clash: {renamed:?}")
    };
    assert_eq!(name, "balance");
    assert_eq!(first, "the Rust tool `mcp_toolset::Balance`");
    assert!(
        second.starts_with("the MCP server `python3 ") && second.ends_with("(its tool `balance`)"),
        "{second}"
    );
}

#[tokio::test]
async fn remote_calls_pass_the_agents_chain_and_gates_on_both_paths() {
    let Some(python_path) = python_path() else {
        return;
    };
    for path in PATHS {
        let (set, calls) = ledger(&python_path).await;
        let model = ScriptedModel::new([
            Reply::tool_calls([
                ("balance", json!({"account": "acc-1"})),
                (
                    "transfer",
                    json!({"source": "acc-1", "target": "acc-9", "cents": 500}),
                ),
                (
                    "transfer",
                    json!({"source": "acc-1", "target": "acc-2", "cents": 900_000}),
                ),
                ("close_account", json!({"account": "acc-1"})),
            ]),
            Reply::text("done"),
        ]);
        let seen_results = agents_kt_tests::Log::<String>::new();
        let log = seen_results.clone();
        let agent = Agent::<String, String>::builder("bank")
            .model(model.clone())
            .toolset(set)
            // A rewrite: transfers out of acc-9 go to the audit account instead.
            .on_before_tool_call(|name: &str, args: &Value| {
                if name == "transfer" && args["target"] == "acc-9" {
                    let mut args = args.clone();
                    args["target"] = json!("acc-audit");
                    Decision::ProceedWith(args)
                } else {
                    Decision::Proceed
                }
            })
            // A gate on the final arguments: large transfers never reach the server.
            .on_gate_tool_call(|name: &str, args: &Value| {
                if name == "transfer" && args["cents"].as_i64().unwrap_or(0) > 100_000 {
                    Verdict::deny("transfers over 1000.00 need a human")
                } else {
                    Verdict::Allow
                }
            })
            // The after-tool chain sees the server's result before the model.
            .on_after_tool_call(move |name: &str, _args: &Value, result: &Value| {
                log.push(format!("{name}: {result}"));
                Decision::Proceed
            })
            .build()
            .unwrap();
        let (output, _) = drive(&agent, "pay", path).await;
        assert_eq!(output.unwrap(), "done", "{path:?}");

        let received = received(&calls);
        let tools: Vec<&str> = received
            .iter()
            .map(|call| call["tool"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(
            tools,
            ["balance", "transfer", "close_account"],
            "{path:?}: the denied transfer never reached the server"
        );
        assert_eq!(
            received[1]["arguments"]["target"], "acc-audit",
            "{path:?}: the server received the rewrite"
        );

        let history = &model.requests()[1].messages;
        let told: Vec<&str> = history
            .iter()
            .filter(|m| m.role == agents_kt::Role::Tool)
            .map(|m| m.content.as_str())
            .collect();
        // FastMCP sends a text result as structured content `{"result": …}`: kept as it is.
        let balance: Value = serde_json::from_str(told[0]).expect("structured content");
        assert_eq!(balance["result"], "acc-1: 100.00 USD", "{path:?}");
        let moved: Value = serde_json::from_str(told[1]).expect("the server's JSON");
        assert_eq!(moved["to"], "acc-audit");
        assert_eq!(
            told[2],
            "ERROR: Tool 'transfer' denied by policy: transfers over 1000.00 need a human"
        );
        assert!(
            told[3].starts_with("ERROR: Tool 'close_account' failed: ")
                && told[3].contains("pending transfer"),
            "{path:?}: {}",
            told[3]
        );
        let results = seen_results.entries();
        assert!(
            results.iter().any(|r| r.starts_with("transfer: ")),
            "{results:?}"
        );
    }
}

#[tokio::test]
async fn a_remote_call_past_the_per_tool_timeout_is_cancelled_on_the_server() {
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, calls) = ledger(&python_path).await;
    let model = ScriptedModel::new([
        Reply::tool_call("audit", json!({"account": "acc-1"})),
        Reply::text("gave up"),
    ]);
    let agent = Agent::<String, String>::builder("bank")
        .model(model)
        .toolset(set)
        .budget(
            agents_kt::Budget::default().per_tool_timeout(std::time::Duration::from_millis(500)),
        )
        .build()
        .unwrap();
    let _ = agent.run("audit".into()).await;
    // The server hears the cancellation (a generous bound, not a measurement).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let seen: Vec<String> = received(&calls)
            .iter()
            .map(|call| call["tool"].as_str().unwrap_or_default().to_string())
            .collect();
        if seen.contains(&"audit cancelled".to_string()) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server never heard of the cancellation: {seen:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_server_that_never_answers_fails_the_call_after_call_timeout_and_the_toolset_stays_usable()
 {
    let Some(python_path) = python_path() else {
        return;
    };
    // No per_tool_timeout on the agent: the toolset's own bound is all there is.
    let (set, calls) = ledger_with(&python_path, |stdio| {
        stdio.call_timeout(std::time::Duration::from_millis(500))
    })
    .await;
    let model = ScriptedModel::new([
        // `audit` takes a minute: to this client, a server that never answers.
        Reply::tool_call("audit", json!({"account": "acc-1"})),
        Reply::tool_call("balance", json!({"account": "acc-1"})),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("bank")
        .model(model.clone())
        .toolset(set)
        .build()
        .unwrap();
    assert_eq!(agent.run("audit".into()).await.unwrap(), "done");
    let requests = model.requests();
    let timed_out = &requests[1].messages.last().unwrap().content;
    assert!(
        timed_out.contains("did not answer the call of `audit` within 500ms"),
        "{timed_out}"
    );
    let balance = &requests[2].messages.last().unwrap().content;
    assert!(!balance.contains("ERROR"), "the next call works: {balance}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while !received(&calls)
        .iter()
        .any(|call| call["tool"] == "audit cancelled")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the server never heard the call was cancelled"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_agent_serving_a_toolset_is_a_policy_gateway_in_front_of_the_server() {
    use rmcp::ServiceExt;
    use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, calls) = ledger(&python_path).await;
    let set = set.only(["balance", "transfer"]);
    let agent = Agent::<String, String>::builder("gateway")
        .model(ScriptedModel::default())
        .toolset(set.clone())
        .on_gate_tool_call(|name: &str, args: &Value, ctx: &InterceptContext| {
            // Per-client policy on the final arguments: interns may not move money.
            if name == "transfer" && ctx.client() == Some("intern") {
                Verdict::deny("interns may not move money")
            } else if args["cents"].as_i64().unwrap_or(0) > 100_000 {
                Verdict::deny("transfers over 1000.00 need a human")
            } else {
                Verdict::Allow
            }
        })
        .build()
        .unwrap();
    let gateway = agents_kt::McpServer::builder(agent)
        .expose_toolset(&set)
        .build()
        .unwrap();
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(gateway.serve(tokio::io::split(server_side)));
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("intern", "1.0"),
    )
    .serve(tokio::io::split(client_side))
    .await
    .unwrap();
    let listed: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(listed, ["balance", "transfer"]);
    let call = |name: &str, arguments: Value| {
        let Value::Object(arguments) = arguments else {
            unreachable!("an object")
        };
        client.call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(arguments))
    };
    let denied = call(
        "transfer",
        json!({"source": "acc-1", "target": "acc-2", "cents": 5}),
    )
    .await
    .unwrap();
    assert_eq!(denied.is_error, Some(true));
    let text = denied.content[0].as_text().unwrap().text.clone();
    assert_eq!(
        text,
        "ERROR: Tool 'transfer' denied by policy: interns may not move money"
    );
    let allowed = call("balance", json!({"account": "acc-1"})).await.unwrap();
    assert_ne!(allowed.is_error, Some(true), "{allowed:?}");
    let tools: Vec<String> = received(&calls)
        .iter()
        .map(|c| c["tool"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        tools,
        ["balance"],
        "the denied transfer never reached the server"
    );
}

#[tokio::test]
async fn a_code_skill_calls_remote_tools_by_name_through_the_same_gates() {
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, calls) = ledger(&python_path).await;
    let agent = Agent::<String, String>::builder("bank")
        .toolset(set)
        .on_gate_tool_call(|name: &str, args: &Value| {
            if name == "transfer" && args["cents"].as_i64().unwrap_or(0) > 100_000 {
                Verdict::deny("transfers over 1000.00 need a human")
            } else {
                Verdict::Allow
            }
        })
        .skill(Skill::code(
            "pay",
            |_: String, ctx: SkillContext<String>| async move {
                let small = ctx
                    .call_tool_named(
                        "transfer",
                        json!({"source": "a", "target": "b", "cents": 300}),
                    )
                    .await?;
                let large = ctx
                    .call_tool_named(
                        "transfer",
                        json!({"source": "a", "target": "b", "cents": 900_000}),
                    )
                    .await;
                let missing = ctx.call_tool_named("launch", json!({})).await;
                Ok::<_, SkillError>(format!("{} | {:?} | {:?}", small["moved"], large, missing))
            },
        ))
        .build()
        .unwrap();
    let report = agent.run("pay".into()).await.unwrap();
    assert!(report.starts_with("300 | "), "{report}");
    assert!(
        report.contains("Tool 'transfer' denied by policy: transfers over 1000.00 need a human"),
        "{report}"
    );
    assert!(report.contains("unknown tool 'launch'"), "{report}");
    assert_eq!(
        received(&calls).len(),
        1,
        "only the small transfer reached the server"
    );
}

#[tokio::test]
async fn a_toolset_over_streamable_http_with_a_bearer_token() {
    use std::net::SocketAddr;
    // The far side: an agents-kt server over HTTP that wants a bearer token.
    let remote_agent = Agent::<String, String>::builder("weather-service")
        .model(ScriptedModel::default())
        .tool(agents_kt_tests::GetWeather::default())
        .build()
        .unwrap();
    let remote = agents_kt::McpServer::builder(remote_agent)
        .expose_tool::<agents_kt_tests::GetWeather>()
        .authenticator(|authorization| (authorization == "Bearer s3cret").then(|| "agent".into()))
        .build()
        .unwrap()
        .bind_http(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    let url = format!("http://{}/mcp", remote.local_addr());

    let refused = McpToolset::http(&url).bearer("wrong").connect().await;
    let error = refused
        .expect_err("a rejected token is an error")
        .to_string();
    assert!(
        error.contains(&format!(
            "401 from the server at {url}: authorization required"
        )),
        "{error}"
    );
    assert!(
        !error.contains("Transport ["),
        "no rmcp type names: {error}"
    );

    let set = McpToolset::http(&url)
        .bearer("s3cret")
        .header("x-trace", "t-1")
        .connect()
        .await
        .expect("connects with the token");
    assert_eq!(set.names(), ["get_weather"]);
    let model = ScriptedModel::new([
        Reply::tool_call("weather_get_weather", json!({"city": "Oslo"})),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("local")
        .model(model.clone())
        .toolset(set.prefix("weather"))
        .build()
        .unwrap();
    assert_eq!(agent.run("weather?".into()).await.unwrap(), "done");
    let told = &model.requests()[1].messages;
    let answer = &told.last().unwrap().content;
    assert!(answer.contains("Oslo"), "{answer}");
    remote.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_server_that_dies_fails_the_call_in_flight_and_the_next_call_reconnects() {
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, calls) = ledger(&python_path).await;
    let model = ScriptedModel::new([
        Reply::tool_call("crash", json!({})),
        Reply::tool_call("balance", json!({"account": "acc-1"})),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("bank")
        .model(model.clone())
        .toolset(set)
        .build()
        .unwrap();
    assert_eq!(agent.run("go".into()).await.unwrap(), "done");
    let requests = model.requests();
    let crashed = &requests[1].messages.last().unwrap().content;
    assert_eq!(
        crashed,
        "ERROR: Tool 'crash' failed: the MCP server closed the connection before answering (the next call reconnects)"
    );
    let balance = &requests[2].messages.last().unwrap().content;
    assert!(
        balance.contains("100.00 USD"),
        "a new server answered: {balance}"
    );
    let tools: Vec<String> = received(&calls)
        .iter()
        .map(|c| c["tool"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(tools, ["crash", "balance"]);
}

/// `value` with every line holding `API_KEY=` removed from each of its strings.
fn without_secret_lines(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(
            text.lines()
                .filter(|line| !line.contains("API_KEY="))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_secret_lines).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, field)| (key.clone(), without_secret_lines(field)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The npm filesystem server (`@modelcontextprotocol/server-filesystem`), serving `root`.
async fn filesystem(root: &std::path::Path) -> Option<McpToolset> {
    let node_dir = match std::env::var("MCP_NODE_DIR") {
        Ok(dir) => dir,
        Err(_) => {
            python_path()?;
            return None;
        }
    };
    let script =
        format!("{node_dir}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    Some(
        McpToolset::stdio("node")
            .arg(script)
            .arg(root.display().to_string())
            .connect()
            .await
            .expect("the filesystem server starts"),
    )
}

#[tokio::test]
async fn the_npm_filesystem_server_behind_a_gate_a_denied_write_never_touches_the_disk() {
    let root = std::env::temp_dir().join(format!("agents-kt-fs-{}", rand_suffix()));
    let notes = root.join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        notes.join("todo.txt"),
        "water the plants\nAPI_KEY=sk-live-123\n",
    )
    .unwrap();
    let Some(set) = filesystem(&root).await else {
        return;
    };
    let names = set.names();
    for tool in ["read_text_file", "write_file", "list_directory"] {
        assert!(names.iter().any(|n| n == tool), "{tool} in {names:?}");
    }
    for path in PATHS {
        let outside = root.join(format!("outside-{path:?}.txt"));
        let inside = notes.join(format!("inside-{path:?}.txt"));
        let model = ScriptedModel::new([
            Reply::tool_calls([
                (
                    "fs_write_file",
                    json!({"path": outside.display().to_string(), "content": "x"}),
                ),
                (
                    "fs_write_file",
                    json!({"path": inside.display().to_string(), "content": "ok"}),
                ),
                (
                    "fs_read_text_file",
                    json!({"path": notes.join("todo.txt").display().to_string()}),
                ),
            ]),
            Reply::text("done"),
        ]);
        let notes_dir = notes.display().to_string();
        let agent = Agent::<String, String>::builder("notes")
            .model(model.clone())
            .toolset(set.clone().prefix("fs"))
            // Writes only inside the notes directory (the server normalizes nothing for us).
            .on_gate_tool_call(move |name: &str, args: &Value| {
                let path = args["path"].as_str().unwrap_or_default();
                if name == "fs_write_file"
                    && (!path.starts_with(&format!("{notes_dir}/")) || path.contains(".."))
                {
                    Verdict::deny("writes stay in the notes directory")
                } else {
                    Verdict::Allow
                }
            })
            // Secrets never reach the model.
            .on_after_tool_call(|_name: &str, _args: &Value, result: &Value| {
                if result.to_string().contains("API_KEY=") {
                    Decision::ProceedWith(without_secret_lines(result))
                } else {
                    Decision::Proceed
                }
            })
            .build()
            .unwrap();
        let (output, _) = drive(&agent, "tidy my notes", path).await;
        assert_eq!(output.unwrap(), "done", "{path:?}");
        assert!(
            !outside.exists(),
            "{path:?}: the denied write never touched the disk"
        );
        assert_eq!(std::fs::read_to_string(&inside).unwrap(), "ok", "{path:?}");
        let requests = model.requests();
        let told: Vec<&str> = requests[1]
            .messages
            .iter()
            .filter(|m| m.role == agents_kt::Role::Tool)
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(
            told[0],
            "ERROR: Tool 'fs_write_file' denied by policy: writes stay in the notes directory"
        );
        assert!(
            told[2].contains("water the plants"),
            "{path:?}: {}",
            told[2]
        );
        assert!(
            !told[2].contains("sk-live"),
            "{path:?}: the secret was redacted"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test]
async fn a_changed_tool_list_is_re_read_and_a_gone_or_changed_tool_is_never_sent_a_call() {
    let Some(python_path) = python_path() else {
        return;
    };
    let (set, calls) = ledger(&python_path).await;
    let model = ScriptedModel::new([
        Reply::tool_calls([("reorganize", json!({}))]),
        Reply::text("reorganized"),
        Reply::tool_calls([
            ("close_account", json!({"account": "acc-1"})),
            (
                "transfer",
                json!({"source": "acc-1", "target": "acc-2", "cents": 5}),
            ),
            ("balance", json!({"account": "acc-1"})),
        ]),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("bank")
        .model(model.clone())
        .toolset(set.clone())
        .build()
        .unwrap();
    agent.run("reorganize".into()).await.unwrap();
    // The server announced `notifications/tools/list_changed`; the client re-reads the list.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let relisted = loop {
        let relisted = set.relisted();
        if relisted.names().contains(&"freeze_account".to_string()) {
            break relisted;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the new list was never read: {:?}",
            relisted.names()
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert!(!relisted.names().contains(&"close_account".to_string()));

    // The agent built before the change keeps its tools, but sends nothing to a tool that is gone
    // or whose arguments changed: the model wrote them for the old schema.
    agent.run("pay".into()).await.unwrap();
    let told: Vec<String> = model.requests()[3]
        .messages
        .iter()
        .filter(|m| m.role == agents_kt::Role::Tool)
        .map(|m| m.content.clone())
        .collect();
    assert!(
        told[0].starts_with("ERROR: Tool 'close_account' failed: the MCP server no longer lists the tool `close_account`"),
        "{}",
        told[0]
    );
    assert!(
        told[1].starts_with(
            "ERROR: Tool 'transfer' failed: the MCP server changed the input schema of `transfer`"
        ),
        "{}",
        told[1]
    );
    assert!(told[2].contains("acc-1: 100.00 USD"), "{}", told[2]);
    let tools: Vec<String> = received(&calls)
        .iter()
        .map(|call| call["tool"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(tools, ["reorganize", "balance"], "nothing stale was sent");

    // An agent built from the new list offers it, and calls the new tool.
    let model = ScriptedModel::new([
        Reply::tool_calls([("freeze_account", json!({"account": "acc-3"}))]),
        Reply::text("frozen"),
    ]);
    let agent = Agent::<String, String>::builder("bank")
        .model(model.clone())
        .toolset(relisted)
        .build()
        .unwrap();
    agent.run("freeze".into()).await.unwrap();
    assert_eq!(
        received(&calls).last().map(|call| call["tool"].clone()),
        Some(json!("freeze_account"))
    );
}

#[tokio::test]
async fn a_parents_gate_denies_a_sub_agents_remote_tool_before_it_reaches_the_server() {
    let Some(python_path) = python_path() else {
        return;
    };
    for path in PATHS {
        let (set, calls) = ledger(&python_path).await;
        let teller_model = ScriptedModel::new([
            Reply::tool_calls([
                ("balance", json!({"account": "acc-1"})),
                (
                    "transfer",
                    json!({"source": "acc-1", "target": "acc-2", "cents": 900_000}),
                ),
            ]),
            Reply::text("the teller is done"),
        ]);
        // The teller holds the ledger's tools and no gate of its own.
        let teller = Agent::<String, String>::builder("teller")
            .model(teller_model.clone())
            .toolset(set)
            .build()
            .unwrap();
        let branch = Agent::<String, String>::builder("branch")
            .model(ScriptedModel::new([
                Reply::tool_call("teller", json!({"input": "pay acc-2"})),
                Reply::text("done"),
            ]))
            .sub_agent(teller.as_tool("teller", "Moves money."))
            .on_gate_tool_call(|name: &str, args: &Value| {
                if name == "transfer" && args["cents"].as_i64().unwrap_or(0) > 100_000 {
                    Verdict::deny("transfers over 1000.00 need a human")
                } else {
                    Verdict::Allow
                }
            })
            .build()
            .unwrap();
        let (output, _) = drive(&branch, "pay", path).await;
        assert_eq!(output.unwrap(), "done", "{path:?}");
        let tools: Vec<String> = received(&calls)
            .iter()
            .map(|call| call["tool"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(
            tools,
            ["balance"],
            "{path:?}: the denied transfer reached the server"
        );
        let told = &teller_model.requests()[1].messages;
        assert_eq!(
            told.last().map(|m| m.content.as_str()),
            Some("ERROR: Tool 'transfer' denied by policy: transfers over 1000.00 need a human"),
            "{path:?}"
        );
    }
}

#[tokio::test]
async fn the_client_info_and_protocol_version_are_the_applications_to_set() {
    use std::net::SocketAddr;
    // The far side shows its tool only to the client that names itself "billing-bot".
    let remote_agent = Agent::<String, String>::builder("weather-service")
        .model(ScriptedModel::default())
        .tool(agents_kt_tests::GetWeather::default())
        .build()
        .unwrap();
    let remote = agents_kt::McpServer::builder(remote_agent)
        .expose_tool::<agents_kt_tests::GetWeather>()
        .client_policy(|client, _| client.name == "billing-bot")
        .build()
        .unwrap()
        .bind_http(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    let url = format!("http://{}/mcp", remote.local_addr());

    let default = McpToolset::http(&url).connect().await.unwrap();
    assert!(default.names().is_empty(), "agents-kt is not billing-bot");
    // The newest version rmcp speaks (2026-07-28) is asked for by default; this server's newest
    // with an `initialize` handshake is 2025-11-25, and the two agree on it (negotiation down).
    assert_eq!(default.protocol_version(), "2025-11-25");

    // Asked for an older version, the server agrees to it (negotiation down).
    let named = McpToolset::http(&url)
        .client_info("billing-bot", "2.1.0")
        .protocol_version("2025-06-18")
        .connect()
        .await
        .unwrap();
    assert_eq!(named.names(), ["get_weather"]);
    assert_eq!(named.protocol_version(), "2025-06-18");

    let unknown = McpToolset::http(&url)
        .protocol_version("1999-01-01")
        .connect()
        .await
        .expect_err("an unknown version is refused before connecting");
    assert!(
        unknown
            .to_string()
            .contains("unknown MCP protocol version `1999-01-01`"),
        "{unknown}"
    );
    remote.shutdown().await.unwrap();
}

#[tokio::test]
async fn connection_errors_say_what_happened_without_rmcps_type_names() {
    // A port nothing listens on (bound, then closed).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let error = McpToolset::http(&url)
        .connect()
        .await
        .expect_err("nothing listens there")
        .to_string();
    assert!(
        error.contains(&format!("connection refused at {url}")),
        "{error}"
    );
    assert!(!error.contains("Transport ["), "{error}");

    // The whole command line as the program's name.
    let error = McpToolset::stdio("npx -y @modelcontextprotocol/server-everything")
        .connect()
        .await
        .expect_err("no program has that name")
        .to_string();
    assert!(
        error.contains("pass its arguments with `.args(..)`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_fixed_bearer_and_oauth_together_are_refused_before_anything_is_sent() {
    // Nothing listens here: the refusal must come before any connection attempt.
    let error = McpToolset::http("http://127.0.0.1:9/mcp")
        .bearer("static-token")
        .oauth(agents_kt::McpOAuth::client_credentials("id", "secret"))
        .connect()
        .await
        .expect_err("both ways of authorizing at once")
        .to_string();
    assert!(
        error.contains("either `.bearer(..)` or `.oauth(..)`"),
        "{error}"
    );
}
