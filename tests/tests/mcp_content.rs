//! A tool result that is more than text — images, resource links, embedded resources — kept
//! whole: the npm reference server `@modelcontextprotocol/server-everything` (a server we did not
//! write) sends them; the model reads a summary naming each part (never base64), observers and
//! after-tool interceptors read every block (a redaction can drop an image), a typed binding reads
//! them as `ToolContent`, and an agent serving the toolset forwards the blocks to its own clients
//! untouched. A Rust tool returning `ToolContent` is served the same way.
//!
//! Needs `MCP_NODE_DIR` (`eval "$(scripts/mcp-clients.sh)"`, which `scripts/test.sh` runs) for
//! the server tests; `AGENTS_KT_REQUIRE_MCP_CLIENTS=1` makes its absence a failure.

use std::sync::{Arc, Mutex};

use agents_kt::prelude::*;
use agents_kt::{ContentBlock, McpToolset, Role, ToolContent};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The server's entry point, or `None` (after saying why) when it is not installed.
fn everything() -> Option<String> {
    agents_kt_tests::npm::npm_package("@modelcontextprotocol/server-everything", "dist/index.js")
}

async fn toolset(server: &str, tools: &[&str]) -> McpToolset {
    McpToolset::stdio("node")
        .args([server, "stdio"])
        .connect()
        .await
        .expect("the everything server starts and lists its tools")
        .only(tools.iter().copied())
}

/// What the model was told, tool message by tool message, in the second request.
fn told(model: &ScriptedModel) -> Vec<String> {
    model.requests()[1]
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.clone())
        .collect()
}

/// Every `(tool, result)` observers saw.
type Seen = Arc<Mutex<Vec<(String, Value)>>>;

/// An `on_tool_use` observer keeping what it sees in `seen`.
fn observer(seen: &Seen) -> impl Fn(&str, &Value, &Value) + Send + Sync + 'static {
    let seen = Arc::clone(seen);
    move |name, _, result| {
        seen.lock()
            .unwrap()
            .push((name.to_string(), result.clone()))
    }
}

fn seen_result(seen: &Seen, tool: &str) -> Value {
    let seen = seen.lock().unwrap();
    let (_, value) = seen
        .iter()
        .find(|(name, _)| name == tool)
        .unwrap_or_else(|| panic!("{tool} was observed: {seen:?}"));
    value.clone()
}

/// Bytes a base64 text decodes to (standard alphabet, padded).
fn decoded_bytes(base64: &str) -> usize {
    base64.len() / 4 * 3 - base64.bytes().rev().take_while(|b| *b == b'=').count()
}

#[tokio::test]
async fn remote_images_links_and_resources_reach_the_model_as_a_summary_and_observers_whole() {
    let Some(server) = everything() else {
        return;
    };
    let set = toolset(
        &server,
        &[
            "get-tiny-image",
            "get-resource-links",
            "get-resource-reference",
        ],
    )
    .await;
    let model = ScriptedModel::new([
        Reply::tool_calls([
            ("get-tiny-image", json!({})),
            ("get-resource-links", json!({"count": 2})),
            (
                "get-resource-reference",
                json!({"resourceType": "Text", "resourceId": 1}),
            ),
        ]),
        Reply::text("done"),
    ]);
    let seen: Seen = Arc::default();
    let agent = Agent::<String, String>::builder("viewer")
        .model(model.clone())
        .toolset(set)
        .on_tool_use(observer(&seen))
        .build()
        .unwrap();
    assert_eq!(agent.run("look".into()).await.unwrap(), "done");
    let told = told(&model);

    // The image: observers read it whole, the model reads what it is.
    let image = seen_result(&seen, "get-tiny-image");
    let block = &image["content"][1];
    assert_eq!(block["type"], "image");
    assert_eq!(block["mimeType"], "image/png");
    let data = block["data"].as_str().expect("the image's base64");
    assert!(data.starts_with("iVBORw0KGgo"), "a PNG: {}", &data[..16]);
    assert_eq!(
        told[0],
        format!(
            "Here's the image you requested:\n[image: image/png, {} bytes]\nThe image above is the MCP logo.",
            decoded_bytes(data)
        )
    );

    // Resource links: their URIs and names reach the model.
    let links = seen_result(&seen, "get-resource-links");
    let blocks = links["content"].as_array().expect("blocks");
    assert_eq!(blocks.len(), 3, "intro and two links: {links}");
    let mut lines = told[1].lines();
    assert_eq!(
        lines.next(),
        Some("Here are 2 resource links to resources available in this server:")
    );
    for (block, line) in blocks[1..].iter().zip(lines) {
        assert_eq!(block["type"], "resource_link");
        assert_eq!(
            line,
            format!(
                "[resource link: {}, name {:?}, {}]",
                block["uri"].as_str().unwrap(),
                block["name"].as_str().unwrap(),
                block["mimeType"].as_str().unwrap()
            )
        );
    }

    // An embedded text resource: named, and its text read.
    let reference = seen_result(&seen, "get-resource-reference");
    let resource = &reference["content"][1]["resource"];
    assert_eq!(reference["content"][1]["type"], "resource");
    let uri = resource["uri"].as_str().expect("a URI");
    let text = resource["text"].as_str().expect("a text resource");
    assert!(
        told[2].contains(&format!("[resource: {uri}, text/plain]\n{text}")),
        "{}",
        told[2]
    );
    assert!(
        told.iter().all(|t| !t.contains("iVBORw0KGgo")),
        "no base64 for the model"
    );
}

