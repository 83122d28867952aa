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
