// A real MCP client we did not write (the npm package @modelcontextprotocol/sdk: Client +
// StdioClientTransport) against examples/mcp_server over stdio. Exits non-zero, saying which
// check failed, if any behaviour is wrong.
// Usage: node node_client.cjs <server binary> <directory holding node_modules>
const path = require("node:path");
const [server, modules] = process.argv.slice(2);
const sdk = (name) => require(path.join(modules, "node_modules/@modelcontextprotocol/sdk/dist/cjs", name));
const { Client } = sdk("client/index.js");
const { StdioClientTransport } = sdk("client/stdio.js");
const { StreamableHTTPClientTransport } = sdk("client/streamableHttp.js");
const { LoggingMessageNotificationSchema } = sdk("types.js");
// A server URL means streamable HTTP, authenticating as `<client name>-token`; else a command.
const overHttp = server.startsWith("http");

function check(condition, what) {
  if (!condition) {
    console.error(`node client: FAILED: ${what}`);
    process.exit(1);
  }
  console.log(`node client: ok: ${what}`);
}

const textOf = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text).join("");

async function connect(name) {
  const client = new Client({ name, version: "1.0.0" });
  const transport = overHttp
    ? new StreamableHTTPClientTransport(new URL(server), { requestInit: { headers: { Authorization: `Bearer ${name}-token` } } })
    : new StdioClientTransport({ command: server, args: [], stderr: "ignore" });
  await client.connect(transport);
  return client;
}

async function rejects(promise, needle, what) {
  try {
    await promise;
    check(false, what);
  } catch (error) {
    check(String(error.message).includes(needle), `${what}: ${error.message}`);
  }
}

async function main() {
  const trusted = await connect("trusted");
  const names = (await trusted.listTools()).tools.map((t) => t.name);
  check(JSON.stringify(names) === JSON.stringify(["get_weather", "writeFile", "echo"]), `tools/list: ${names}`);
  const proceed = await trusted.callTool({ name: "get_weather", arguments: { city: "Oslo" } });
  check(!proceed.isError && JSON.parse(textOf(proceed)).city === "Oslo", "a call that proceeds runs the tool");
  const denied = await trusted.callTool({ name: "writeFile", arguments: { path: "/etc/passwd", contents: "x" } });
  check(denied.isError === true && textOf(denied) === "ERROR: Tool 'writeFile' denied by policy: system paths are off-limits",
    `a denied call is an isError result with the exact text: ${textOf(denied)}`);
  for (const dodge of ["//etc/passwd", "/tmp/../etc/passwd", "/ETC/passwd", "/etc/./passwd", "etc/passwd"]) {
    const dodged = await trusted.callTool({ name: "writeFile", arguments: { path: dodge, contents: "x" } });
    check(dodged.isError === true && textOf(dodged).includes("denied by policy"),
      `another spelling of a system path is denied too: ${dodge} -> ${textOf(dodged)}`);
  }
  const substituted = await trusted.callTool({ name: "get_weather", arguments: { city: "Moon" } });
  check(JSON.parse(textOf(substituted)).cached === true, "a substituted call returns the substitute");
  const mutated = await trusted.callTool({ name: "get_weather", arguments: { city: "paris" } });
  check(JSON.parse(textOf(mutated)).city === "Paris", "a ProceedWith call runs with the replacement");
  await rejects(trusted.callTool({ name: "launch_missiles", arguments: {} }), "unknown tool", "an unknown tool is a JSON-RPC error");
  const invalid = await trusted.callTool({ name: "get_weather", arguments: { town: 3 } });
  check(invalid.isError === true && textOf(invalid).includes("Invalid arguments"), "invalid arguments are an isError result");
  const again = await trusted.callTool({ name: "echo", arguments: { input: "still here" } });
  check(textOf(again) === "echo: still here", "the server still answers after bad requests");

  const logged = [];
  trusted.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => logged.push(notification.params));
  // Read on the wire: the SDK hands progress to `onprogress` asynchronously and drops what is
  // still queued when the answer arrives in the same read, so its callback may miss the last one.
  const wire = [];
  const deliver = trusted.transport.onmessage;
  trusted.transport.onmessage = (message, extra) => {
    if (message.method === "notifications/progress") {
      wire.push([message.params.progress, message.params.total, message.params.message]);
    } else if (message.result && message.result.content) {
      wire.push("result");
    }
    deliver(message, extra);
  };
  await trusted.callTool({ name: "get_weather", arguments: { city: "Oslo" } }, undefined, { onprogress: () => {} });
  check(JSON.stringify(wire) === JSON.stringify([[1, 2, "looking up Oslo"], [2, 2, "done"], "result"]),
    `a call with a progress token receives the tool's progress in order, before its result: ${JSON.stringify(wire)}`);
  check(logged.length === 0, `no log is sent before the client sets a level: ${JSON.stringify(logged)}`);
  await trusted.setLoggingLevel("info");
  await trusted.callTool({ name: "get_weather", arguments: { city: "Oslo" } });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const lookups = logged.filter((entry) => entry.data && entry.data.message === "weather looked up");
  check(lookups.length === 1 && lookups[0].level === "info" && lookups[0].data.city === "Oslo",
    `after logging/setLevel the call's tracing events reach the client: ${JSON.stringify(logged)}`);
  await trusted.close();

  const intern = await connect("intern");
  const visible = (await intern.listTools()).tools.map((t) => t.name);
  check(!visible.includes("writeFile"), `the policy filters tools/list for this client: ${visible}`);
  await rejects(intern.callTool({ name: "writeFile", arguments: { path: "/tmp/x", contents: "y" } }), "unknown tool 'writeFile'",
    "the policy refuses the call as if the tool did not exist");
  await intern.close();
  console.log("node client: all checks passed");
}

main().catch((error) => {
  console.error(`node client: FAILED: ${error.stack || error}`);
  process.exit(1);
});
