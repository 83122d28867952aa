// A real MCP client we did not write (the npm package @modelcontextprotocol/sdk) against
// examples/mcp_gateway in front of the npm filesystem server. Exits non-zero, saying which check
// failed, if any behaviour is wrong; the Rust test then checks the disk.
// Usage: node gateway_client.cjs <gateway: a JSON command line, or an http URL> <root> <directory holding node_modules>
const path = require("node:path");
const [gateway, root, modules] = process.argv.slice(2);
const sdk = (name) => require(path.join(modules, "node_modules/@modelcontextprotocol/sdk/dist/cjs", name));
const { Client } = sdk("client/index.js");
const { StdioClientTransport } = sdk("client/stdio.js");
const { StreamableHTTPClientTransport } = sdk("client/streamableHttp.js");

function check(condition, what) {
  if (!condition) {
    console.error(`gateway client: FAILED: ${what}`);
    process.exit(1);
  }
  console.log(`gateway client: ok: ${what}`);
}

const textOf = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text).join("");

async function main() {
  const client = new Client({ name: "gateway-e2e", version: "1.0.0" });
  let transport;
  if (gateway.startsWith("http")) {
    transport = new StreamableHTTPClientTransport(new URL(gateway));
  } else {
    const [command, ...args] = JSON.parse(gateway);
    transport = new StdioClientTransport({ command, args, stderr: "ignore" });
  }
  await client.connect(transport);
  const names = (await client.listTools()).tools.map((t) => t.name);
  check(names.includes("write_file") && names.includes("read_text_file"), `the server's tools are re-served: ${names}`);

  const notes = path.join(root, "notes");
  const allowed = await client.callTool({
    name: "write_file",
    arguments: { path: path.join(notes, "plan.txt"), content: "ship friday\nAPI_KEY=sk-12345\nthen rest" },
  });
  check(!allowed.isError, `a write inside ${notes} passes: ${textOf(allowed)}`);

  const outside = await client.callTool({ name: "write_file", arguments: { path: path.join(root, "outside.txt"), content: "x" } });
  check(outside.isError === true && textOf(outside) === `ERROR: Tool 'write_file' denied by policy: writes stay inside ${notes}`,
    `a write outside is denied by the gateway's gate: ${textOf(outside)}`);

  for (const dodge of [`${notes}/../escape.txt`, `${notes}//../escape2.txt`]) {
    const dodged = await client.callTool({ name: "write_file", arguments: { path: dodge, content: "x" } });
    check(dodged.isError === true && textOf(dodged).includes("denied by policy"),
      `a path that climbs out is normalized, then denied: ${dodge} -> ${textOf(dodged)}`);
  }

  // A media read comes back base64-encoded, past the line-based secret filter: it is confined
  // to the allowed directory like a write (the server's root is wider than it).
  check(names.includes("read_media_file"), "the server offers read_media_file");
  const media = await client.callTool({ name: "read_media_file", arguments: { path: path.join(root, "outside.png") } });
  check(media.isError === true && textOf(media) === `ERROR: Tool 'read_media_file' denied by policy: media reads stay inside ${notes}`,
    `a media read outside is denied by the gateway's gate: ${textOf(media)}`);

  const read = await client.callTool({ name: "read_text_file", arguments: { path: path.join(notes, "plan.txt") } });
  const text = textOf(read);
  check(!read.isError && text.includes("ship friday") && text.includes("then rest") && !text.includes("API_KEY"),
    `the secret line is removed before the client reads the file: ${JSON.stringify(text)}`);
  await client.close();
  console.log("gateway client: all checks passed");
}

main().catch((error) => {
  console.error(`gateway client: FAILED: ${error.stack || error}`);
  process.exit(1);
});
