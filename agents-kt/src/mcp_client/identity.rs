//! What the client says of itself in `initialize`: its name and version (`clientInfo`, which
//! servers log and may authorize by) and the protocol version it asks for.

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitationCapability, FormElicitationCapability,
    Implementation, ProtocolVersion,
};

/// The `clientInfo` and protocol version a toolset sends; agents-kt's own name and version, and
/// rmcp's newest protocol, unless the application sets them.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    pub name: String,
    pub version: String,
    pub protocol: ProtocolVersion,
}

impl Default for Identity {
    fn default() -> Self {
        Identity {
            name: "agents-kt".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            protocol: ProtocolVersion::LATEST,
        }
    }
}

impl Identity {
    /// The protocol version named `version` (`"2025-11-25"`, …): one rmcp knows, since the
    /// client must speak what it asks for.
    pub(crate) fn protocol_named(version: &str) -> Result<ProtocolVersion, String> {
        [
            ProtocolVersion::V_2026_07_28,
            ProtocolVersion::V_2025_11_25,
            ProtocolVersion::V_2025_06_18,
            ProtocolVersion::V_2025_03_26,
            ProtocolVersion::V_2024_11_05,
        ]
        .into_iter()
        .find(|known| known.as_str() == version)
        .ok_or_else(|| {
            format!(
                "unknown MCP protocol version `{version}` (known: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)"
            )
        })
    }

    /// The `initialize` parameters; `elicits`: the application answers servers' questions, so
    /// form elicitation (with the answer checked against its schema) is offered.
    pub(crate) fn client_info(&self, elicits: bool) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if elicits {
            capabilities.elicitation = Some(
                ElicitationCapability::new()
                    .with_form(FormElicitationCapability::new().with_schema_validation(true)),
            );
        }
        ClientConfig::new(
            capabilities,
            Implementation::new(self.name.clone(), self.version.clone()),
        )
        .with_protocol_version(self.protocol.clone())
    }
}

/// What an application may set of a client, whichever way it reaches the server.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub identity: Identity,
    /// The protocol version asked for by name; checked by [`Settings::resolve`].
    pub protocol: Option<String>,
    pub call_timeout: std::time::Duration,
    /// Who answers the server's questions to a person; `None`: elicitation is not offered.
    pub elicit: Option<super::elicitation::Elicit>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            identity: Identity::default(),
            protocol: None,
            call_timeout: super::DEFAULT_CALL_TIMEOUT,
            elicit: None,
        }
    }
}

impl Settings {
    /// The protocol version named, checked before anything is sent to `server`.
    pub(crate) fn resolve(&mut self, server: &str) -> Result<(), super::McpClientError> {
        if let Some(version) = &self.protocol {
            self.identity.protocol =
                Identity::protocol_named(version).map_err(|reason| super::McpClientError {
                    server: server.to_string(),
                    reason,
                })?;
        }
        Ok(())
    }
}
