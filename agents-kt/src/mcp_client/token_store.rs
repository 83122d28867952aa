//! Where a toolset's OAuth tokens are kept between requests and, with a file, between runs.
//! The tokens are one JSON document the store keeps whole; rmcp's OAuth client reads and writes
//! it through [`Kept`].

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};

/// Keeps a toolset's OAuth tokens (given to [`McpOAuth::token_store`](crate::McpOAuth::token_store)).
///
/// The tokens are one opaque JSON document (client ID, access and refresh token, granted
/// scopes, issuer): store it whole, and treat it as a secret. Errors are texts; a failing store
/// fails the request that needed it, and nothing is retried behind the caller.
///
/// ```
/// use std::sync::Mutex;
/// use agents_kt::TokenStore;
/// use futures::future::{BoxFuture, FutureExt};
///
/// /// Tokens in a vault of the application's own (here, a mutex).
/// #[derive(Default)]
/// struct Vault(Mutex<Option<String>>);
///
/// impl TokenStore for Vault {
///     fn load(&self) -> BoxFuture<'_, Result<Option<String>, String>> {
///         let kept = self.0.lock().map_err(|_| "poisoned".to_string()).map(|k| k.clone());
///         async move { kept }.boxed()
///     }
///     fn save(&self, tokens: String) -> BoxFuture<'_, Result<(), String>> {
///         let saved = self.0.lock().map(|mut k| *k = Some(tokens)).map_err(|_| "poisoned".to_string());
///         async move { saved }.boxed()
///     }
///     fn clear(&self) -> BoxFuture<'_, Result<(), String>> {
///         let cleared = self.0.lock().map(|mut k| *k = None).map_err(|_| "poisoned".to_string());
///         async move { cleared }.boxed()
///     }
/// }
/// let _ = agents_kt::McpOAuth::client_credentials("id", "secret").token_store(Vault::default());
/// ```
pub trait TokenStore: Send + Sync + 'static {
    /// The document last saved, if any.
    fn load(&self) -> BoxFuture<'_, Result<Option<String>, String>>;
    /// Keep `tokens`, replacing what was kept.
    fn save(&self, tokens: String) -> BoxFuture<'_, Result<(), String>>;
    /// Forget the tokens (the authorization server changed, or they were rejected).
    fn clear(&self) -> BoxFuture<'_, Result<(), String>>;
}

/// Tokens in memory: lost when the process ends (the default).
#[derive(Debug, Default)]
pub struct MemoryTokens {
    kept: Mutex<Option<String>>,
}

impl TokenStore for MemoryTokens {
    fn load(&self) -> BoxFuture<'_, Result<Option<String>, String>> {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        async move { Ok(kept) }.boxed()
    }

    fn save(&self, tokens: String) -> BoxFuture<'_, Result<(), String>> {
        *self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(tokens);
        async { Ok(()) }.boxed()
    }

    fn clear(&self) -> BoxFuture<'_, Result<(), String>> {
        *self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
        async { Ok(()) }.boxed()
    }
}

/// Tokens in a file, readable by its owner only (mode 0600 on Unix), replaced atomically (a
/// crash mid-write leaves the old tokens): a restarted application goes on with them.
///
/// ```no_run
/// use agents_kt::{FileTokens, McpOAuth};
/// let oauth = McpOAuth::client_credentials("reporting", "s3cret")
///     .token_store(FileTokens::new("/var/lib/reporting/mcp-tokens.json"));
/// # let _ = oauth;
/// ```
#[derive(Debug, Clone)]
pub struct FileTokens {
    path: PathBuf,
}

impl FileTokens {
    /// Tokens kept at `path` (created at the first save; its directory must exist).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokens { path: path.into() }
    }
}

impl TokenStore for FileTokens {
    fn load(&self) -> BoxFuture<'_, Result<Option<String>, String>> {
        async move {
            match tokio::fs::read_to_string(&self.path).await {
                Ok(text) => Ok(Some(text)),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(error) => Err(format!("reading {}: {error}", self.path.display())),
            }
        }
        .boxed()
    }

    fn save(&self, tokens: String) -> BoxFuture<'_, Result<(), String>> {
        async move {
            let path = self.path.clone();
            tokio::task::spawn_blocking(move || write_private(&path, tokens.as_bytes()))
                .await
                .map_err(|error| format!("saving tokens: {error}"))?
        }
        .boxed()
    }

    fn clear(&self) -> BoxFuture<'_, Result<(), String>> {
        async move {
            match tokio::fs::remove_file(&self.path).await {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    Err(format!("removing {}: {error}", self.path.display()))
                }
                _ => Ok(()),
            }
        }
        .boxed()
    }
}

/// Writes `bytes` to a temporary file beside `path`, private from its creation, then renames it
/// over `path`.
fn write_private(path: &std::path::Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let failed = |error: std::io::Error| format!("writing {}: {error}", path.display());
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&temporary).map_err(failed)?;
    file.write_all(bytes).map_err(failed)?;
    file.sync_all().map_err(failed)?;
    std::fs::rename(&temporary, path).map_err(failed)
}

/// An application's [`TokenStore`] as rmcp's credential store.
pub(crate) struct Kept(pub Arc<dyn TokenStore>);

fn store_failed(error: String) -> AuthError {
    AuthError::CredentialStoreError(error)
}

#[async_trait::async_trait]
impl CredentialStore for Kept {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match self.0.load().await.map_err(store_failed)? {
            None => Ok(None),
            Some(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|error| store_failed(format!("the kept tokens are unreadable: {error}"))),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let text =
            serde_json::to_string(&credentials).map_err(|error| store_failed(error.to_string()))?;
        self.0.save(text).await.map_err(store_failed)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.0.clear().await.map_err(store_failed)
    }
}
