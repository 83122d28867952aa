"""An A2A server built with the official Python SDK (PyPI `a2a-sdk` 1.x, Starlette routes under
uvicorn), which the Rust tests call with our `A2aAgent`. Usage:

    a2a_server.py PORT

Prints `ready` once it listens. With A2A_NO_STREAMING=1 its card says it does not stream (a
client must use the blocking `SendMessage`). What the agent does, by the message it gets:
- a data part {"city": C}: completes with a data artifact {"city": C, "forecast": "sunny", "celsius": 21};
- "fail": fails, saying "the python agent cannot do that";
- "ask": asks "What is your account number?" (input-required); the reply completes the task
  with "account <reply> noted";
- "slow": works for a minute (a cancel ends it; it writes CANCELED_MARK's file when it does);
- "trace": completes with the `traceparent` header its request carried ("" if none);
- any other text T: completes with the text artifact "python echo: T".
"""

import asyncio
import contextvars
import os
import sys

import uvicorn
from starlette.applications import Starlette

from a2a.helpers.proto_helpers import new_data_part, new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers.default_request_handler_v2 import DefaultRequestHandlerV2
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, TaskState

TRACEPARENT = contextvars.ContextVar("traceparent", default="")


def data_of(message):
    for part in message.parts:
        if part.HasField("data"):
            from google.protobuf.json_format import MessageToDict

            return MessageToDict(part.data)
    return None


def text_of(message):
    return "\n".join(part.text for part in message.parts if part.HasField("text"))


class Executor(AgentExecutor):
    async def execute(self, context, event_queue):
        message = context.message
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            await updater.add_artifact([new_text_part(f"account {text_of(message)} noted")], name="answer")
            await updater.complete()
            return
        await updater.start_work()
        data = data_of(message)
        text = text_of(message)
        if isinstance(data, dict) and "city" in data:
            forecast = {"city": data["city"], "forecast": "sunny", "celsius": 21}
            await updater.add_artifact([new_data_part(forecast)], name="forecast")
            await updater.complete()
        elif text == "fail":
            await updater.failed(updater.new_agent_message([new_text_part("the python agent cannot do that")]))
        elif text == "ask":
            question = updater.new_agent_message([new_text_part("What is your account number?")])
            await updater.requires_input(question)
        elif text == "slow":
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                mark = os.environ.get("CANCELED_MARK")
                if mark:
                    open(mark, "w").close()
                raise
            await updater.complete()
        elif text == "trace":
            await updater.add_artifact([new_text_part(TRACEPARENT.get())], name="trace")
            await updater.complete()
        else:
            await updater.add_artifact([new_text_part(f"python echo: {text}")], name="echo")
            await updater.complete()

    async def cancel(self, context, event_queue):
        task = context.current_task
        if task is not None:
            await TaskUpdater(event_queue, task.id, task.context_id).cancel()


class RecordTraceparent:
    """ASGI middleware: the request's traceparent, for the executor to report."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            TRACEPARENT.set(headers.get(b"traceparent", b"").decode())
        await self.app(scope, receive, send)


def main():
    port = int(sys.argv[1])
    base = f"http://127.0.0.1:{port}"
    card = AgentCard(
        name="python-weather",
        description="A weather agent written with the Python A2A SDK.",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=base, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=os.environ.get("A2A_NO_STREAMING") != "1"),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[AgentSkill(id="weather", name="weather", description="Forecasts", tags=["weather"])],
    )
    handler = DefaultRequestHandlerV2(Executor(), InMemoryTaskStore(), card)
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(handler, rpc_url="/")
    app = RecordTraceparent(Starlette(routes=routes))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)

    async def serve():
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        print("ready", flush=True)
        await task

    asyncio.run(serve())


if __name__ == "__main__":
    main()
