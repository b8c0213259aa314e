"""An independent MCP client for the MCP face's tests: the Python `mcp` package from PyPI (installed by .ci/run in the
cache's venv). Reads a JSON job on stdin, speaks Streamable HTTP to the gateway's /mcp, prints one JSON report on
stdout; the TypeScript test (test/integration/mcp-python.test.ts) asserts on it."""

import json
import sys

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client



def answer(result):
    """A tool result as {is_error, body}: the structured content, or the JSON text."""
    body = result.structured_content
    if body is None:
        body = json.loads(result.content[0].text)
    return {"is_error": result.is_error, "body": body}


async def session_run(url, key, work, **callbacks):
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, **callbacks) as session:
                init = await session.initialize()
                return await work(session, init)


async def main():
    job = json.load(sys.stdin)
    report = {}

    async def generic(session, init):
        report["server"] = init.server_info.name
        report["tools"] = sorted(tool.name for tool in (await session.list_tools()).tools)
        target = {"agent_id": job["agent_id"], "capability": job["capability"]}
        report["route"] = answer(await session.call_tool("reach_route", {"target": target}))
        report["send"] = answer(
            await session.call_tool(
                "reach_send", {"message_id": job["message_id"], "target": target, "params": job["params"]}
            )
        )
        report["status"] = answer(await session.call_tool("reach_status", {"message_id": job["message_id"]}))
        report["bad"] = answer(await session.call_tool("reach_send", {"target": {"agent_id": 5}}))
        report["after_bad"] = len((await session.list_tools()).tools)

    async def capability_tools(session, init):
        report["capability_tools"] = sorted(tool.name for tool in (await session.list_tools()).tools)
        report["forbidden"] = answer(await session.call_tool(job["hidden_tool"], {"order_id": 1}))

    asked = []

    async def elicit(context, params):
        """The user's answer to the gateway's question (the agent's): the job's."""
        asked.append({"message": params.message, "schema": params.requested_schema})
        return types.ElicitResult(action="accept", content=job["ask"]["answer"])

    async def asking(session, init):
        report["ask"] = answer(await session.call_tool("reach_send", job["ask"]["arguments"]))
        report["asked"] = asked

    await session_run(job["url"], job["key"], generic)
    await session_run(job["url"] + "?capability_tools=true", job["key"], capability_tools)
    if "ask" in job:
        await session_run(job["url"], job["key"], asking, elicitation_callback=elicit)
    print(json.dumps(report))


anyio.run(main)
