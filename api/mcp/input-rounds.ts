/**
 * Multi-round-trip requests of 2026-07-28 (`input_required`) through the gateway. An agent that needs the MCP
 * client's input (an elicitation, a sampling, its roots) answers its delivery with an input_required result,
 * `{resultType: "input_required", inputRequests: {…}, requestState?: "…"}`; the gateway passes it on (the SDK checks
 * that the client declared what is asked: -32021 otherwise). The client calls again with its `inputResponses` and
 * the `requestState`: that is a new message, whose payload carries `mcp: {client_capabilities, input_responses?,
 * request_state?}` for the agent to finish (or ask again). Each message is a round of its own; the state lives in
 * the client, as the revision intends.
 *
 * The agent's `requestState` is sealed before it leaves: an HMAC (the SDK's request-state codec) with a key derived
 * from the deployment's seal key (so every api replica accepts it, and after a restart), bound to the method, the
 * API key and the tool, prompt or resource called, valid for STATE_TTL_SECONDS. A state changed, expired or echoed
 * elsewhere is refused by the SDK with -32602 before any message is sent; the agent gets back only what it minted.
 */
import { createHmac } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  ProtocolError,
  ProtocolErrorCode,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { SealKeys } from '../../messages/seal';
import type { Continuation, McpRound } from './context';
import type { AgentInputRequired } from './mcp-results';

/** How long a sealed requestState is accepted (the SDK's default: ten minutes). */
const STATE_TTL_SECONDS = 600;

interface SealedState {
  /** The tool, prompt or resource URI the state was made for. */
  for: string;
  /** The agent's own state. */
  state?: string;
  /** Or the gateway's: the message the client's answer continues (asking.ts). */
  continues?: Continuation;
  /** Or the gateway's: it asked for a task's missing parameters (task-parameters.ts). */
  parameters?: true;
}

export type StateCodec = RequestStateCodec<SealedState>;

/** The codec of the deployment (its first seal key, messages/seal.ts). */
export function stateCodec(sealKeys: Pick<SealKeys, 'keys'>): StateCodec {
  const key = createHmac('sha256', sealKeys.keys[0]!).update('agent-reach mcp requestState').digest('hex');
  return createRequestStateCodec<SealedState>({
    key,
    ttlSeconds: STATE_TTL_SECONDS,
    bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`,
  });
}

/** This round of a request for `name`: the client's capabilities, answers and the agent's state (checked to be for `name`). */
export function roundOf(ctx: ServerContext, name: string): McpRound {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const sealed = ctx.mcpReq.requestState<SealedState>();
  if (sealed !== undefined && sealed.for !== name)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `requestState was made for ${sealed.for}, not ${name}`);
  const clientCapabilities = envelope[CLIENT_CAPABILITIES_META_KEY];
  return {
    clientCapabilities:
      typeof clientCapabilities === 'object' && clientCapabilities !== null
        ? (clientCapabilities as Record<string, unknown>)
        : {},
    ...(ctx.mcpReq.inputResponses ? { inputResponses: ctx.mcpReq.inputResponses } : {}),
    ...(sealed?.state !== undefined ? { requestState: sealed.state } : {}),
    ...(sealed?.continues ? { continues: sealed.continues } : {}),
    ...(sealed?.parameters ? { parameters: true as const } : {}),
  };
}

/** The agent's input_required result as the client gets it: its state sealed for `name`. */
export async function sealedAnswer(
  codec: StateCodec,
  ctx: ServerContext,
  name: string,
  answer: AgentInputRequired,
): Promise<InputRequiredResult> {
  const { requestState, continues, asksParameters, ...rest } = answer;
  // The agent's requests are the SDK's to check (shape, and what the client declared) on the way out.
  const state: SealedState | undefined = continues
    ? { for: name, continues }
    : asksParameters
      ? { for: name, parameters: true }
      : requestState === undefined
        ? undefined
        : { for: name, state: requestState };
  const sealed = state === undefined ? rest : { ...rest, requestState: await codec.mint(state, ctx) };
  return sealed as InputRequiredResult;
}

/** What a message of this round carries for the agent, in its payload. */
export function roundPayload(round: McpRound | undefined): { payload?: { mcp: Record<string, unknown> } } {
  if (!round) return {};
  return {
    payload: {
      mcp: {
        client_capabilities: round.clientCapabilities,
        ...(round.inputResponses ? { input_responses: round.inputResponses } : {}),
        ...(round.requestState !== undefined ? { request_state: round.requestState } : {}),
      },
    },
  };
}
