"""A real A2A agent (server) for the integration tests, built with the official `a2a-sdk` package from PyPI (1.3.0,
protobuf types, A2A v1.0; `pip install 'a2a-sdk[http-server]==1.3.0' uvicorn` — uvicorn is not in that extra, `mcp`
brings it into the CI venv). Its twin in TypeScript is test/helpers/a2a-js-agent.ts; both behave the same.

Start:  python test/helpers/a2a_agent.py [--port N] [--name NAME] [--v1-only]
        (env A2A_AGENT_PORT, A2A_AGENT_NAME, A2A_AGENT_V1_ONLY=1; port 0 or none picks a free one).
        Listens on 127.0.0.1 and, once ready, prints exactly one line on stdout:
        {"url": "http://127.0.0.1:PORT", "card_url": "http://127.0.0.1:PORT/.well-known/agent-card.json"}
        then runs until SIGTERM/SIGINT. Logs go to stderr.

Serves:
- `GET /.well-known/agent-card.json`: the card (name, skills `echo` and `convert_currency`, no streaming, no push),
  with two JSONRPC interfaces at the root URL, protocolVersion "1.0" and "0.3". The SDK then also writes the v0.3
  card fields (`url`, `protocolVersion`, `preferredTransport`) into it, which a strict v1.0 protobuf parse refuses;
  `--v1-only` serves a pure v1.0 card (one interface) and turns the v0.3 methods off.
- `POST /`: JSON-RPC, the SDK's dispatcher. v1.0 methods (`SendMessage`, `GetTask`, `CancelTask`, ...) need the header
  `A2A-Version: 1.0` (without it the SDK takes the request as v0.3 and refuses v1.0 names); the v0.3 names
  (`message/send`, `tasks/get`, `tasks/cancel`) are accepted too, with no header or `A2A-Version: 0.3` (not with
  `--v1-only`).
- `GET /received` (plain HTTP, not A2A): {"messages": [{"message_id", "text", "data", "context_id", "task_id",
  "metadata", "request_metadata"}...], "counts": {message_id: n}, "cancelled": [task_id...]}.

Behaviour, chosen per message: the message's metadata `behaviour` if it is one of fail/slow/question/echo, otherwise
the first of the words "fail", "slow", "question" found (case-insensitively) in the message's text parts joined:
- "fail": submitted → working → `failed`, status message "I cannot do that", no artifact.
- "slow": submitted → working, and stays working until CancelTask (→ `canceled`) or 120 s, then completes as echo.
- "question": submitted → `input-required`, status message "Which currency?".
- otherwise (echo): submitted → working → `completed` ~300 ms later, with one artifact `result` of one data part
  {"echo": merged data parts (objects merged; null if none), "text": the text, "message_id": the incoming messageId,
  "count": how many times that messageId has arrived — a double on the wire, `2.0`, as google.protobuf.Value keeps
  numbers}. The work runs after SendMessage returned when the request
  asked `returnImmediately` (then the answer is the task while it is still submitted/working).
"""

import argparse
import asyncio
import contextlib
import json
import logging
import os
import socket
import sys

import uvicorn
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2a.helpers import new_data_part, new_task, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, TaskState

SLOW_SECONDS = 120
ECHO_DELAY_SECONDS = 0.3
BEHAVIOURS = ("fail", "slow", "question")


