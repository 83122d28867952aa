//! # agents-kt
//!
//! Typed LLM agents whose every skill, model turn and tool call can be inspected, rewritten,
//! denied or short-circuited by interceptors *before* it runs — with the compiler checking that a
//! replacement or a substituted result has the right type.
//!
//! An interceptor returns a [`Decision<T, R>`]: `Proceed`, `ProceedWith(T)` (a replacement of the
//! inspected value), `Deny(reason)`, or `Substitute(R)` (a result standing in for the guarded
//! thing). Chains of interceptors follow one set of rules everywhere (see [`chain::run_chain`]),
//! and fail closed: an interceptor that panics or returns `Err` denies.
//!
//! ```
//! use agents_kt::prelude::*;
//! use serde_json::{json, Value};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let model = ScriptedModel::new([
//!     Reply::tool_call("fetchAccount", json!({"id": "acc-1"})),
//!     Reply::text("Your balance is 100.00 USD."),
//! ]);
//! let agent = Agent::<String, String>::builder("bank")
//!     .model(model.clone())
//!     .on_before_tool_call(|name: &str, _args: &Value| match name {
//!         "fetchAccount" => Decision::Substitute(json!({"balance": 10000, "currency": "USD"})),
//!         _ => Decision::Proceed,
//!     })
//!     # .tool(FetchAccount)
//!     .build()?;
//! assert_eq!(agent.run("What is my balance?".into()).await?, "Your balance is 100.00 USD.");
//! // The model saw the substituted result as the tool's answer.
//! assert_eq!(model.requests()[1].messages.last().unwrap().content, r#"{"balance":10000,"currency":"USD"}"#);
//! # Ok(()) }
//! # #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
//! # pub struct FetchAccountArgs { pub id: String }
//! # #[derive(serde::Deserialize, serde::Serialize)]
//! # pub struct Account { pub balance: i64, pub currency: String }
//! # pub struct FetchAccount;
//! # impl Tool for FetchAccount {
//! #     const NAME: &'static str = "fetchAccount";
//! #     type Args = FetchAccountArgs;
//! #     type Output = Account;
//! #     fn description(&self) -> std::borrow::Cow<'static, str> { "Fetch an account.".into() }
//! #     async fn call(&self, _: FetchAccountArgs, _: &ToolContext) -> Result<Account, ToolError> {
//! #         Err(ToolError::new("the real service is not reachable from a doctest"))
//! #     }
//! # }
//! ```
//!
//! ## Where things are
//!
//! The crate root re-exports what a first program needs (the agent, its builder, `Decision`,
//! `Verdict`, `Tool`, the models, the events). Each concern is also a module of its own:
//! [`tool`](mod@tool) (the `Tool` trait, `ToolContext`, typed interceptors and `ToolChain`), [`chain`]
//! (interception: `Decision`, `Interceptor`, `Gate`, `InterceptContext` and the chain rules),
//! [`events`] (`AgentEvent`, `PipelineEvent`, the interception points), [`memory`]
//! (conversation stores), `mcp` (the MCP server and client, features `mcp` / `mcp-client`) and
//! `telemetry` (feature `otel`). Both paths name the same items:
//!
//! ```
//! assert_eq!(
//!     std::any::type_name::<agents_kt::tool::ToolError>(),
//!     std::any::type_name::<agents_kt::ToolError>(),
//! );
//! let _: agents_kt::chain::Decision<u8, u8> = agents_kt::Decision::Proceed;
//! let _store = agents_kt::memory::InMemoryStore::new();
//! ```

#![deny(missing_docs)]
// On docs.rs, feature-gated items carry a badge naming their feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

#[cfg(feature = "a2a-client")]
mod a2a_client;
#[cfg(feature = "a2a")]
mod a2a_server;
mod agent;
pub(crate) mod approval;
mod budget;
pub mod chain;
mod coarse_clock;
mod decimal;
mod error;
#[cfg(any(feature = "http", feature = "a2a-client"))]
mod error_chain;
mod error_debug;
pub mod events;
pub(crate) mod journal;
mod ledger;
mod macro_support;
mod macros;
#[cfg(feature = "mcp-client")]
mod mcp_client;
#[cfg(feature = "mcp")]
mod mcp_server;
pub mod memory;
mod message;
mod model;
mod observers;
mod policy;
#[cfg(feature = "http")]
mod providers;
#[cfg(any(feature = "mcp-client", feature = "a2a-client"))]
mod schema_fit;
#[cfg(feature = "sqlite")]
mod sqlite_file;
/// Entry points for `cargo fuzz` (see `fuzz/`): not part of the API.
#[cfg(all(feature = "fuzzing", feature = "http"))]
#[doc(hidden)]
pub use providers::fuzz as __fuzz;
#[cfg(feature = "otel")]
pub mod telemetry;
pub mod tool;

/// MCP, both ways: [`McpServer`] serves an agent's tools and skills (feature `mcp`),
/// [`McpToolset`] puts a remote server's tools on an agent (feature `mcp-client`). Every call either way passes the agent's chains and gates.
#[cfg(any(feature = "mcp", feature = "mcp-client"))]
pub mod mcp {
    #[cfg(feature = "mcp-client")]
    pub use crate::mcp_client::{
        Elicitation, ElicitationAnswer, FileTokens, McpClientError, McpHttp, McpOAuth, McpStdio,
        McpToolset, MemoryTokens, RemoteBinding, RemoteToolBinding, TokenStore,
    };
    #[cfg(feature = "mcp")]
    pub use crate::mcp_server::{
        McpClient, McpHttpServer, McpServeError, McpServer, McpServerBuilder,
    };
}

