//! What an application says about authorizing with a server that requires OAuth (the MCP
//! authorization spec: OAuth 2.1 with PKCE, protected-resource metadata, client registration,
//! client credentials, scope step-up). The flow itself is rmcp's OAuth client, driven by
//! [`authorizer`](super::authorizer); this file only holds the application's choices.

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;

use super::token_store::{MemoryTokens, TokenStore};

/// Receives the authorization URL a person must open, and answers with the URL the
/// authorization server redirected their browser to (the redirect URI with `code` and `state`).
type OpenAuthorization =
    Arc<dyn Fn(String) -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// How a toolset authorizes with an MCP server that answers `401` (or `403` asking for more
/// scope): given to [`McpHttp::oauth`](crate::McpHttp::oauth).
///
/// Nothing is sent before the server asks: the first request goes out without a token, the
/// server's `WWW-Authenticate` challenge names its protected-resource metadata, the
/// authorization server is discovered from it, and the toolset authorizes — with
/// [`authorization_code`](Self::authorization_code) (a person approves in a browser) or
/// [`client_credentials`](Self::client_credentials) (a machine client). Tokens go to a
/// [`TokenStore`] (in memory unless set) and are refreshed when they expire; a `403
/// insufficient_scope` authorizes again for the union of the scopes (at most three times for
/// one request, then the request fails).
///
/// The client is identified, in this order, by a pre-registered [`client_id`](Self::client_id),
/// a client ID metadata document ([`client_metadata_url`](Self::client_metadata_url), when the
/// authorization server supports them), or dynamic client registration.
///
/// Metadata discovery refuses private and link-local addresses unless the server's own URL is
/// one of the same kind (a loopback server may name a loopback authorization server).
///
/// ```no_run
/// use agents_kt::{McpOAuth, McpToolset};
/// # async fn demo() -> Result<(), agents_kt::McpClientError> {
/// let tools = McpToolset::http("https://mcp.example.com/mcp")
///     .oauth(
///         McpOAuth::authorization_code("http://127.0.0.1:8976/callback", |url: String| async move {
///             // Show `url` to the person (open a browser), wait for the redirect to
///             // 127.0.0.1:8976/callback, and return the full URL it was called with.
///             # let _ = url;
///             Ok::<_, String>("http://127.0.0.1:8976/callback?code=…&state=…".to_string())
///         })
///         .client_name("billing-bot"),
///     )
///     .connect()
///     .await?;
/// # let _ = tools; Ok(()) }
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct McpOAuth {
    pub(crate) grant: Grant,
    /// Scopes to ask for the first time; otherwise the challenge's, the resource's, or none.
    pub(crate) scopes: Vec<String>,
    pub(crate) client_name: Option<String>,
    pub(crate) store: Arc<dyn TokenStore>,
}

/// The OAuth grant a toolset uses.
#[derive(Clone)]
pub(crate) enum Grant {
    /// A person approves in a browser (authorization code with PKCE).
    AuthorizationCode(Interactive),
    /// A machine client authorizes by itself (client credentials).
    ClientCredentials(Machine),
}

/// The authorization-code grant's settings.
#[derive(Clone)]
pub(crate) struct Interactive {
    pub redirect_uri: String,
    pub open: OpenAuthorization,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub client_metadata_url: Option<String>,
}

/// How a machine client proves who it is.
#[derive(Clone)]
pub(crate) enum Machine {
    /// A shared secret.
    Secret {
        client_id: String,
        client_secret: String,
    },
    /// A JWT signed with its private key (RFC 7523).
    #[cfg(feature = "mcp-client-jwt")]
    PrivateKeyJwt {
        client_id: String,
        private_key_pem: Vec<u8>,
        algorithm: rmcp::transport::auth::JwtSigningAlgorithm,
    },
}

