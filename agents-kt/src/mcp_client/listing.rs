//! What the server lists now. The toolset is registered on agents with the listing it had when
//! connected; the server may change its tools later (it says so with
//! `notifications/tools/list_changed`, and a restarted server may list others). The live listing
//! is re-read then, and every call is checked against it before it is sent: a tool the server no
//! longer lists, or whose input schema changed since the agent was built (the model wrote its
//! arguments for the old one), is refused with a clear error rather than sent.

use std::sync::{Arc, RwLock};

use rmcp::handler::client::ClientHandler;
use rmcp::service::{NotificationContext, RoleClient};
use serde_json::Value;

use super::RemoteTool;

/// The server's tools as last listed, in its order.
#[derive(Default)]
pub(crate) struct Listing {
    tools: RwLock<Vec<RemoteTool>>,
}

/// Why a call may not be sent.
pub(crate) enum Unlisted {
    /// The server no longer lists the tool.
    Gone,
    /// It lists it with another input schema.
    Changed,
}

impl Listing {
    /// Take the server's new list.
    pub(crate) fn replace(&self, tools: &[rmcp::model::Tool]) {
        let listed = tools.iter().map(RemoteTool::listed).collect();
        *self
            .tools
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = listed;
    }

    /// Whether the server still lists `name` with the input schema `schema` (the same `Arc`
    /// until the list is re-read; compared by content after).
    pub(crate) fn check(&self, name: &str, schema: &Arc<Value>) -> Result<(), Unlisted> {
        let tools = self
            .tools
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match tools.iter().find(|tool| *tool.remote_name == *name) {
            None => Err(Unlisted::Gone),
            Some(tool) if Arc::ptr_eq(&tool.input_schema, schema) => Ok(()),
            Some(tool) if *tool.input_schema != **schema => Err(Unlisted::Changed),
            Some(_) => Ok(()),
        }
    }

    /// The tools the server lists now.
    pub(crate) fn tools(&self) -> Vec<RemoteTool> {
        self.tools
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

/// The client's side of a connection: says who it is, re-lists the server's tools when it
/// says they changed, and passes its questions for a person to the application.
pub(crate) struct Notices {
    pub listing: Arc<Listing>,
    pub identity: super::identity::Identity,
    pub elicit: Option<super::elicitation::Elicit>,
    /// The server's URL or command line, for the application's answerer.
    pub server: String,
}

impl ClientHandler for Notices {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        self.identity.client_info(self.elicit.is_some())
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        match &self.elicit {
            Some(elicit) => elicit.answer(&self.server, request).await,
            // Not offered: a server that asks anyway is declined.
            None => Ok(rmcp::model::ElicitResult::new(
                rmcp::model::ElicitationAction::Decline,
            )),
        }
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        match context.peer.list_all_tools().await {
            Ok(tools) => {
                tracing::info!(
                    tools = tools.len(),
                    "the MCP server's tool list changed; re-listed"
                );
                self.listing.replace(&tools);
            }
            Err(error) => {
                tracing::warn!(%error, "the MCP server's tool list changed, but re-listing it failed")
            }
        }
    }
}
