//! The attribute macros, re-exported from `agents-kt-macros` with their documentation.

/// Makes a function a tool: generates `<Pascal>Args` (the parameters, minus an optional
/// `&ToolContext`, deriving `Deserialize`, `Serialize`, `JsonSchema`, `Clone`, `Debug`) and a
/// `<Pascal>` type implementing [`Tool`](crate::Tool) by calling the function.
///
/// - The doc comment is the description the model reads (or `description = "..."`); one is
///   required.
/// - `name = "..."` overrides the tool name (default: the function's name).
/// - `params(arg = "...")` describes parameters in the schema; `Option<T>` parameters are optional.
/// - `blocking`: a sync body that blocks (file or database I/O, heavy compute) runs on Tokio's
///   blocking pool, so it never stalls the runtime and `Budget::per_tool_timeout` cuts it off at
///   its deadline (the thread finishes on its own; its result is dropped).
/// - Sync or async; returns `T` or `Result<T, E>` with `E: Display` (the error text goes to the
///   model).
/// - `crate = path` when `agents-kt` is renamed in your manifest.
///
/// Inside an [`agent`] impl block, `#[tool]` also works on `&self` methods.
///
/// ```
/// use agents_kt::prelude::*;
///
/// /// Current weather for a city.
/// #[tool(params(city = "The city, e.g. Paris"))]
/// async fn get_weather(city: String, ctx: &ToolContext) -> Result<String, std::io::Error> {
///     ctx.emit("looking it up");
///     Ok(format!("sunny in {city}"))
/// }
///
/// assert_eq!(<GetWeather as Tool>::NAME, "get_weather");
/// let args = GetWeatherArgs { city: "Paris".into() };
/// let answer = futures::executor::block_on(GetWeather.call(args, &ToolContext::detached("c1")));
/// assert_eq!(answer.unwrap(), "sunny in Paris");
/// ```
///
/// A parameter the model cannot send as JSON is a compile error at its type:
///
/// ```compile_fail
/// use agents_kt::prelude::*;
/// pub struct Point { pub x: f64 } // no Deserialize / JsonSchema
/// /// Distance from the origin.
/// #[tool]
/// fn distance(point: Point) -> f64 { point.x.abs() }
/// ```
pub use agents_kt_macros::tool;

/// Makes a function a typed interceptor. `#[before_tool_call(tool_fn)]` guards one tool: the
/// function takes `&<Tool>Args` and returns `Decision<<Tool>Args, <Tool>Output>` (or a `Result`
/// of one, or is `async`); register it with
/// [`AgentBuilder::before_tool_call`](crate::AgentBuilder::before_tool_call). Plain
/// `#[before_tool_call]` guards every tool over `(&str, &serde_json::Value)`; register it with
/// [`AgentBuilder::on_before_tool_call`](crate::AgentBuilder::on_before_tool_call).
///
/// An async interceptor stays callable as written (`f(&args).await`); its future owns a copy of
/// the arguments, as registration requires.
///
/// ```
/// use agents_kt::prelude::*;
///
/// /// Current weather for a city.
/// #[tool]
/// fn get_weather(city: String) -> String { format!("sunny in {city}") }
///
/// #[before_tool_call(get_weather)]
/// fn no_mars(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, String> {
///     if args.city == "Mars" { Decision::Substitute("no weather on Mars".into()) } else { Decision::Proceed }
/// }
///
/// #[before_tool_call(get_weather)]
/// async fn approve(args: &GetWeatherArgs) -> Result<Decision<GetWeatherArgs, String>, String> {
///     Ok(if args.city.is_empty() { Decision::deny("no city") } else { Decision::Proceed })
/// }
///
/// let agent: Result<Agent<String, String>, _> = Agent::builder("weather")
///     .model(ScriptedModel::default())
///     .tool(GetWeather)
///     .before_tool_call(no_mars)
///     .before_tool_call(approve)
///     .build();
/// assert!(agent.is_ok());
/// ```
///
/// A substitute of the wrong type does not compile:
///
/// ```compile_fail
/// use agents_kt::prelude::*;
/// /// Current weather for a city.
/// #[tool]
/// fn get_weather(city: String) -> String { city }
/// #[before_tool_call(get_weather)]
/// fn cached(args: &GetWeatherArgs) -> Decision<GetWeatherArgs, u32> { Decision::Substitute(21) }
/// ```
pub use agents_kt_macros::before_tool_call;

/// Makes a function a model-turn interceptor: it takes `&[Message]` and returns
/// `Decision<Vec<Message>, OUT>` where `OUT` is the agent's output (or a `Result` of one, or is
/// `async`). Register it with [`AgentBuilder::on_before_turn`](crate::AgentBuilder::on_before_turn).
///
/// ```
/// use agents_kt::prelude::*;
///
/// #[before_turn]
/// fn injection_filter(messages: &[Message]) -> Decision<Vec<Message>, String> {
///     if messages.iter().any(|m| m.content.contains("ignore previous instructions")) {
///         Decision::deny("possible prompt injection")
///     } else {
///         Decision::Proceed
///     }
/// }
/// let agent: Result<Agent<String, String>, _> =
///     Agent::builder("a").model(ScriptedModel::default()).on_before_turn(injection_filter).build();
/// assert!(agent.is_ok());
/// ```
///
/// The messages are inspected by reference, as every interceptor of the chain sees them:
///
/// ```compile_fail
/// use agents_kt::prelude::*;
/// #[before_turn]
/// fn filter(messages: Vec<Message>) -> Decision<Vec<Message>, String> { Decision::Proceed }
/// ```
pub use agents_kt_macros::before_turn;