impl std::fmt::Debug for McpOAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Secrets and keys are never printed.
        let grant = match &self.grant {
            Grant::AuthorizationCode(_) => "authorization_code",
            Grant::ClientCredentials(Machine::Secret { .. }) => "client_credentials",
            #[cfg(feature = "mcp-client-jwt")]
            Grant::ClientCredentials(Machine::PrivateKeyJwt { .. }) => {
                "client_credentials (private_key_jwt)"
            }
        };
        f.debug_struct("McpOAuth")
            .field("grant", &grant)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl McpOAuth {
    fn with(grant: Grant) -> Self {
        McpOAuth {
            grant,
            scopes: Vec::new(),
            client_name: None,
            store: Arc::new(MemoryTokens::default()),
        }
    }

    /// A person authorizes: `open` receives the authorization URL (show it, open a browser)
    /// and answers with the full URL the browser was redirected to at `redirect_uri` (it
    /// carries `code` and `state`; the state is checked). An `Err` from `open` fails the
    /// request that needed authorization with that text. Calls wait while `open` runs: the
    /// application decides how long a person gets.
    pub fn authorization_code<F, Fut>(redirect_uri: impl Into<String>, open: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        Self::with(Grant::AuthorizationCode(Interactive {
            redirect_uri: redirect_uri.into(),
            open: Arc::new(move |url| open(url).boxed()),
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
        }))
    }

    /// A machine client authorizes with its ID and secret (OAuth client credentials; the
    /// secret goes in the body or as HTTP Basic, as the authorization server advertises).
    pub fn client_credentials(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        Self::with(Grant::ClientCredentials(Machine::Secret {
            client_id: client_id.into(),
            client_secret: secret.into(),
        }))
    }

    /// A machine client authorizes with a JWT signed by its private key (`private_key_jwt`,
    /// RFC 7523; feature `mcp-client-jwt`). `algorithm` is `RS256`, `RS384`, `RS512`, `ES256`
    /// or `ES384`; another is an error naming them.
    #[cfg(feature = "mcp-client-jwt")]
    pub fn client_credentials_jwt(
        client_id: impl Into<String>,
        private_key_pem: impl Into<Vec<u8>>,
        algorithm: &str,
    ) -> Result<Self, String> {
        use rmcp::transport::auth::JwtSigningAlgorithm as Alg;
        let algorithm = match algorithm {
            "RS256" => Alg::RS256,
            "RS384" => Alg::RS384,
            "RS512" => Alg::RS512,
            "ES256" => Alg::ES256,
            "ES384" => Alg::ES384,
            other => {
                return Err(format!(
                    "unknown JWT signing algorithm `{other}` (known: RS256, RS384, RS512, ES256, ES384)"
                ));
            }
        };
        Ok(Self::with(Grant::ClientCredentials(
            Machine::PrivateKeyJwt {
                client_id: client_id.into(),
                private_key_pem: private_key_pem.into(),
                algorithm,
            },
        )))
    }

    /// A client ID registered with the authorization server beforehand (authorization code):
    /// no registration is attempted.
    pub fn client_id(mut self, id: impl Into<String>) -> Self {
        if let Grant::AuthorizationCode(interactive) = &mut self.grant {
            interactive.client_id = Some(id.into());
        }
        self
    }

    /// The pre-registered client's secret (a confidential client; authorization code).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        if let Grant::AuthorizationCode(interactive) = &mut self.grant {
            interactive.client_secret = Some(secret.into());
        }
        self
    }

    /// The HTTPS URL of this client's metadata document, used as its client ID where the
    /// authorization server supports client ID metadata documents (authorization code).
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        if let Grant::AuthorizationCode(interactive) = &mut self.grant {
            interactive.client_metadata_url = Some(url.into());
        }
        self
    }

    /// The name dynamic client registration gives this client (`agents-kt` unless set).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = Some(name.into());
        self
    }

    /// The scopes to ask for. Unless set: those the server's challenge names, else those its
    /// protected-resource metadata lists, else none (the `scope` parameter is left out).
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Where tokens are kept: in memory unless set. With a [`FileTokens`](crate::FileTokens),
    /// a restarted application uses (and refreshes) the tokens it had, without asking again.
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }
}
