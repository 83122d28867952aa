"""A real MCP client we did not write (the PyPI package `mcp`) against `examples/mcp_server`
over stdio. Exits non-zero, saying which check failed, if any behaviour is wrong."""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError
from mcp.types import Implementation


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def check(condition, what):
    if not condition:
        raise SystemExit(f"python client: FAILED: {what}")
    print(f"python client: ok: {what}")


LOGGED = []


async def on_log(params):
    LOGGED.append(params)


async def session(server, name, body):
    params = StdioServerParameters(command=server, args=[])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, client_info=Implementation(name=name, version="1.0"),
                                 logging_callback=on_log) as client:
            await client.initialize()
            await body(client)


async def progress_and_logs(client):
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    quiet = await client.call_tool("get_weather", {"city": "Oslo"}, progress_callback=on_progress)
    check(not quiet.isError and LOGGED == [], f"no log is sent before the client sets a level: {LOGGED}")
    check(progress == [(1, 2, "looking up Oslo"), (2, 2, "done")],
          f"a call with a progress token receives the tool's progress in order: {progress}")
    await client.set_logging_level("info")
    await client.call_tool("get_weather", {"city": "Oslo"})
    await asyncio.sleep(0.2)
    lookups = [entry for entry in LOGGED if entry.data.get("message") == "weather looked up"]
    check(len(lookups) == 1 and lookups[0].level == "info" and lookups[0].data.get("city") == "Oslo",
          f"after logging/setLevel the call's tracing events reach the client: {LOGGED}")
    LOGGED.clear()
    await client.set_logging_level("error")
    await client.call_tool("get_weather", {"city": "Oslo"})
    await asyncio.sleep(0.2)
    check(all(entry.data.get("message") != "weather looked up" for entry in LOGGED),
          f"events below the client's level are not sent: {LOGGED}")


async def trusted(client):
    tools = await client.list_tools()
    names = [tool.name for tool in tools.tools]
    check(names == ["get_weather", "writeFile", "echo"], f"tools/list shows the exposed tools: {names}")
    proceed = await client.call_tool("get_weather", {"city": "Oslo"})
    check(not proceed.isError and json.loads(text_of(proceed))["city"] == "Oslo", "a call that proceeds runs the tool")
    denied = await client.call_tool("writeFile", {"path": "/etc/passwd", "contents": "x"})
    check(denied.isError and text_of(denied) == "ERROR: Tool 'writeFile' denied by policy: system paths are off-limits",
          f"a denied call is an isError result with the exact text: {text_of(denied)}")
    for dodge in ["//etc/passwd", "/tmp/../etc/passwd", "/ETC/passwd", "/etc/./passwd", "etc/passwd"]:
        dodged = await client.call_tool("writeFile", {"path": dodge, "contents": "x"})
        check(dodged.isError and "denied by policy" in text_of(dodged),
              f"another spelling of a system path is denied too: {dodge} -> {text_of(dodged)}")
    allowed = await client.call_tool("writeFile", {"path": "/tmp//notes/../a.txt", "contents": "x"})
    check(not allowed.isError and text_of(allowed) == "wrote 1 bytes to /tmp/a.txt",
          f"an allowed write runs with the normalized path: {text_of(allowed)}")
    substituted = await client.call_tool("get_weather", {"city": "Moon"})
    check(json.loads(text_of(substituted)).get("cached") is True, "a substituted call returns the substitute")
    mutated = await client.call_tool("get_weather", {"city": "paris"})
    check(json.loads(text_of(mutated))["city"] == "Paris", "a ProceedWith call runs with the replacement")
    skill = await client.call_tool("echo", {"input": "hi"})
    check(text_of(skill) == "echo: hi", "an exposed skill runs")
    try:
        await client.call_tool("launch_missiles", {})
        check(False, "an unknown tool is an error")
    except McpError as error:
        check("unknown tool" in str(error), f"an unknown tool is a JSON-RPC error: {error}")
    invalid = await client.call_tool("get_weather", {"town": 3})
    check(invalid.isError and "Invalid arguments" in text_of(invalid), "invalid arguments are an isError result")
    again = await client.call_tool("get_weather", {"city": "Oslo"})
    check(not again.isError, "the server still answers after bad requests")
    await progress_and_logs(client)


async def intern(client):
    names = [tool.name for tool in (await client.list_tools()).tools]
    check("writeFile" not in names, f"the policy filters tools/list for this client: {names}")
    try:
        await client.call_tool("writeFile", {"path": "/tmp/x", "contents": "y"})
        check(False, "the policy refuses the call")
    except McpError as error:
        check("unknown tool 'writeFile'" in str(error), f"a refused call reads as a missing tool: {error}")


async def main(server):
    await session(server, "trusted", trusted)
    await session(server, "intern", intern)
    print("python client: all checks passed")


asyncio.run(main(sys.argv[1]))
