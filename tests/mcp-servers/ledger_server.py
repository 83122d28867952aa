"""A FastMCP server (PyPI `mcp` 1.x) for the McpToolset tests: an account ledger whose tools
record every call they receive, so a test can prove a denied call never reached the server.

Usage: ledger_server.py CALLS_FILE   (each received tool call is appended as one JSON line)
"""

import asyncio
import json
import os
import sys

from mcp.server.fastmcp import Context, FastMCP

calls_file = sys.argv[1]
server = FastMCP("ledger")


def record(tool, arguments):
    with open(calls_file, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool()
def balance(account: str) -> str:
    """The balance of an account."""
    record("balance", {"account": account})
    return f"{account}: 100.00 USD"


@server.tool()
def transfer(source: str, target: str, cents: int) -> dict:
    """Move money between accounts."""
    record("transfer", {"source": source, "target": target, "cents": cents})
    return {"moved": cents, "from": source, "to": target}


@server.tool()
def close_account(account: str) -> str:
    """Close an account for good."""
    record("close_account", {"account": account})
    raise ValueError(f"account {account} has a pending transfer")


@server.tool()
async def audit(account: str) -> str:
    """A slow audit of an account (it takes a minute)."""
    record("audit", {"account": account})
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        record("audit cancelled", {"account": account})
        raise
    return "clean"


@server.tool()
def crash() -> str:
    """Stop the server's process at once, as a crash would."""
    record("crash", {})
    os._exit(3)


def freeze_account(account: str) -> str:
    """Freeze an account (added by `reorganize`)."""
    record("freeze_account", {"account": account})
    return f"{account} frozen"


def transfer_in_units(source: str, target: str, units: str) -> str:
    """Move money between accounts, in units (replaces `transfer` after `reorganize`)."""
    record("transfer", {"source": source, "target": target, "units": units})
    return f"moved {units}"


@server.tool()
async def reorganize(ctx: Context) -> str:
    """Change the tool list: `close_account` goes, `freeze_account` comes, and `transfer`
    takes other arguments; then tell the client (`notifications/tools/list_changed`)."""
    record("reorganize", {})
    server.remove_tool("close_account")
    server.add_tool(freeze_account)
    server.remove_tool("transfer")
    server.add_tool(transfer_in_units, name="transfer")
    await ctx.session.send_tool_list_changed()
    return "reorganized"


if __name__ == "__main__":
    server.run()
