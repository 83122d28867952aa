//! Authorizing with a server that answered `401`/`403` with a challenge, by rmcp's OAuth
//! client: discovery from the challenge, client registration, the grant the application chose,
//! tokens into its store. Every request of every connection to the server goes through one
//! [`AuthClient`] whose manager this replaces when an authorization completes, so the next
//! request carries the new token.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::transport::AuthClient;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession,
    ClientCredentialsConfig, WWWAuthenticateParams,
};

use super::McpClientError;
use super::oauth::{Grant, Interactive, Machine, McpOAuth};
use super::token_store::Kept;

/// How many times one request may authorize before it fails: a server that keeps refusing
/// (a scope the authorization server never grants) must not make the client loop.
pub(crate) const MAX_AUTHORIZATIONS: u32 = 3;

pub(crate) struct Authorizer {
    url: String,
    oauth: McpOAuth,
    /// The HTTP client every connection sends through; its manager is the current one.
    client: AuthClient<reqwest::Client>,
    /// Bumped by each completed authorization: a request that failed before one completed is
    /// sent again without authorizing a second time.
    generation: AtomicU64,
    /// The scopes granted so far, asked for again (with more) when the server wants more.
    asked: std::sync::Mutex<Vec<String>>,
    /// One authorization at a time (a person is asked once, not once per waiting call).
    authorizing: tokio::sync::Mutex<()>,
}

impl Authorizer {
    /// The authorizer of the server at `url`, with the tokens its store kept from an earlier
    /// run (used, and refreshed, before anyone is asked).
    pub(crate) async fn new(url: &str, oauth: McpOAuth) -> Result<Arc<Self>, McpClientError> {
        let mut manager = manager(url, &oauth).await?;
        if let Err(error) = manager.initialize_from_store().await {
            // Kept tokens that cannot be used are not fatal: the server's challenge will ask.
            tracing::warn!(%error, "the kept OAuth tokens could not be used");
        }
        Ok(Arc::new(Authorizer {
            url: url.to_string(),
            client: AuthClient::new(reqwest::Client::new(), manager),
            oauth,
            generation: AtomicU64::new(0),
            asked: std::sync::Mutex::default(),
            authorizing: tokio::sync::Mutex::new(()),
        }))
    }

    /// The HTTP client to connect with: the token is added to each request, refreshed once
    /// when the server rejects it.
    pub(crate) fn client(&self) -> AuthClient<reqwest::Client> {
        self.client.clone()
    }

    /// What to pass to [`authorize`](Self::authorize) for a request about to be sent.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Authorize in answer to the server's `challenge` (its `WWW-Authenticate`), unless an
    /// authorization completed since the refused request was sent (`seen`).
    pub(crate) async fn authorize(&self, challenge: &str, seen: u64) -> Result<(), McpClientError> {
        let _one_at_a_time = self.authorizing.lock().await;
        if self.generation() != seen {
            return Ok(());
        }
        let mut manager = manager(&self.url, &self.oauth).await?;
        let resolution = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await
            .map_err(|error| self.failed(error))?;
        manager.set_metadata(resolution.metadata);
        let manager = match &self.oauth.grant {
            Grant::AuthorizationCode(interactive) => {
                self.by_a_person(manager, interactive, challenge).await?
            }
            Grant::ClientCredentials(machine) => {
                let config = self.client_credentials(machine, self.scopes(challenge));
                manager
                    .validate_client_credentials_metadata(&config)
                    .map_err(|error| self.failed(error))?;
                manager
                    .configure_client_credentials(&config)
                    .map_err(|error| self.failed(error))?;
                exchange(manager, config)
                    .await
                    .map_err(|error| self.failed(error))?
            }
        };
        let granted = manager.get_current_scopes().await;
        remember(&self.asked, granted);
        *self.client.auth_manager.lock().await = manager;
        self.generation.fetch_add(1, Ordering::AcqRel);
        tracing::info!(server = %self.url, "authorized with the MCP server");
        Ok(())
    }

