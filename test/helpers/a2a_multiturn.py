"""Multi-turn through the A2A face with the official `a2a-sdk` from PyPI (test/integration/a2a-conformance.test.ts):
a task goes input-required (the agent asks for an order id), the client sends its next message with the same taskId
and contextId, and the task completes; a repeat of that reply, and a reply to the ended task, are checked too. Over
the binding the job names (JSONRPC or HTTP+JSON). Reads a JSON job on stdin, prints one JSON report on stdout."""

import asyncio
import json
import sys

import httpx
from google.protobuf.json_format import MessageToDict, ParseDict
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import A2ACardResolver
from a2a.client.errors import A2AClientError
from a2a.types.a2a_pb2 import GetTaskRequest, Message, Part, Role, SendMessageRequest
from a2a.utils.errors import A2AError


def message(message_id, parts, skill=None, context_id=None, task_id=None):
    msg = Message(message_id=message_id, role=Role.ROLE_USER, parts=[ParseDict(p, Part()) for p in parts])
    if skill:
        msg.metadata.update({"skill": skill})
    if context_id:
        msg.context_id = context_id
    if task_id:
        msg.task_id = task_id
    return msg


def view(task):
    full = MessageToDict(task)
    status = full.get("status", {})
    return {
        "id": task.id,
        "context_id": task.context_id,
        "state": status.get("state"),
        "question": [p.get("text") or p.get("data") for p in status.get("message", {}).get("parts", [])],
        "history": [[m.get("role"), m.get("messageId")] for m in full.get("history", [])],
        "artifacts": [p.get("data") for a in full.get("artifacts", []) for p in a.get("parts", [])],
    }


async def send(client, msg):
    async for event in client.send_message(SendMessageRequest(message=msg)):
        return view(event.task)


async def attempt(work):
    try:
        return {"ok": await work()}
    except (A2AError, A2AClientError) as error:
        return {"error": {"type": type(error).__name__, "message": str(error)}}


async def main():
    job = json.load(sys.stdin)
    base, binding, run, skill = job["base_url"], job["binding"], job["run"], job["skill"]
    context = f"ctx-{run}"
    report = {}
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {job['key']}"}, timeout=60) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False, supported_protocol_bindings=[binding])).create(card)

        asked = await send(client, message(f"{run}-ask", [{"text": "refund my order"}], skill, context_id=context))
        report["asked"] = asked
        reply = message(f"{run}-reply", [{"data": {"order_id": 5}}], context_id=context, task_id=asked["id"])
        report["answered"] = await send(client, reply)
        report["repeated"] = await attempt(lambda: send(client, reply))
        report["read"] = view(await client.get_task(GetTaskRequest(id=asked["id"])))
        report["after_end"] = await attempt(lambda: send(client, message(f"{run}-late", [{"data": {"order_id": 6}}], context_id=context, task_id=asked["id"])))
    print(json.dumps(report))


asyncio.run(main())
