//! The macros at run time: generated schemas and descriptions, typed interceptors written as
//! functions, `#[agent]` registration in source order, and code skills from functions.

use agents_kt::prelude::*;
use agents_kt::{ChatRequest, PipelineEvent};
use agents_kt_tests::{Log, drain, last_message};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Weather {
    pub city: String,
    pub celsius: i32,
}

/// Current weather for a city.
///
/// Answers in Celsius.
#[tool(params(city = "The city, e.g. Paris", unit = "`C` or `F`"))]
async fn get_weather(city: String, unit: Option<String>) -> Result<Weather, String> {
    let _ = unit;
    match city.as_str() {
        "Atlantis" => Err("no station in Atlantis".into()),
        _ => Ok(Weather { city, celsius: 18 }),
    }
}

/// Adds two numbers.
#[tool(name = "add", description = "Add a and b.")]
fn add_numbers(a: i64, b: i64) -> i64 {
    a + b
}

#[before_tool_call(get_weather)]
fn no_mars(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, Weather> {
    match args.city.as_str() {
        "Mars" => Decision::deny("no weather service on Mars"),
        "Moon" => Decision::Substitute(Weather {
            city: "Moon".into(),
            celsius: -170,
        }),
        "paris" => Decision::ProceedWith(GetWeatherArgs {
            city: "Paris".into(),
            unit: None,
        }),
        _ => Decision::Proceed,
    }
}

#[before_tool_call(get_weather)]
async fn slow_approval(args: &GetWeatherArgs) -> Result<Decision<GetWeatherArgs, Weather>, String> {
    tokio::task::yield_now().await;
    if args.city == "Atlantis" {
        Err("approver unreachable".into())
    } else {
        Ok(Decision::Proceed)
    }
}

fn spec(request: &ChatRequest, name: &str) -> Value {
    serde_json::to_value(
        request
            .tools
            .iter()
            .find(|t| t.name == name)
            .expect("tool sent"),
    )
    .unwrap()
}

#[tokio::test]
async fn a_tool_function_becomes_a_tool_with_its_docs_and_schema() {
    let model = ScriptedModel::new([Reply::text("ok")]);
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model.clone())
        .tool(GetWeather)
        .tool(AddNumbers)
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    let request = &model.requests()[0];
    let weather = spec(request, "get_weather");
    assert_eq!(
        weather["description"],
        "Current weather for a city.\n\nAnswers in Celsius."
    );
    let parameters = &weather["parameters"];
    assert_eq!(parameters["type"], "object");
    assert_eq!(
        parameters["required"],
        json!(["city"]),
        "Option parameters are optional"
    );
    assert_eq!(
        parameters["properties"]["city"]["description"],
        "The city, e.g. Paris"
    );
    assert_eq!(
        parameters["properties"]["unit"]["description"],
        "`C` or `F`"
    );
    let add = spec(request, "add");
    assert_eq!(add["description"], "Add a and b.");
    assert_eq!(add["parameters"]["required"], json!(["a", "b"]));
}

/// A point on a map.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Spot {
    pub x: f64,
}

/// Plans a route.
#[tool(params(from = "Where to start.", via = "Optional stops."))]
fn plan_route(from: String, via: Option<Vec<Spot>>, to: Spot, legs: u8) -> String {
    let _ = (via, to, legs);
    from
}

// What schemars' derive makes of the same fields, for comparison.
#[derive(schemars::JsonSchema)]
#[schemars(rename = "PlanRouteArgs")]
/// Arguments of the `plan_route` tool.
#[allow(dead_code)]
struct DerivedPlanRouteArgs {
    /// Where to start.
    from: String,
    /// Optional stops.
    #[serde(default)]
    via: Option<Vec<Spot>>,
    to: Spot,
    legs: u8,
}

#[test]
fn the_generated_argument_schema_is_the_one_schemars_derives() {
    // The generated `JsonSchema` impl is written out (bounded on the argument types, so a type
    // without derives is one error); it must describe the arguments exactly as the derive does.
    let generated = serde_json::to_value(schemars::schema_for!(PlanRouteArgs)).unwrap();
    let derived = serde_json::to_value(schemars::schema_for!(DerivedPlanRouteArgs)).unwrap();
    assert_eq!(generated, derived);
    let args = PlanRouteArgs {
        from: "Paris".into(),
        via: None,
        to: Spot { x: 1.0 },
        legs: 2,
    };
    assert_eq!(
        format!("{:?}", args.clone()),
        // Each field as its JSON: a parameter type needs no `Debug` of its own.
        "PlanRouteArgs { from: \"Paris\", via: null, to: {\"x\":1.0}, legs: 2 }"
    );
}

