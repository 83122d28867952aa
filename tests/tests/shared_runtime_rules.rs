//! One set of rules, two runtimes: a tool registered with `.tool(..)` runs in the runtime every
//! tool without compile-time links shares (its values boxed); the same tool registered with
//! `.tool_with_chain(..)` runs in its own typed runtime. Thousands of random calls — typed and
//! dynamic interceptors in any order (proceed, rewrite, deny, substitute, panic, hang), gates,
//! approvals (approve, deny, edit, a misfit edit), after-tool rewrites, misfit JSON from the
//! model and from interceptors, a body that fails, panics or overruns its timeout, journaled
//! runs and their replays — go through both, and everything observable must be identical: the
//! run's result, every observer line, every session event, every text the model is sent, the
//! arguments the body ran with, and every journal entry.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use agents_kt::{
    Agent, AgentBuilder, Approval, ApprovalDesk, Budget, Decision, Extensions, InterceptContext,
    MemoryJournal, Reply, ScriptedModel, Tool, ToolArguments, ToolChain, ToolContext, ToolError,
    ToolInterceptor, Verdict,
};
use agents_kt_tests::{Log, Path, Seen, drive, quiet_scripted_panics};
use futures::StreamExt;
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct ForecastArgs {
    pub city: String,
    #[serde(default)]
    pub days: u8,
}

/// Fields out of alphabetical order: a shared output must keep the type's order in its text.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Forecast {
    pub temp: i32,
    pub city: String,
}

/// Fails, panics or overruns by the city it is asked about; logs what it ran with.
#[derive(Clone)]
pub struct ForecastTool(Log<String>);

impl Tool for ForecastTool {
    const NAME: &'static str = "forecast";
    type Args = ForecastArgs;
    type Output = Forecast;

    fn description(&self) -> Cow<'static, str> {
        "A forecast.".into()
    }

    async fn call(&self, args: ForecastArgs, _: &ToolContext) -> Result<Forecast, ToolError> {
        self.0.push(format!("{} {}", args.city, args.days));
        match args.city.as_str() {
            "Fail" => Err(ToolError::new("no such city")),
            "Panic" => panic!("scripted body panic"),
            "Slow" => {
                tokio::time::sleep(Duration::from_secs(600)).await;
                Ok(Forecast {
                    temp: 0,
                    city: args.city,
                })
            }
            _ => Ok(Forecast {
                temp: i32::from(args.days) * 3 - 7,
                city: args.city,
            }),
        }
    }
}

impl ToolArguments for ForecastArgs {
    type Tool = ForecastTool;
}

/// What a typed interceptor answers.
#[derive(Clone, Debug)]
enum Typed {
    Proceed,
    Rewrite(String),
    Deny,
    Substitute(i32),
    Panic,
    /// Never answers: the interceptor timeout denies.
    Hang,
}

/// What a dynamic (JSON) interceptor answers; `Misfit…` returns JSON the tool's types reject.
#[derive(Clone, Debug)]
enum Dynamic {
    Proceed,
    Rewrite(String),
    RewriteMisfit,
    Deny,
    Substitute(i32),
    SubstituteMisfit,
}

#[derive(Clone, Debug)]
enum BeforeLink {
    Typed(Typed, bool),
    Dynamic(Dynamic, bool),
}

#[derive(Clone, Debug)]
enum AfterLink {
    /// Typed over the output: proceed, add to the temperature, deny, or substitute.
    Typed(Typed, bool),
    Dynamic(Dynamic, bool),
}

/// A human's answer to an approval question.
#[derive(Clone, Debug)]
enum Answer {
    Approve,
    Deny,
    Edit(String),
    EditMisfit,
}

#[derive(Clone, Debug)]
struct Scenario {
    calls: Vec<String>,
    before: Vec<BeforeLink>,
    deny_city: Option<String>,
    max_days: Option<u8>,
    approvals: Option<Vec<Answer>>,
    after: Vec<AfterLink>,
    journaled: bool,
    /// The links are a parent's, passed down to the agent with the tool (a sub-agent).
    from_parent: bool,
    path: Path,
}

