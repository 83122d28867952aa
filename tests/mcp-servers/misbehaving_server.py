"""A deliberately broken MCP server over stdio (no dependencies), for the client's hardening
tests. It initializes and lists its tools properly; its `tools/call` misbehaves as the first
command-line argument says:

  garbage    writes lines that are not JSON-RPC (and a blank line) before a proper answer
  truncated  writes half of its answer, then exits
  silent     never answers (and keeps reading)
  ok         answers properly
"""

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


TOOL = {
    "name": "lookup",
    "description": "Looks a key up.",
    "inputSchema": {
        "type": "object",
        "properties": {"key": {"type": "string"}},
        "required": ["key"],
    },
}

for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    method = request.get("method")
    ident = request.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "misbehaving", "version": "1"},
        }})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        key = request["params"].get("arguments", {}).get("key", "")
        answer = {"jsonrpc": "2.0", "id": ident, "result": {
            "content": [{"type": "text", "text": "value of " + key}], "isError": False}}
        if MODE == "garbage":
            sys.stdout.write("this is not JSON-RPC\n\n{\"half\": \n")
            sys.stdout.flush()
            send(answer)
        elif MODE == "truncated":
            text = json.dumps(answer)
            sys.stdout.write(text[: len(text) // 2])
            sys.stdout.flush()
            sys.exit(0)
        elif MODE == "silent":
            continue
        else:
            send(answer)
    elif ident is not None:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}})
