/**
 * 2026-07-28's input_required rounds played for a 2025-11-25 session. An agent that needs the MCP client's input
 * answers with an input_required result (input-rounds.ts): an elicitation, a sampling, the roots. A 2025-11-25
 * client takes those as requests from the server in the middle of the call, so the gateway puts each to the client
 * on the call's own stream and sends the answers to the agent as the next round's message — `payload.mcp` with
 * `client_capabilities`, `input_responses` and the agent's `request_state`, as a 2026-07-28 client's retry would
 * (the state never leaves the gateway here, so it is not sealed). Only what the client declared is asked; a result
 * asking for anything else is shown as JSON, as before. At most MAX_SESSION_ROUNDS rounds per call.
 */
import type { McpSession } from './context';
import type { AgentInputRequired } from './mcp-results';

export const MAX_SESSION_ROUNDS = 10;

/** The client capability each request needs. */
const CAPABILITY_OF: Record<string, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

function isRequest(value: unknown): value is InputRequest {
  return typeof value === 'object' && value !== null && typeof (value as InputRequest).method === 'string';
}

/** Whether the session's client can answer every request of the result. */
export function canPlay(session: McpSession, asking: AgentInputRequired): boolean {
  return Object.values(asking.inputRequests ?? {}).every((request) => {
    if (!isRequest(request)) return false;
    const capability = CAPABILITY_OF[request.method];
    return capability !== undefined && session.capabilities[capability] !== undefined;
  });
}

/** Puts the result's requests to the client, one after the other: the payload of the agent's next round. */
export async function playRound(
  session: McpSession,
  asking: AgentInputRequired,
): Promise<{ mcp: Record<string, unknown> }> {
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(asking.inputRequests ?? {})) {
    if (!isRequest(request)) continue;
    responses[key] = await session.request(request.method, request.params ?? {});
  }
  return {
    mcp: {
      client_capabilities: session.capabilities,
      input_responses: responses,
      ...(asking.requestState !== undefined ? { request_state: asking.requestState } : {}),
    },
  };
}