const CITIES: [&str; 6] = ["Oslo", "Bergen", "Fail", "Panic", "Slow", "Tromsø"];

fn city() -> impl Strategy<Value = String> {
    prop::sample::select(&CITIES[..]).prop_map(str::to_string)
}

/// The model's argument text: fitting, with unknown fields, misfit, not JSON, empty.
fn arguments() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (city(), 0..9u8).prop_map(|(c, d)| json!({"city": c, "days": d}).to_string()),
        1 => city().prop_map(|c| json!({"city": c, "note": [1, 2]}).to_string()),
        1 => Just(r#"{"city": 5}"#.to_string()),
        1 => Just("{city".to_string()),
        1 => Just(String::new()),
    ]
}

fn typed() -> impl Strategy<Value = Typed> {
    prop_oneof![
        4 => Just(Typed::Proceed),
        2 => city().prop_map(Typed::Rewrite),
        1 => Just(Typed::Deny),
        1 => (-20..40i32).prop_map(Typed::Substitute),
        1 => Just(Typed::Panic),
        1 => Just(Typed::Hang),
    ]
}

fn dynamic() -> impl Strategy<Value = Dynamic> {
    prop_oneof![
        4 => Just(Dynamic::Proceed),
        2 => city().prop_map(Dynamic::Rewrite),
        1 => Just(Dynamic::RewriteMisfit),
        1 => Just(Dynamic::Deny),
        1 => (-20..40i32).prop_map(Dynamic::Substitute),
        1 => Just(Dynamic::SubstituteMisfit),
    ]
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        3 => Just(Answer::Approve),
        1 => Just(Answer::Deny),
        2 => city().prop_map(Answer::Edit),
        1 => Just(Answer::EditMisfit),
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    let before = prop_oneof![
        (typed(), any::<bool>()).prop_map(|(s, a)| BeforeLink::Typed(s, a)),
        (dynamic(), any::<bool>()).prop_map(|(s, a)| BeforeLink::Dynamic(s, a)),
    ];
    let after = prop_oneof![
        (typed(), any::<bool>()).prop_map(|(s, a)| AfterLink::Typed(s, a)),
        (dynamic(), any::<bool>()).prop_map(|(s, a)| AfterLink::Dynamic(s, a)),
    ];
    (
        prop::collection::vec(arguments(), 1..3),
        prop::collection::vec(before, 0..4),
        prop::option::weighted(0.3, city()),
        prop::option::weighted(0.3, 0..9u8),
        prop::option::weighted(0.3, prop::collection::vec(answer(), 0..4)),
        prop::collection::vec(after, 0..3),
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(
                calls,
                before,
                deny_city,
                max_days,
                approvals,
                after,
                (journaled, session, from_parent),
            )| Scenario {
                calls,
                before,
                deny_city,
                max_days,
                // A journaled run is replayed without its human: approvals are left to runs.
                approvals: approvals.filter(|_| !journaled),
                after,
                journaled,
                from_parent,
                path: if session && !journaled {
                    Path::Session
                } else {
                    Path::Run
                },
            },
        )
}

fn forecast(temp: i32) -> Forecast {
    Forecast {
        temp,
        city: "Substituted".into(),
    }
}

/// A typed interceptor's scripted answer over `T`: now (a sync interceptor) or later.
#[derive(Clone)]
struct Scripted<T> {
    decision: Decision<T, Forecast>,
    panics: bool,
    hangs: bool,
}

impl<T: Clone + Send + 'static> Scripted<T> {
    fn new(step: &Typed, rewrite: impl Fn(&str) -> T) -> Self {
        let decision = match step {
            Typed::Proceed | Typed::Panic | Typed::Hang => Decision::Proceed,
            Typed::Rewrite(city) => Decision::ProceedWith(rewrite(city)),
            Typed::Deny => Decision::deny("typed says no"),
            Typed::Substitute(temp) => Decision::Substitute(forecast(*temp)),
        };
        Scripted {
            decision,
            panics: matches!(step, Typed::Panic),
            hangs: matches!(step, Typed::Hang),
        }
    }

    fn now(&self) -> Decision<T, Forecast> {
        if self.panics {
            panic!("scripted interceptor panic");
        }
        self.decision.clone()
    }

    fn later(&self) -> futures::future::BoxFuture<'static, Decision<T, Forecast>> {
        let this = self.clone();
        Box::pin(async move {
            tokio::task::yield_now().await;
            if this.hangs {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
            this.now()
        })
    }
}