/// Makes a function a skill interceptor: it takes the chosen skill's name `&str` and returns
/// `Decision<String, OUT>` (`ProceedWith(name)` reroutes). Register it with
/// [`AgentBuilder::on_before_skill`](crate::AgentBuilder::on_before_skill).
///
/// ```
/// use agents_kt::prelude::*;
///
/// #[before_skill]
/// fn after_hours(skill: &str) -> Decision<String, String> {
///     if skill == "refund" { Decision::ProceedWith("callback".into()) } else { Decision::Proceed }
/// }
/// assert_eq!(after_hours("refund"), Decision::ProceedWith("callback".to_string()));
/// ```
///
/// It takes exactly the skill name:
///
/// ```compile_fail
/// use agents_kt::prelude::*;
/// #[before_skill]
/// fn after_hours() -> Decision<String, String> { Decision::Proceed }
/// ```
pub use agents_kt_macros::before_skill;

/// Makes a function a code skill. One parameter is the skill's input; several become a
/// generated `<Pascal>Input` struct (with a JSON schema). An optional `SkillContext<OUT>`
/// parameter calls tools and the model through the agent's chains. Register the generated
/// `<Pascal>` type with [`AgentBuilder::skill`](crate::AgentBuilder::skill).
///
/// **Name and description.** The skill is named after the function (`plan` below) — the name
/// `on_before_skill` sees, a `ProceedWith` reroutes to, and MCP clients call — unless
/// `#[skill(name = "…")]` says otherwise. Its description (shown to MCP clients) is the doc
/// comment, or `#[skill(description = "…")]`. Every skill of an agent has the agent's `IN` and
/// `OUT`: write `Agent::<IN, OUT>::builder(..)` so a skill of other types is reported at its
/// `.skill(..)`.
///
/// ```
/// use agents_kt::prelude::*;
///
/// /// Plans a trip.
/// #[skill]
/// async fn plan(city: String, days: u32, ctx: SkillContext<String>) -> Result<String, SkillError> {
///     let _ = ctx;
///     Ok(format!("{days} days in {city}"))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let agent = Agent::<PlanInput, String>::builder("trips").skill(Plan).build().unwrap();
/// let plan = agent.run(PlanInput { city: "Oslo".into(), days: 2 }).await.unwrap();
/// assert_eq!(plan, "2 days in Oslo");
/// # }
/// ```
///
/// A skill is a function, not a type:
///
/// ```compile_fail
/// use agents_kt::prelude::*;
/// #[skill]
/// struct Plan;
/// ```
pub use agents_kt_macros::skill;

/// Gathers an impl block's `#[tool]`, `#[skill]` and `#[before_*]` methods into an agent:
/// generates their types beside the block and an `agent_builder(self, name)` method that
/// registers them in source order (registration order is execution order). The agent's types
/// are `#[agent(input = T, output = U)]` (both default to `String`); `crate = path` when
/// `agents-kt` is renamed.
///
/// An interceptor naming a tool the block lacks is a compile error at that name, with the
/// closest tool suggested; two tools with one name are an error on the second.
///
/// ```
/// use agents_kt::prelude::*;
///
/// pub struct Desk { stations: Vec<String> }
///
/// #[agent]
/// impl Desk {
///     /// Current weather for a city.
///     #[tool]
///     fn get_weather(&self, city: String) -> Result<String, String> {
///         if self.stations.contains(&city) { Ok("sunny".into()) } else { Err(format!("no station in {city}")) }
///     }
///
///     #[before_tool_call(get_weather)]
///     fn no_mars(&self, args: &GetWeatherArgs) -> Decision<GetWeatherArgs, String> {
///         if args.city == "Mars" { Decision::deny("no station on Mars") } else { Decision::Proceed }
///     }
/// }
///
/// let agent = Desk { stations: vec!["Oslo".into()] }
///     .agent_builder("desk")
///     .model(ScriptedModel::default())
///     .build();
/// assert!(agent.is_ok());
/// ```
///
/// A misspelt tool name is caught at compile time:
///
/// ```compile_fail
/// use agents_kt::prelude::*;
/// pub struct Desk;
/// #[agent]
/// impl Desk {
///     /// Current weather for a city.
///     #[tool]
///     fn get_weather(&self, city: String) -> String { city }
///     #[before_tool_call(get_wether)]
///     fn no_mars(&self, args: &GetWeatherArgs) -> Decision<GetWeatherArgs, String> { Decision::Proceed }
/// }
/// ```
pub use agents_kt_macros::agent;

