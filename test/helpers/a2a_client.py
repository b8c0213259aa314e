"""An independent A2A client for the A2A face's tests: the official `a2a-sdk` package from PyPI (installed by .ci/run
in the cache's venv). Reads a JSON job on stdin, speaks A2A (JSON-RPC binding, v1.0) to the gateway, prints one JSON
report on stdout; the TypeScript test (test/integration/a2a-face.test.ts) asserts on it."""

import asyncio
import json
import sys

import httpx
from google.protobuf.json_format import MessageToDict, ParseDict
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import A2ACardResolver
from a2a.client.errors import A2AClientError
from a2a.types.a2a_pb2 import (
    AgentCard,
    CancelTaskRequest,
    GetExtendedAgentCardRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
)
from a2a.utils.errors import A2AError


def strict_card(raw):
    """The card parsed by the SDK's own protobuf schema, refusing any field it does not know."""
    return ParseDict(raw, AgentCard(), ignore_unknown_fields=False)


def message(message_id, text=None, data=None, metadata=None):
    parts = []
    if text is not None:
        parts.append(Part(text=text))
    if data is not None:
        parts.append(ParseDict({"data": data}, Part()))
    msg = Message(message_id=message_id, role=Role.ROLE_USER, parts=parts)
    if metadata:
        msg.metadata.update(metadata)
    return msg


def task_view(task):
    """What the test asserts on: id, A2A state, artifacts' data, status message text, metadata."""
    view = MessageToDict(task)
    return {
        "id": task.id,
        "state": view.get("status", {}).get("state"),
        "artifacts": [part.get("data", part.get("text")) for artifact in view.get("artifacts", []) for part in artifact.get("parts", [])],
        "status_text": [part["text"] for part in view.get("status", {}).get("message", {}).get("parts", []) if "text" in part],
        "metadata": view.get("metadata", {}),
    }


def error_view(error):
    return {"type": type(error).__name__, "message": str(error), "data": getattr(error, "data", None)}


async def one_send(client, request):
    """SendMessage (blocking, non-streaming): the task it answers."""
    async for event in client.send_message(request):
        return task_view(event.task)


async def attempt(work):
    try:
        return {"ok": await work()}
    except (A2AError, A2AClientError) as error:
        return {"error": error_view(error)}


async def main():
    job = json.load(sys.stdin)
    base = job["base_url"]
    report = {}
    headers = {"Authorization": f"Bearer {job['key']}"}

    async with httpx.AsyncClient(timeout=60) as anonymous:
        public = await A2ACardResolver(anonymous, base).get_agent_card()
        report["public_card"] = {
            "name": public.name,
            "interfaces": [[i.url, i.protocol_binding, i.protocol_version] for i in public.supported_interfaces],
            "skills": [s.id for s in public.skills],
            "schemes": list(public.security_schemes.keys()),
            "extended": public.capabilities.extended_agent_card,
        }
        raw_public = (await anonymous.get(f"{base}/.well-known/agent-card.json")).json()
        strict_card(raw_public)
        raw_keyed = (await anonymous.get(f"{base}/a2a/.well-known/agent-card.json", headers=headers)).json()
        strict_card(raw_keyed)
        raw_agent = (await anonymous.get(f"{base}/v1/agents/{job['agent_id']}/agent-card.json", headers=headers)).json()
        strict_card(raw_agent)
        report["strict_cards"] = True
        no_key = ClientFactory(ClientConfig(httpx_client=anonymous, streaming=False)).create(public)
        report["no_key"] = await attempt(lambda: no_key.get_task(GetTaskRequest(id="whatever")))

    async with httpx.AsyncClient(headers=headers, timeout=60) as http:
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(public)
        extended = await client.get_extended_agent_card(GetExtendedAgentCardRequest())
        report["skills"] = [s.id for s in extended.skills]

        skill = f"{job['agent_id']}/refund"
        named = SendMessageRequest(message=message(job["named_id"], text="refund it", data={"order_id": 77}, metadata={"skill": skill}))
        report["named"] = await one_send(client, named)
        report["named_again"] = await one_send(client, named)
        report["get"] = task_view(await client.get_task(GetTaskRequest(id=job["named_id"])))
        report["routed"] = await one_send(client, SendMessageRequest(message=message(job["routed_id"], text=job["intent"], data={"order_id": 5})))

        slow = SendMessageRequest(message=message(job["slow_id"], data={}, metadata={"skill": f"{job['agent_id']}/slow"}))
        slow.configuration.return_immediately = True
        report["slow"] = await one_send(client, slow)
        report["cancel"] = task_view(await client.cancel_task(CancelTaskRequest(id=job["slow_id"])))
        report["cancel_again"] = await attempt(lambda: client.cancel_task(CancelTaskRequest(id=job["slow_id"])))
        report["after_cancel"] = task_view(await client.get_task(GetTaskRequest(id=job["slow_id"])))

        report["unknown_task"] = await attempt(lambda: client.get_task(GetTaskRequest(id="no-such-task")))
        report["unknown_skill"] = await attempt(lambda: one_send(client, SendMessageRequest(message=message("py-bad-skill", text="x", metadata={"skill": "nonsense"}))))
        report["forbidden"] = await attempt(lambda: one_send(client, SendMessageRequest(message=message("py-forbidden", data={}, metadata={"skill": f"{job['agent_id']}/payout"}))))
        report["empty"] = await attempt(lambda: one_send(client, SendMessageRequest(message=message("py-empty"))))
        report["failed"] = await one_send(client, SendMessageRequest(message=message(job["failing_id"], data={}, metadata={"skill": f"{job['agent_id']}/broken"})))

        streaming = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(extended)
        states = []
        artifacts = []
        async for event in streaming.send_message(SendMessageRequest(message=message(job["streamed_id"], data={"order_id": 9}, metadata={"skill": skill}))):
            view = MessageToDict(event)
            if "task" in view:
                states.append(view["task"]["status"]["state"])
            elif "statusUpdate" in view:
                states.append(view["statusUpdate"]["status"]["state"])
            elif "artifactUpdate" in view:
                artifacts.extend(part.get("data") for part in view["artifactUpdate"]["artifact"]["parts"])
        report["streamed"] = {"states": states, "artifacts": artifacts}

    print(json.dumps(report))


asyncio.run(main())