/// A dynamic answer as a JSON decision; `field` names what a rewrite changes.
fn dynamic_decision(step: &Dynamic, current: &Value, after: bool) -> Decision<Value, Value> {
    let mut rewritten = current.clone();
    match step {
        Dynamic::Proceed => Decision::Proceed,
        Dynamic::Rewrite(city) => {
            rewritten["city"] = json!(city);
            Decision::ProceedWith(rewritten)
        }
        Dynamic::RewriteMisfit if after => Decision::ProceedWith(json!({"temp": "warm"})),
        Dynamic::RewriteMisfit => Decision::ProceedWith(json!({"city": ["no"]})),
        Dynamic::Deny => Decision::deny("dynamic says no"),
        Dynamic::Substitute(temp) => Decision::Substitute(json!({"city": "Json", "temp": temp})),
        Dynamic::SubstituteMisfit => Decision::Substitute(json!("not a forecast")),
    }
}

/// `builder` with the scenario's links, in its order.
fn with_links(
    mut builder: AgentBuilder<String, String>,
    scenario: &Scenario,
) -> AgentBuilder<String, String> {
    for link in &scenario.before {
        builder = match link.clone() {
            BeforeLink::Typed(step, asynchronous) => {
                let answer = Scripted::new(&step, |city| ForecastArgs {
                    city: city.to_string(),
                    days: 2,
                });
                // A hang can only be asynchronous.
                if asynchronous || answer.hangs {
                    builder.before_tool_call(ToolInterceptor::<ForecastTool>::new(
                        move |_: &ForecastArgs| answer.later(),
                    ))
                } else {
                    builder.before_tool_call(ToolInterceptor::<ForecastTool>::new(
                        move |_: &ForecastArgs| answer.now(),
                    ))
                }
            }
            BeforeLink::Dynamic(step, asynchronous) => {
                builder.on_before_tool_call(move |_: &str, args: &Value| {
                    let decision = dynamic_decision(&step, args, false);
                    async move {
                        if asynchronous {
                            tokio::task::yield_now().await;
                        }
                        decision
                    }
                })
            }
        };
    }
    if let Some(city) = scenario.deny_city.clone() {
        builder = builder.gate_tool_call(move |args: &ForecastArgs| {
            if args.city == city {
                Verdict::deny("the typed gate says no")
            } else {
                Verdict::Allow
            }
        });
    }
    if let Some(max) = scenario.max_days {
        builder = builder.on_gate_tool_call(move |_: &str, args: &Value| {
            if args["days"].as_u64().unwrap_or(0) > u64::from(max) {
                Verdict::deny("the dynamic gate says no")
            } else {
                Verdict::Allow
            }
        });
    }
    if scenario.approvals.is_some() {
        builder = builder.gate_tool_call(ask_a_human);
    }
    for link in &scenario.after {
        builder = match link.clone() {
            AfterLink::Typed(step, asynchronous) => {
                let answer = Scripted::new(&step, |city| Forecast {
                    temp: 99,
                    city: city.to_string(),
                });
                if asynchronous || answer.hangs {
                    builder.after_tool_call::<ForecastTool, _>(move |_: &Forecast| answer.later())
                } else {
                    builder.after_tool_call::<ForecastTool, _>(move |_: &Forecast| answer.now())
                }
            }
            AfterLink::Dynamic(step, asynchronous) => {
                builder.on_after_tool_call(move |_: &str, _: &Value, result: &Value| {
                    let decision = dynamic_decision(&step, result, true);
                    async move {
                        if asynchronous {
                            tokio::task::yield_now().await;
                        }
                        decision
                    }
                })
            }
        };
    }
    builder
}

