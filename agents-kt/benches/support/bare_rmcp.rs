//! The same weather tool on a bare rmcp server, written with rmcp's own macros: the baseline
//! both MCP benches compare `McpServer` with.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, ServerHandler, tool, tool_handler, tool_router};

use super::weather::{Weather, WeatherArgs, forecast};

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