def agent_card(name, url, v03=True):
    interfaces = [AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")]
    if v03:
        interfaces.append(AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="0.3"))
    return AgentCard(
        name=name,
        description="A test A2A agent (Python a2a-sdk): echoes, fails, waits or asks, by the message's words.",
        version="1.0.0",
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(streaming=False, push_notifications=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["application/json", "text/plain"],
        skills=[
            AgentSkill(id="echo", name="Echo", description="Echoes the message back", tags=["echo", "test"],
                       examples=["echo this back"]),
            AgentSkill(id="convert_currency", name="Currency conversion",
                       description="Converts an amount between currencies (asks which currency)",
                       tags=["currency", "conversion", "finance"], examples=["convert 100 USD, a question: to what?"]),
        ],
    )


class Journal:
    """Every message the agent received, in order, and how often each messageId came."""

    def __init__(self):
        self.messages = []
        self.counts = {}
        self.cancelled = []

    def record(self, context, text, data):
        message = context.message
        self.counts[message.message_id] = self.counts.get(message.message_id, 0) + 1
        self.messages.append({
            "message_id": message.message_id,
            "text": text,
            "data": data,
            "context_id": context.context_id,
            "task_id": context.task_id,
            "metadata": MessageToDict(message.metadata) if message.HasField("metadata") else {},
            "request_metadata": dict(context.metadata or {}),
        })
        return self.counts[message.message_id]

    def view(self):
        return {"messages": self.messages, "counts": self.counts, "cancelled": self.cancelled}


def message_content(message):
    """(the text parts joined with newlines, the data parts merged: None if none, a dict if all are objects)."""
    texts, datas = [], []
    for part in message.parts:
        if part.HasField("text"):
            texts.append(part.text)
        elif part.HasField("data"):
            datas.append(MessageToDict(part.data))
    if not datas:
        data = None
    elif all(isinstance(d, dict) for d in datas):
        data = {}
        for d in datas:
            data.update(d)
    else:
        data = datas[0] if len(datas) == 1 else datas
    return "\n".join(texts), data


def behaviour_of(message, text):
    chosen = MessageToDict(message.metadata).get("behaviour") if message.HasField("metadata") else None
    if chosen in BEHAVIOURS or chosen == "echo":
        return chosen
    lowered = text.lower()
    return next((word for word in BEHAVIOURS if word in lowered), "echo")


class TestAgentExecutor(AgentExecutor):
    def __init__(self, journal):
        self.journal = journal

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        text, data = message_content(message)
        count = self.journal.record(context, text, data)
        behaviour = behaviour_of(message, text)

        if context.current_task is None:
            await event_queue.enqueue_event(
                new_task(context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED, history=[message]))
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)

        def say(words):
            return updater.new_agent_message([new_text_part(words)])

        if behaviour == "question":
            await updater.requires_input(say("Which currency?"))
            return
        await updater.start_work()
        if behaviour == "fail":
            await updater.failed(say("I cannot do that"))
            return
        # Cancellation (CancelTask) cancels this coroutine mid-sleep; cancel() below writes `canceled`.
        await asyncio.sleep(SLOW_SECONDS if behaviour == "slow" else ECHO_DELAY_SECONDS)
        result = {"echo": data, "text": text, "message_id": message.message_id, "count": count}
        await updater.add_artifact([new_data_part(result, media_type="application/json")], name="result")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.journal.cancelled.append(context.task_id)
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def build_app(name, url, journal, v03=True):
    card = agent_card(name, url, v03)
    handler = DefaultRequestHandler(agent_executor=TestAgentExecutor(journal), task_store=InMemoryTaskStore(),
                                    agent_card=card)

    async def received(_request: Request):
        return JSONResponse(journal.view())

    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, rpc_url="/", enable_v0_3_compat=v03),
        Route("/received", received, methods=["GET"]),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(_app):
        yield
        await handler.aclose()

    return Starlette(routes=routes, lifespan=lifespan)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("A2A_AGENT_PORT") or 0))
    parser.add_argument("--name", default=os.environ.get("A2A_AGENT_NAME") or "py-a2a-agent")
    parser.add_argument("--v1-only", action="store_true", default=os.environ.get("A2A_AGENT_V1_ONLY") == "1")
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"

    app = build_app(args.name, url, Journal(), v03=not args.v1_only)
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, log_level="warning", access_log=False,
                                           lifespan="on", timeout_graceful_shutdown=1))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if serving.done():
            await serving  # raises what stopped it
            sys.exit(1)
        await asyncio.sleep(0.02)
    print(json.dumps({"url": url, "card_url": f"{url}/.well-known/agent-card.json"}), flush=True)
    await serving


if __name__ == "__main__":
    asyncio.run(main())