#[tokio::test]
async fn an_after_tool_interceptor_sees_the_blocks_and_can_drop_the_image() {
    let Some(server) = everything() else {
        return;
    };
    let set = toolset(&server, &["get-tiny-image"]).await;
    let model = ScriptedModel::new([
        Reply::tool_calls([("get-tiny-image", json!({}))]),
        Reply::text("done"),
    ]);
    let seen: Seen = Arc::default();
    let agent = Agent::<String, String>::builder("redacting")
        .model(model.clone())
        .toolset(set)
        .on_after_tool_call(|_: &str, _: &Value, result: &Value| {
            let mut kept = result.clone();
            let Some(blocks) = kept["content"].as_array_mut() else {
                return Decision::Proceed;
            };
            blocks.retain(|block| block["type"] != "image");
            Decision::ProceedWith(kept)
        })
        .on_tool_use(observer(&seen))
        .build()
        .unwrap();
    assert_eq!(agent.run("look".into()).await.unwrap(), "done");
    assert_eq!(
        told(&model),
        ["Here's the image you requested:\nThe image above is the MCP logo."]
    );
    let kept = seen_result(&seen, "get-tiny-image");
    assert_eq!(
        kept,
        json!({"content": [
            {"type": "text", "text": "Here's the image you requested:"},
            {"type": "text", "text": "The image above is the MCP logo."}
        ]}),
        "observers see the redacted result"
    );
}

/// `get-tiny-image` takes nothing.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct NoArgs {}

agents_kt::remote_tool! {
    /// The everything server's `get-tiny-image`, read as content.
    pub struct TinyImage("get-tiny-image"): NoArgs => ToolContent;
}

/// Whether `text_only` was handed the image (so it is the server's content it rewrote).
static SAW_IMAGE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Only the text of a picture is for this agent.
#[after_tool_call(TinyImage)]
fn text_only(out: &ToolContent) -> Decision<ToolContent, ToolContent> {
    let image = out
        .blocks()
        .iter()
        .any(|block| block.kind() == "image" && block.mime_type() == Some("image/png"));
    SAW_IMAGE.store(image, std::sync::atomic::Ordering::SeqCst);
    if !out.has_non_text() {
        return Decision::Proceed;
    }
    let text = out
        .blocks()
        .iter()
        .filter(|block| block.kind() == "text")
        .cloned()
        .collect();
    Decision::ProceedWith(ToolContent::new(text))
}

#[tokio::test]
async fn a_typed_binding_reads_remote_content_and_its_typed_after_interceptor_rewrites_it() {
    let Some(server) = everything() else {
        return;
    };
    let set = toolset(&server, &["get-tiny-image"])
        .await
        .bind::<TinyImage>()
        .expect("no arguments fit an empty schema");
    let model = ScriptedModel::new([
        Reply::tool_calls([("get-tiny-image", json!({}))]),
        Reply::text("done"),
    ]);
    let agent = Agent::<String, String>::builder("typed")
        .model(model.clone())
        .toolset(set)
        .after_tool_call::<TinyImage, _>(text_only)
        .build()
        .unwrap();
    assert_eq!(agent.run("look".into()).await.unwrap(), "done");
    assert!(
        SAW_IMAGE.load(std::sync::atomic::Ordering::SeqCst),
        "the typed interceptor read the image"
    );
    assert_eq!(
        told(&model),
        ["Here's the image you requested:\nThe image above is the MCP logo."]
    );
}

/// A client of an agent's MCP server, in process.
async fn client_of(
    server: agents_kt::McpServer<String, String>,
) -> rmcp::service::RunningService<rmcp::RoleClient, ClientConfig> {
    let (server_side, client_side) = tokio::io::duplex(256 * 1024);
    tokio::spawn(server.serve(tokio::io::split(server_side)));
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("viewer", "1.0"),
    )
    .serve(tokio::io::split(client_side))
    .await
    .expect("the client connects")
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    CallToolRequestParams::new(name.to_string()).with_arguments(arguments)
}

