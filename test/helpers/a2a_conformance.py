"""The A2A conformance test's client (test/integration/a2a-conformance.test.ts): the official `a2a-sdk` from PyPI,
over the binding the job names (JSONRPC or HTTP+JSON), drives what a client does with ListTasks, historyLength and
context ids against the gateway. Reads a JSON job on stdin, prints one JSON report on stdout."""

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
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)
from a2a.utils.errors import A2AError


def message(message_id, data, skill, context_id=None, task_id=None):
    msg = Message(message_id=message_id, role=Role.ROLE_USER, parts=[ParseDict({"data": data}, Part()), Part(text="please")])
    msg.metadata.update({"skill": skill})
    if context_id:
        msg.context_id = context_id
    if task_id:
        msg.task_id = task_id
    return msg


def task_view(task):
    view = MessageToDict(task)
    return {
        "id": task.id,
        "context_id": task.context_id,
        "state": view.get("status", {}).get("state"),
        "history_roles": [m.get("role") for m in view.get("history", [])],
        "artifacts": len(view.get("artifacts", [])),
    }


async def attempt(work):
    try:
        return {"ok": await work()}
    except (A2AError, A2AClientError) as error:
        return {"error": {"type": type(error).__name__, "message": str(error)}}


async def send(client, request):
    async for event in client.send_message(request):
        return task_view(event.task)


async def main():
    job = json.load(sys.stdin)
    base, binding, run = job["base_url"], job["binding"], job["run"]
    skill, context = job["skill"], f"ctx-{run}"
    report = {}
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {job['key']}"}, timeout=60) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        report["interfaces"] = [[i.url, i.protocol_binding, i.protocol_version] for i in card.supported_interfaces]
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False, supported_protocol_bindings=[binding])).create(card)

        sent = []
        for i in range(3):
            request = SendMessageRequest(message=message(f"{run}-{i}", {"order_id": i + 1}, skill, context_id=context))
            request.configuration.history_length = 1
            sent.append(await send(client, request))
        report["sent"] = sent
        report["get_history"] = task_view(await client.get_task(GetTaskRequest(id=sent[0]["id"], history_length=2)))
        report["get_plain"] = task_view(await client.get_task(GetTaskRequest(id=sent[0]["id"])))

        pages = []
        token = ""
        while True:
            page = await client.list_tasks(ListTasksRequest(context_id=context, page_size=2, page_token=token))
            pages.append({"ids": [t.id for t in page.tasks], "total": page.total_size, "size": page.page_size, "has_next": page.next_page_token != ""})
            token = page.next_page_token
            if not token or len(pages) > 5:
                break
        report["pages"] = pages
        listed = await client.list_tasks(ListTasksRequest(context_id=context, status=TaskState.TASK_STATE_COMPLETED, include_artifacts=True, history_length=1))
        report["completed"] = [task_view(t) for t in listed.tasks]
        report["none_failed"] = len((await client.list_tasks(ListTasksRequest(context_id=context, status=TaskState.TASK_STATE_FAILED))).tasks)
        report["bad_page_size"] = await attempt(lambda: client.list_tasks(ListTasksRequest(page_size=101)))
        report["bad_token"] = await attempt(lambda: client.list_tasks(ListTasksRequest(page_token="invalid-token-xyz")))

        streaming = ClientFactory(ClientConfig(httpx_client=http, streaming=True, supported_protocol_bindings=[binding])).create(card)
        states = []
        async for event in streaming.send_message(SendMessageRequest(message=message(f"{run}-streamed", {"order_id": 4}, skill, context_id=context))):
            view = MessageToDict(event)
            if "task" in view:
                states.append(view["task"]["status"]["state"])
            elif "statusUpdate" in view:
                states.append(view["statusUpdate"]["status"]["state"])
            elif "artifactUpdate" in view:
                states.append("artifact")
        report["streamed"] = states

        report["continue_ended"] = await attempt(lambda: send(client, SendMessageRequest(message=message(f"{run}-more", {"order_id": 9}, skill, context_id=context, task_id=sent[0]["id"]))))
        report["continue_unknown"] = await attempt(lambda: send(client, SendMessageRequest(message=message(f"{run}-lost", {"order_id": 9}, skill, task_id="no-such-task"))))
        report["continue_other_context"] = await attempt(lambda: send(client, SendMessageRequest(message=message(f"{run}-other", {"order_id": 9}, skill, context_id="another-context", task_id=sent[0]["id"]))))
    print(json.dumps(report))


asyncio.run(main())