fn ask_a_human(
    args: &ForecastArgs,
    ctx: &InterceptContext<'_>,
) -> impl std::future::Future<Output = Verdict> + Send + use<> {
    let (approver, args) = (ctx.approver(), args.clone());
    async move {
        match approver.ask(&args).await {
            Approval::Approved => Verdict::Allow,
            Approval::Denied(reason) => Verdict::Deny(reason),
            Approval::Edited(_) => Verdict::deny("edited: asked again"),
        }
    }
}

/// Which runtime the tool is registered for.
#[derive(Clone, Copy, Debug)]
enum Runtime {
    /// `.tool(..)`: the shared runtime.
    Shared,
    /// `.tool_with_chain(.., ToolChain::new())`: the tool's own typed runtime.
    Typed,
}

/// Everything a run shows the world, as text.
#[derive(Debug, PartialEq)]
struct Observed {
    result: String,
    observers: Vec<String>,
    events: Vec<String>,
    model_saw: Vec<String>,
    body_ran_with: Vec<String>,
    questions: Vec<String>,
    journal: Vec<Value>,
    replay: Option<(String, Vec<String>, Vec<String>)>,
}

/// What the models answer: the tool's caller calls it, then answers; a parent asks the caller.
fn replies(scenario: &Scenario) -> [Vec<Reply>; 2] {
    let calls = scenario.calls.iter().map(|args| ("forecast", args.clone()));
    [
        vec![Reply::raw_tool_calls(calls), Reply::text("done")],
        vec![
            Reply::tool_call("ask_forecaster", json!({"input": "go"})),
            Reply::text("planned"),
        ],
    ]
}

/// The agents a scenario runs, and the models whose requests it compares.
struct Built {
    agent: Agent<String, String>,
    models: Vec<ScriptedModel>,
}

/// The scenario's agent over `replies` (the tool's caller's; the parent's after them when the
/// links are a parent's), its tool registered for `runtime`, observed by `seen`.
fn agent(
    scenario: &Scenario,
    runtime: Runtime,
    replies: [Vec<Reply>; 2],
    (tool, desk, seen): (&ForecastTool, Option<ApprovalDesk>, &Seen),
) -> Built {
    let budget = Budget::default()
        .per_tool_timeout(Duration::from_millis(40))
        .interceptor_timeout(Duration::from_millis(30));
    let [caller, parent] = replies.map(ScriptedModel::new);
    let mut builder = Agent::builder("forecaster")
        .model(caller.clone())
        .budget(budget.clone());
    builder = match runtime {
        Runtime::Shared => builder.tool(tool.clone()),
        Runtime::Typed => builder.tool_with_chain(tool.clone(), ToolChain::<ForecastTool>::new()),
    };
    if !scenario.from_parent {
        if let Some(desk) = desk {
            builder = builder.approvals(desk);
        }
        let agent = seen.watch(with_links(builder, scenario)).build();
        return Built {
            agent: agent.expect("the agent builds"),
            models: vec![caller],
        };
    }
    // The links are the parent's, passed down to the child that has the tool.
    let child = builder.build().expect("the child builds");
    let mut parent_builder = Agent::builder("planner")
        .model(parent.clone())
        .budget(budget)
        .sub_agent(child.as_tool("ask_forecaster", "Asks the forecaster."))
        .interceptors_apply_to_children();
    if let Some(desk) = desk {
        parent_builder = parent_builder.approvals(desk);
    }
    let agent = seen.watch(with_links(parent_builder, scenario)).build();
    Built {
        agent: agent.expect("the parent builds"),
        models: vec![caller, parent],
    }
}

fn texts(model: &ScriptedModel) -> Vec<String> {
    model
        .requests()
        .iter()
        .flat_map(|request| request.messages.iter().map(|m| format!("{m:?}")))
        .collect()
}