#[tokio::test]
async fn a_gateway_forwards_the_upstream_content_blocks_untouched() {
    let Some(server) = everything() else {
        return;
    };
    let set = toolset(&server, &["get-annotated-message", "get-tiny-image"]).await;
    let seen: Seen = Arc::default();
    let agent = Agent::<String, String>::builder("gateway")
        .model(ScriptedModel::default())
        .toolset(set.clone())
        .on_tool_use(observer(&seen))
        .build()
        .unwrap();
    let gateway = agents_kt::McpServer::builder(agent)
        .expose_toolset(&set)
        .build()
        .unwrap();
    let client = client_of(gateway).await;
    let annotated = client
        .call_tool(params(
            "get-annotated-message",
            json!({"messageType": "error", "includeImage": true}),
        ))
        .await
        .expect("the gateway answers");
    assert_ne!(annotated.is_error, Some(true), "{annotated:?}");
    let forwarded = serde_json::to_value(&annotated.content).unwrap();
    let upstream = seen_result(&seen, "get-annotated-message");
    assert_eq!(
        forwarded, upstream["content"],
        "the blocks as the upstream sent them"
    );
    let image = forwarded
        .as_array()
        .unwrap()
        .iter()
        .find(|block| block["type"] == "image")
        .expect("the image crossed the gateway");
    assert!(
        image["annotations"]["audience"].is_array(),
        "annotations kept: {image}"
    );
    let tiny = client
        .call_tool(params("get-tiny-image", json!({})))
        .await
        .expect("the gateway answers");
    assert_eq!(
        serde_json::to_value(&tiny.content).unwrap(),
        seen_result(&seen, "get-tiny-image")["content"]
    );
    assert_eq!(tiny.content.len(), 3);
}

/// A screenshot of the page at `url`: its title and a (one-pixel) picture.
#[tool]
async fn screenshot(url: String) -> Result<ToolContent, ToolError> {
    Ok(ToolContent::new(vec![
        ContentBlock::text(format!("{url}: Welcome")),
        ContentBlock::image("R0lGODlhAQABAAAAACw=", "image/gif"),
        ContentBlock::resource_link(format!("{url}/page.html"), "page.html"),
    ]))
}

/// A model that takes one screenshot, then answers "done".
fn screenshot_once() -> ScriptedModel {
    ScriptedModel::new([
        Reply::tool_calls([("screenshot", json!({"url": "https://example.test"}))]),
        Reply::text("done"),
    ])
}

/// An agent with the screenshot tool, on `model`.
fn browser(model: ScriptedModel) -> agents_kt::AgentBuilder<String, String> {
    Agent::<String, String>::builder("browser")
        .model(model)
        .tool(Screenshot)
}

#[tokio::test]
async fn a_rust_tool_returning_content_is_summarized_for_the_model_and_served_as_blocks() {
    let model = screenshot_once();
    let agent = browser(model.clone()).build().unwrap();
    assert_eq!(agent.run("look".into()).await.unwrap(), "done");
    assert_eq!(
        told(&model),
        [
            "https://example.test: Welcome\n[image: image/gif, 14 bytes]\n\
          [resource link: https://example.test/page.html, name \"page.html\"]"
        ]
    );

    let served = browser(ScriptedModel::default()).build().unwrap();
    let server = agents_kt::McpServer::builder(served)
        .expose_tool::<Screenshot>()
        .build()
        .unwrap();
    let client = client_of(server).await;
    let result = client
        .call_tool(params("screenshot", json!({"url": "https://example.test"})))
        .await
        .expect("the server answers");
    assert_eq!(
        serde_json::to_value(&result.content).unwrap(),
        json!([
            {"type": "text", "text": "https://example.test: Welcome"},
            {"type": "image", "data": "R0lGODlhAQABAAAAACw=", "mimeType": "image/gif"},
            {"type": "resource_link", "uri": "https://example.test/page.html", "name": "page.html"}
        ])
    );
}

#[tokio::test]
async fn a_content_result_counts_against_the_result_budget_by_its_blocks_not_its_summary() {
    let model = screenshot_once();
    let agent = browser(model.clone())
        // The summary (124 bytes) fits; the blocks (221 bytes as JSON) do not.
        .budget(Budget::default().max_tool_result_bytes(160))
        .build()
        .unwrap();
    assert_eq!(agent.run("look".into()).await.unwrap(), "done");
    assert_eq!(
        told(&model),
        [
            "ERROR: Tool 'screenshot' result withheld by policy: the result is 221 bytes, the limit is 160 bytes (max_tool_result_bytes)"
        ]
    );
}