#[tokio::test]
async fn a_tool_function_runs_and_its_error_text_reaches_the_model() {
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("add", json!({"a": 2, "b": 40})),
            ("get_weather", json!({"city": "Atlantis"})),
        ]),
        Reply::text("ok"),
    ]);
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model.clone())
        .tool(GetWeather)
        .tool(AddNumbers)
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    let messages = &model.requests()[1].messages;
    let n = messages.len();
    assert_eq!(messages[n - 2].content, "42");
    assert_eq!(
        messages[n - 1].content,
        "ERROR: Tool 'get_weather' failed: no station in Atlantis"
    );
}

#[tokio::test]
async fn typed_interceptor_functions_decide_with_the_tools_own_types() {
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("get_weather", json!({"city": "Mars"})),
            ("get_weather", json!({"city": "Moon"})),
            ("get_weather", json!({"city": "paris"})),
            ("get_weather", json!({"city": "Atlantis"})),
        ]),
        Reply::text("ok"),
    ]);
    let agent: Agent<String, String> = Agent::builder("a")
        .model(model.clone())
        .tool(GetWeather)
        .before_tool_call(no_mars)
        .before_tool_call(slow_approval)
        .build()
        .unwrap();
    agent.run("x".into()).await.unwrap();
    let messages = &model.requests()[1].messages;
    let answers: Vec<&str> = messages[messages.len() - 4..]
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(
        answers,
        vec![
            "ERROR: Tool 'get_weather' denied by policy: no weather service on Mars",
            r#"{"city":"Moon","celsius":-170}"#,
            r#"{"city":"Paris","celsius":18}"#,
            "ERROR: Tool 'get_weather' denied by policy: approver unreachable",
        ]
    );
}

#[tokio::test]
async fn an_async_interceptor_function_is_still_callable_directly() {
    let decision = slow_approval(&GetWeatherArgs {
        city: "Oslo".into(),
        unit: None,
    })
    .await;
    assert!(matches!(decision, Ok(Decision::Proceed)));
}

/// Plans a trip.
#[skill]
async fn plan(city: String, days: u32, ctx: SkillContext<String>) -> Result<String, SkillError> {
    let weather = ctx
        .call_tool(GetWeatherArgs {
            city: city.clone(),
            unit: None,
        })
        .await?;
    Ok(format!(
        "{days} days in {} at {}C",
        weather.city, weather.celsius
    ))
}

#[tokio::test]
async fn a_skill_function_with_several_parameters_takes_a_generated_input() {
    let agent: Agent<PlanInput, String> = Agent::builder("trips")
        .tool(GetWeather)
        .skill(Plan)
        .before_tool_call(no_mars)
        .build()
        .unwrap();
    let out = agent
        .run(PlanInput {
            city: "paris".into(),
            days: 3,
        })
        .await
        .unwrap();
    assert_eq!(out, "3 days in Paris at 18C");
    let denied = agent
        .run(PlanInput {
            city: "Mars".into(),
            days: 1,
        })
        .await
        .unwrap_err();
    assert_eq!(
        denied.to_string(),
        "Tool 'get_weather' denied by policy: no weather service on Mars"
    );
    let schema = serde_json::to_value(schemars::schema_for!(PlanInput)).unwrap();
    assert_eq!(schema["required"], json!(["city", "days"]));
}

/// A desk whose interceptors log the order they run in.
pub struct Desk {
    log: Log<String>,
}

#[agent]
impl Desk {
    /// Current weather for a city.
    #[tool]
    async fn forecast(&self, city: String) -> Weather {
        self.log.push(format!("forecast ran for {city}"));
        Weather { city, celsius: 5 }
    }

    #[before_tool_call]
    fn first(&self, name: &str, args: &Value) -> Decision<Value, Value> {
        self.log.push(format!("first saw {name} {}", args["city"]));
        Decision::Proceed
    }

    #[before_tool_call(forecast)]
    async fn second(&self, args: &ForecastArgs) -> Decision<ForecastArgs, Weather> {
        self.log.push(format!("second saw {}", args.city));
        Decision::ProceedWith(ForecastArgs {
            city: args.city.to_uppercase(),
        })
    }