async fn observe(scenario: &Scenario, runtime: Runtime) -> Observed {
    let (tool, seen) = (ForecastTool(Log::new()), Seen::default());
    let questions = Log::new();
    let (desk, human) = match &scenario.approvals {
        None => (None, None),
        Some(answers) => {
            let (desk, mut inbox) = ApprovalDesk::new();
            let (answers, asked) = (answers.clone(), questions.clone());
            let human = tokio::spawn(async move {
                let mut index = 0;
                while let Some(question) = inbox.next().await {
                    asked.push(question.request().args.to_string());
                    match answers.get(index).cloned().unwrap_or(Answer::Approve) {
                        Answer::Approve => question.approve(),
                        Answer::Deny => question.deny("the human says no"),
                        Answer::Edit(city) => question
                            .edit(&json!({"city": city, "days": 1}))
                            .expect("an edit serializes"),
                        Answer::EditMisfit => question
                            .edit(&json!({"city": false}))
                            .expect("an edit serializes"),
                    }
                    index += 1;
                }
            });
            (Some(desk), Some(human))
        }
    };
    let built = agent(scenario, runtime, replies(scenario), (&tool, desk, &seen));
    let (result, events, journal, replay) = if scenario.journaled {
        let journal = Arc::new(MemoryJournal::new("run-1"));
        let result = built
            .agent
            .run_journaled("go".into(), Extensions::new(), journal.clone())
            .await;
        let entries = journal.entries();
        // Replayed by a model with nothing to say: whatever was recorded is read back.
        let replay_seen = Seen::default();
        let again = agent(
            scenario,
            runtime,
            [vec![], vec![]],
            (&tool, None, &replay_seen),
        );
        let replayed = again
            .agent
            .run_journaled(
                "go".into(),
                Extensions::new(),
                Arc::new(MemoryJournal::replaying("run-1", entries.clone())),
            )
            .await;
        let replay = (
            format!("{replayed:?}"),
            replay_seen.observers.entries(),
            again.models.iter().flat_map(texts).collect(),
        );
        (result, Vec::new(), entries, Some(replay))
    } else {
        let (result, events) = drive(&built.agent, "go", scenario.path).await;
        let events = events.iter().map(|event| format!("{event:?}")).collect();
        (result, events, Vec::new(), None)
    };
    let model_saw = built.models.iter().flat_map(texts).collect();
    drop(built);
    if let Some(human) = human {
        human.await.expect("the human answers");
    }
    Observed {
        result: format!("{result:?}"),
        observers: seen.observers.entries(),
        events,
        model_saw,
        body_ran_with: tool.0.entries(),
        questions: questions.entries(),
        journal,
        replay,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_shared_runtime_and_the_typed_one_follow_the_same_rules(scenario in scenario()) {
        quiet_scripted_panics();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a runtime");
        let shared = runtime.block_on(observe(&scenario, Runtime::Shared));
        let typed = runtime.block_on(observe(&scenario, Runtime::Typed));
        prop_assert_eq!(shared, typed);
    }
}

/// The comparison above is worth something only if it sees differences: a tool whose output
/// serializes differently is told apart.
#[test]
fn the_comparison_tells_two_different_runs_apart() {
    let scenario = Scenario {
        calls: vec![json!({"city": "Oslo", "days": 2}).to_string()],
        before: vec![BeforeLink::Dynamic(
            Dynamic::Rewrite("Bergen".into()),
            false,
        )],
        deny_city: None,
        max_days: None,
        approvals: None,
        after: Vec::new(),
        journaled: true,
        from_parent: false,
        path: Path::Run,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
    let rewritten = runtime.block_on(observe(&scenario, Runtime::Shared));
    let plain = Scenario {
        before: Vec::new(),
        ..scenario
    };
    let unrewritten = runtime.block_on(observe(&plain, Runtime::Shared));
    assert_ne!(rewritten, unrewritten);
    assert_eq!(rewritten.body_ran_with, ["Bergen 2"]);
    assert!(
        rewritten
            .model_saw
            .iter()
            .any(|text| text.contains(r#"{\"temp\":-1,\"city\":\"Bergen\"}"#)),
        "the model reads the output in its type's field order: {:?}",
        rewritten.model_saw
    );
}