    /// The scopes to ask for: those asked for before, the application's, and the challenge's
    /// (a `403 insufficient_scope` names what the refused request needs) — a union, so a step
    /// up never loses what was granted. Empty: the SDK chooses (the resource's, or none).
    fn scopes(&self, challenge: &str) -> Vec<String> {
        let mut scopes = self
            .asked
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        let named = reqwest::Url::parse(&self.url)
            .ok()
            .and_then(|url| WWWAuthenticateParams::parse(challenge, &url).scope);
        let named = named.iter().flat_map(|scope| scope.split_whitespace());
        for scope in self.oauth.scopes.iter().map(String::as_str).chain(named) {
            if !scopes.iter().any(|known| known == scope) {
                scopes.push(scope.to_string());
            }
        }
        scopes
    }

    fn failed(&self, error: AuthError) -> McpClientError {
        McpClientError {
            server: self.url.clone(),
            reason: format!("authorizing with the server failed: {error}"),
        }
    }

    /// The authorization-code flow: the application's `open` takes the person to the
    /// authorization URL and brings back the redirect; the code is exchanged for tokens.
    async fn by_a_person(
        &self,
        manager: AuthorizationManager,
        interactive: &Interactive,
        challenge: &str,
    ) -> Result<AuthorizationManager, McpClientError> {
        let mut request = AuthorizationRequest::new(interactive.redirect_uri.clone())
            .with_challenge(challenge)
            .with_initial_scope_selection()
            .with_client_name(self.oauth.client_name.as_deref().unwrap_or("agents-kt"));
        let scopes = self.scopes(challenge);
        if !scopes.is_empty() {
            request = request.with_scopes(scopes);
        }
        if let Some(id) = &interactive.client_id {
            request = request.with_preregistered_client(id.clone());
        }
        if let Some(secret) = &interactive.client_secret {
            request = request.with_client_secret(secret.clone());
        }
        if let Some(url) = &interactive.client_metadata_url {
            request = request.with_client_metadata_url(url.clone());
        }
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, error)| self.failed(error))?;
        let redirected = (interactive.open)(session.get_authorization_url().to_string())
            .await
            .map_err(|reason| McpClientError {
                server: self.url.clone(),
                reason: format!("the authorization was not completed: {reason}"),
            })?;
        session
            .handle_callback_url(&redirected)
            .await
            .map_err(|error| self.failed(error))?;
        Ok(session.auth_manager)
    }

    /// The client-credentials request of a machine client; the resource is the server's URL
    /// (the MCP spec requires one on every token request).
    fn client_credentials(
        &self,
        machine: &Machine,
        scopes: Vec<String>,
    ) -> ClientCredentialsConfig {
        let resource = Some(self.url.clone());
        match machine {
            Machine::Secret {
                client_id,
                client_secret,
            } => ClientCredentialsConfig::ClientSecret {
                client_id: client_id.clone(),
                client_secret: client_secret.clone(),
                scopes,
                resource,
            },
            #[cfg(feature = "mcp-client-jwt")]
            Machine::PrivateKeyJwt {
                client_id,
                private_key_pem,
                algorithm,
            } => ClientCredentialsConfig::PrivateKeyJwt {
                client_id: client_id.clone(),
                signing_key: private_key_pem.clone(),
                signing_algorithm: *algorithm,
                token_endpoint_audience: None,
                scopes,
                resource,
            },
        }
    }
}

/// The token request of a machine client. rmcp's `private_key_jwt` exchange holds a
/// non-`Send` value across an await (3.11), so its future cannot be awaited inside a tool call
/// (which must be `Send`): the exchange runs to completion on a blocking thread of the same
/// runtime instead.
async fn exchange(
    manager: AuthorizationManager,
    config: ClientCredentialsConfig,
) -> Result<AuthorizationManager, AuthError> {
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        runtime.block_on(async move {
            manager.exchange_client_credentials(&config).await?;
            Ok(manager)
        })
    })
    .await
    .map_err(|error| AuthError::InternalError(format!("the token request panicked: {error}")))?
}

/// Adds `granted` to the scopes asked for.
fn remember(asked: &std::sync::Mutex<Vec<String>>, granted: Vec<String>) {
    let mut asked = asked
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    for scope in granted {
        if !asked.contains(&scope) {
            asked.push(scope);
        }
    }
}

/// A manager for the server at `url` over the application's token store.
async fn manager(url: &str, oauth: &McpOAuth) -> Result<AuthorizationManager, McpClientError> {
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|error| McpClientError {
            server: url.to_string(),
            reason: format!("the server's URL cannot be authorized against: {error}"),
        })?;
    manager.set_credential_store(Kept(Arc::clone(&oauth.store)));
    Ok(manager)
}