    #[before_tool_call]
    fn third(&self, _name: &str, args: &Value) -> Decision<Value, Value> {
        self.log.push(format!("third saw {}", args["city"]));
        Decision::Proceed
    }

    #[before_turn]
    fn turns(&self, messages: &[Message]) -> Decision<Vec<Message>, String> {
        self.log
            .push(format!("turn with {} messages", messages.len()));
        Decision::Proceed
    }

    #[before_skill]
    fn skills(&self, skill: &str) -> Decision<String, String> {
        self.log.push(format!("skill {skill}"));
        Decision::Proceed
    }
}

#[tokio::test]
async fn an_agent_block_registers_its_methods_in_source_order() {
    let log = Log::new();
    let model = ScriptedModel::new([
        Reply::tool_call("forecast", json!({"city": "oslo"})),
        Reply::text("cold"),
    ]);
    let agent = Desk { log: log.clone() }
        .agent_builder("desk")
        .model(model.clone())
        .build()
        .unwrap();
    let mut pipeline = agent.observe();
    assert_eq!(agent.run("weather?".into()).await.unwrap(), "cold");
    assert_eq!(
        log.entries(),
        vec![
            "skill default",
            "turn with 1 messages",
            r#"first saw forecast "oslo""#,
            "second saw oslo",
            r#"third saw "OSLO""#,
            "forecast ran for OSLO",
            "turn with 3 messages",
        ]
    );
    assert_eq!(last_message(&model, 1), r#"{"city":"OSLO","celsius":5}"#);
    let decisions: Vec<_> = drain(&mut pipeline)
        .into_iter()
        .filter_map(|e| match e {
            PipelineEvent::InterceptorDecision { decision, .. } => {
                Some((decision.index, decision.decision))
            }
            _ => None,
        })
        .collect();
    assert_eq!(decisions, vec![(1, agents_kt::DecisionKind::ProceedWith)]);
}

/// A synchronous fallible interceptor: `Err(e)` denies with `e`, `Ok(decision)` is the decision.
#[before_tool_call(get_weather)]
fn known_cities_only(args: &GetWeatherArgs) -> Result<Decision<GetWeatherArgs, Weather>, String> {
    if args.city.starts_with('?') {
        Err(format!("unknown city {}", args.city))
    } else {
        Ok(Decision::Proceed)
    }
}

#[tokio::test]
async fn a_sync_fallible_interceptor_keeps_its_result_and_its_err_denies() {
    let unknown = GetWeatherArgs {
        city: "?x".into(),
        unit: None,
    };
    // Called directly it is still a `Result`, as written.
    assert!(matches!(known_cities_only(&unknown), Err(reason) if reason == "unknown city ?x"));
    assert!(matches!(
        known_cities_only(&GetWeatherArgs {
            city: "Oslo".into(),
            unit: None
        }),
        Ok(Decision::Proceed)
    ));
    let model = ScriptedModel::new([
        Reply::tool_call("get_weather", json!({"city": "?x"})),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("fallible")
        .model(model.clone())
        .tool(GetWeather)
        .before_tool_call(known_cities_only)
        .build()
        .unwrap();
    assert_eq!(agent.run("weather".into()).await.unwrap(), "done");
    assert_eq!(
        last_message(&model, 1),
        "ERROR: Tool 'get_weather' denied by policy: unknown city ?x"
    );
}

/// A parameter type with the four derives the README names — no `Debug`.
#[derive(Clone, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Place {
    pub city: String,
    pub zip: Option<u32>,
}

/// Plans a visit.
#[tool]
fn plan_visit(place: Place, days: u8) -> String {
    format!("{} days in {}", days, place.city)
}

#[test]
fn a_tool_parameter_needs_no_debug_and_the_arguments_debug_print_each_field_as_json() {
    let args = PlanVisitArgs {
        place: Place {
            city: "Oslo".into(),
            zip: None,
        },
        days: 3,
    };
    assert_eq!(
        format!("{args:?}"),
        r#"PlanVisitArgs { place: {"city":"Oslo","zip":null}, days: 3 }"#
    );
    let _registered = Agent::<String, String>::builder("visits")
        .model(ScriptedModel::default())
        .tool(PlanVisit)
        .build()
        .unwrap();
}
