"""An A2A client built with the official Python SDK (PyPI `a2a-sdk` 1.x), driven by the Rust
tests against our `A2aServer`. Usage:

    a2a_client.py BASE_URL TOKEN BINDING SCENARIO [ARG]

BINDING is JSONRPC or HTTP+JSON; TOKEN is sent as `Authorization: Bearer TOKEN` ("-": none).
With A2A_SUBSCRIBED_MARK set, `subscribe` creates that file once its first event arrived.
Each scenario prints one JSON object on stdout: what the client received.
"""

import asyncio
import json
import os
import sys

import httpx
from google.protobuf.json_format import MessageToDict

from a2a.client import ClientConfig, create_client
from a2a.helpers.proto_helpers import new_data_part, new_message, new_text_message
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
)


def as_dict(message):
    return MessageToDict(message, preserving_proto_field_name=False)


def user_text(text, task_id=None, context_id=None):
    return new_text_message(text, role=Role.ROLE_USER, task_id=task_id, context_id=context_id)


async def client_for(base, token, binding, streaming):
    headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
    http = httpx.AsyncClient(headers=headers, timeout=30)
    config = ClientConfig(
        streaming=streaming,
        httpx_client=http,
        supported_protocol_bindings=[binding],
    )
    return await create_client(base, client_config=config)


async def send(client, message):
    """Every event the client yields for `message`."""
    events = []
    async for event in client.send_message(SendMessageRequest(message=message)):
        events.append(as_dict(event))
    return events


def error_of(error):
    return {"error": type(error).__name__, "text": str(error)}


async def main():
    base, token, binding, scenario = sys.argv[1:5]
    arg = sys.argv[5] if len(sys.argv) > 5 else None
    streaming = scenario in ("stream", "subscribe")
    try:
        client = await client_for(base, token, binding, streaming)
    except Exception as error:  # noqa: BLE001 - reported to the test
        print(json.dumps(error_of(error)))
        return
    out = {}
    try:
        if scenario == "card":
            card = await client.get_card() if hasattr(client, "get_card") else client._card
            out = as_dict(card)
        elif scenario in ("send", "stream"):
            out = {"events": await send(client, user_text(arg))}
        elif scenario == "get":
            out = as_dict(await client.get_task(GetTaskRequest(id=arg)))
        elif scenario == "cancel":
            out = as_dict(await client.cancel_task(CancelTaskRequest(id=arg)))
        elif scenario == "subscribe":
            events = []
            mark = os.environ.get("A2A_SUBSCRIBED_MARK")
            async for event in client.subscribe(SubscribeToTaskRequest(id=arg)):
                events.append(as_dict(event))
                if mark and len(events) == 1:
                    # Tell the test the subscription is live.
                    open(mark, "w").close()
            out = {"events": events}
        elif scenario == "approve":
            # Ask, read the approval request from the input-required status, answer it.
            first = await send(client, user_text(arg))
            task = first[-1]["task"]
            request = next(
                part["data"]
                for part in task["status"]["message"]["parts"]
                if "data" in part
            )
            answer = new_message(
                [new_data_part({"answer": "approve", "fingerprint": request["fingerprint"]})],
                task_id=task["id"],
                role=Role.ROLE_USER,
            )
            stale = new_message(
                [new_data_part({"answer": "approve", "fingerprint": "0000"})],
                task_id=task["id"],
                role=Role.ROLE_USER,
            )
            try:
                await send(client, stale)
                stale_error = None
            except Exception as error:  # noqa: BLE001
                stale_error = error_of(error)
            second = await send(client, answer)
            out = {"asked": task, "stale": stale_error, "answered": second}
        else:
            out = {"error": f"unknown scenario {scenario}"}
    except Exception as error:  # noqa: BLE001 - reported to the test
        out = error_of(error)
    finally:
        await client.close()
    print(json.dumps(out))


asyncio.run(main())
