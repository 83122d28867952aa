//! The two servers both MCP benches compare: `McpServer` with 8 Proceed interceptors on the
//! weather tool, and the same tool on a bare rmcp server written with rmcp's own macros.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, ServerHandler, tool, tool_handler, tool_router};

use agents_kt::McpServer;
use agents_kt::prelude::*;

use super::weather::{GetWeather, Weather, WeatherArgs, forecast, interceptors};

/// The agent's server: the weather tool behind 8 Proceed interceptors.
pub fn guarded_server() -> McpServer<String, String> {
    let mut builder = Agent::<String, String>::builder("bench")
        .model(ScriptedModel::default())
        .tool(GetWeather);
    for interceptor in interceptors(8) {
        builder = builder.before_tool_call(interceptor);
    }
    McpServer::builder(builder.build().expect("the agent builds"))
        .expose_tool::<GetWeather>()
        .build()
        .expect("the server builds")
}

/// The same tool on a bare rmcp server.
#[derive(Clone)]
pub struct BareServer {
    tool_router: ToolRouter<Self>,
}

impl BareServer {
    pub fn new() -> Self {
        BareServer {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl BareServer {
    #[tool(description = "Weather forecast for a city.")]
    async fn get_weather(&self, Parameters(args): Parameters<WeatherArgs>) -> Json<Weather> {
        Json(forecast(args))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for BareServer {}

/// The bare server over streamable HTTP on loopback (axum, `TCP_NODELAY` set), serving until the
/// runtime stops; its address.
pub async fn serve_bare_http() -> std::net::SocketAddr {
    use axum::serve::ListenerExt;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let service = StreamableHttpService::new(
        || Ok(BareServer::new()),
        std::sync::Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let address = listener.local_addr().expect("its address");
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, router).await });
    address
}