/// Entry point for `cargo fuzz` of the A2A client (see `fuzz/`): not part of the API.
#[cfg(all(feature = "fuzzing", feature = "a2a-client"))]
#[doc(hidden)]
pub use a2a_client::fuzz as __fuzz_a2a;
#[cfg(feature = "a2a-client")]
pub use a2a_client::{A2aAgent, A2aAgentBuilder, A2aClientError, A2aTool, IO_SCHEMAS_EXTENSION};
/// Entry point for `cargo fuzz` of the A2A server (see `fuzz/`): not part of the API.
#[cfg(all(feature = "fuzzing", feature = "a2a"))]
#[doc(hidden)]
pub use a2a_server::fuzz as __fuzz_a2a_server;
#[cfg(feature = "a2a")]
pub use a2a_server::{A2aHttpServer, A2aServeError, A2aServer, A2aServerBuilder};
#[doc(hidden)]
pub use agent::AgentArgs;
pub use agent::{
    Agent, AgentBuilder, AgentInput, AgentOutput, AgentRef, AgentSession, AgentTool, EventStream,
    HandoffTarget, IntoSkill, Manifest, Skill, SkillContext, SkillError, SubAgentInput,
    SubAgentTool, ToolSet,
};
pub use approval::{
    Approval, ApprovalAnswer, ApprovalDesk, ApprovalInbox, ApprovalRequest, Approver, InboxChange,
    InboxError, PendingApproval, StaleApproval, approval_fingerprint, approval_fingerprint_under,
};
pub use budget::{Budget, BudgetLimit, BudgetUsage};
pub use chain::{
    Decision, DecisionKind, Extensions, FnInterceptor, Gate, GateReturn, Gated, InterceptContext,
    Intercepted, Interceptor, InterceptorReturn, IntoDecision, IntoGate, IntoInterceptor,
    IntoVerdict, ParentCall, Verdict, markers,
};
pub use error::{AgentError, BuildError};
pub use events::{
    AgentEvent, DecisionStage, InterceptionPoint, InterceptorDecision, PipelineEvent, RunIds,
};
#[cfg(feature = "sqlite")]
pub use journal::SqliteJournal;
pub use journal::{Journal, JournalError, MemoryJournal, journal_entry};
#[cfg(feature = "mcp-client")]
pub use mcp::{
    FileTokens, McpClientError, McpHttp, McpOAuth, McpStdio, McpToolset, MemoryTokens,
    RemoteBinding, RemoteToolBinding, TokenStore,
};
#[cfg(feature = "mcp")]
pub use mcp::{McpClient, McpHttpServer, McpServeError, McpServer, McpServerBuilder};
#[cfg(feature = "sqlite")]
pub use memory::SqliteStore;
pub use memory::{Conversation, ConversationStore, InMemoryStore, StoreError};
pub use message::{ChatChunk, ChatRequest, ChatResponse, Message, Role, ToolCall, ToolSpec, Usage};
pub use model::{
    ChatStream, ModelClient, ModelError, ModelInfo, Reply, ResponseAssembler, ScriptedModel,
};
pub use observers::OBSERVE_BUFFER;
pub use policy::{Constraint, Grant, Policy, PolicyBuilder};
#[cfg(feature = "anthropic")]
pub use providers::Anthropic;
#[cfg(feature = "openai")]
pub use providers::OpenAiCompatible;
#[cfg(feature = "http")]
pub use providers::{HttpSettings, RetryPolicy};
#[doc(hidden)]
pub use tool::{BoxedChain, DynFn, FromFn, ToolInterceptorOf};
pub use tool::{
    ContentBlock, IntoAfterToolCallInterceptor, IntoAfterToolInterceptor, IntoToolCallGate,
    IntoToolCallInterceptor, IntoToolChain, IntoToolGate, IntoToolInterceptor, LinkedAgent, Tool,
    ToolArguments, ToolChain, ToolContent, ToolContext, ToolError, ToolGate, ToolInterceptor,
};

pub use macros::{
    after_tool_call, agent, before_skill, before_tool_call, before_turn, gate, gate_skill,
    gate_turn, skill, tool,
};

/// The `schemars` this crate is built with: an agent's output and a tool's parameters implement
/// its `JsonSchema` (`#[derive(schemars::JsonSchema)]` with `schemars = "1"` in your manifest).
pub use schemars;

/// The README's code compiles and runs as a doctest — with the features its blocks use, as
/// `cargo test --workspace` (the README's test command) builds this crate.
#[cfg(all(doctest, feature = "sqlite", feature = "a2a", feature = "otel"))]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// The names most agents need, for `use agents_kt::prelude::*`.
pub mod prelude {
    #[cfg(feature = "sqlite")]
    pub use crate::SqliteStore;
    pub use crate::{
        Agent, AgentError, AgentEvent, Budget, BuildError, ConversationStore, Decision, Extensions,
        InMemoryStore, InterceptContext, Message, ModelClient, PipelineEvent, Reply, ScriptedModel,
        Skill, SkillContext, SkillError, Tool, ToolContext, ToolError, ToolGate, ToolInterceptor,
        Verdict,
    };
    // Through `macros`, not the crate root: there `agent`, `gate`, `skill` and `tool` also name
    // private modules, which a root import would drag along (rustdoc lists them as the prelude's).
    pub use crate::macros::{
        after_tool_call, agent, before_skill, before_tool_call, before_turn, gate, gate_skill,
        gate_turn, skill, tool,
    };
}

/// Items generated code names; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::agent::agent_tool_of;
    pub use crate::chain::gate::{FnGate, GateInChain};
    pub use crate::macro_support::*;
    pub use crate::tool::ToolTarget;
    pub use crate::tool::view::{TypedLink, Viewed};
    pub use futures;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use std::borrow::{Borrow, Cow, ToOwned};
    pub use std::sync::Arc;
}