/// Makes a function a gate: a check that runs after the interceptor chain, on the final value
/// (after any `ProceedWith`), and always wins. `#[gate(tool_fn)]` guards one tool over
/// `&<Tool>Args`; plain `#[gate]` every tool over `(&str, &serde_json::Value)`. A gate returns
/// [`Verdict`](crate::Verdict) (or `Result<Verdict, E>`, `Err` = deny), may be `async`, and may
/// take a trailing `&InterceptContext`. Register it with
/// [`AgentBuilder::gate_tool_call`](crate::AgentBuilder::gate_tool_call) /
/// [`AgentBuilder::on_gate_tool_call`](crate::AgentBuilder::on_gate_tool_call), or put it in an
/// [`agent`] block.
///
/// ```
/// use agents_kt::prelude::*;
///
/// /// Writes a file.
/// #[tool]
/// fn write_file(path: String) -> String { format!("wrote {path}") }
///
/// /// Rewrite: relative paths go under /tmp.
/// #[before_tool_call(write_file)]
/// fn absolutize(args: &WriteFileArgs) -> Decision<WriteFileArgs, String> {
///     if args.path.starts_with('/') { Decision::Proceed }
///     else { Decision::ProceedWith(WriteFileArgs { path: format!("/tmp/{}", args.path) }) }
/// }
///
/// /// Check: sees the rewritten path, and its Deny wins over the ProceedWith above.
/// #[gate(write_file)]
/// fn only_tmp(args: &WriteFileArgs, ctx: &InterceptContext) -> Verdict {
///     let _ = ctx.ids();
///     if args.path.starts_with("/tmp/") { Verdict::Allow } else { Verdict::deny("outside /tmp") }
/// }
///
/// let agent: Result<Agent<String, String>, _> = Agent::builder("files")
///     .model(ScriptedModel::default())
///     .tool(WriteFile)
///     .before_tool_call(absolutize)
///     .gate_tool_call(only_tmp)
///     .build();
/// assert!(agent.is_ok());
/// ```
///
/// A gate cannot rewrite: returning a decision does not compile.
///
/// ```compile_fail
/// use agents_kt::prelude::*;
/// #[gate_turn]
/// fn rewrite(messages: &[Message]) -> Decision<Vec<Message>, String> { Decision::Proceed }
/// ```
pub use agents_kt_macros::gate;

/// Makes a function a gate on every model turn, over `&[Message]` (after the turn interceptors).
/// See [`gate`].
///
/// ```
/// use agents_kt::prelude::*;
/// #[gate_turn]
/// fn no_secrets(messages: &[Message]) -> Verdict {
///     if messages.iter().any(|m| m.content.contains("sk-")) { Verdict::deny("a key in the prompt") } else { Verdict::Allow }
/// }
/// let agent = Agent::<String, String>::builder("a").model(ScriptedModel::default()).gate_turn(no_secrets).build().unwrap();
/// # let _ = agent;
/// ```
pub use agents_kt_macros::gate_turn;

/// Makes a function a gate on the skill about to run, over its name (after the skill
/// interceptors). See [`gate`].
///
/// ```
/// use agents_kt::prelude::*;
/// #[gate_skill]
/// fn business_hours(skill: &str, ctx: &InterceptContext) -> Verdict {
///     let _ = (skill, ctx.agent());
///     Verdict::Allow
/// }
/// let agent = Agent::<String, String>::builder("a").model(ScriptedModel::default()).gate_skill(business_hours).build().unwrap();
/// # let _ = agent;
/// ```
pub use agents_kt_macros::gate_skill;

/// Makes a function an after-tool interceptor: it sees a tool's result before the model,
/// observers and session do. `#[after_tool_call(tool_fn)]` takes `&<Tool output>` and returns
/// `Decision<Output, Output>`: `ProceedWith`/`Substitute` replace the result, `Deny` withholds it
/// (the model reads `ERROR: Tool '<name>' result withheld by policy: <reason>`). Plain
/// `#[after_tool_call]` sees every tool as `(&str, &Value, &Value)` (name, arguments, result).
/// Register a typed one naming its tool: `.after_tool_call::<Tool, _>(f)`.
///
/// ```
/// use agents_kt::prelude::*;
///
/// /// Fetches a page.
/// #[tool]
/// fn fetch(url: String) -> String { format!("<html>{url} api_key=sk-123</html>") }
///
/// #[after_tool_call(fetch)]
/// fn redact(page: &String) -> Decision<String, String> {
///     if page.contains("sk-") { Decision::ProceedWith(page.replace("sk-123", "[redacted]")) } else { Decision::Proceed }
/// }
///
/// let agent: Result<Agent<String, String>, _> = Agent::builder("web")
///     .model(ScriptedModel::default())
///     .tool(Fetch)
///     .after_tool_call::<Fetch, _>(redact)
///     .build();
/// assert!(agent.is_ok());
/// ```
pub use agents_kt_macros::after_tool_call;
