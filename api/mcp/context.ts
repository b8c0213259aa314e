/** What the MCP face works with: the api's own services, nothing of its own (docs/mcp.md). */
import type { Logger } from 'pino';
import type { Catalogue } from '../../catalogue/catalogue';
import type { MessageService } from '../../messages/message-service';
import type { Config } from '../../platform/config';
import type { ApiMetrics } from '../../platform/metrics';
import type { Router } from '../../router/router';
import type { Caller } from '../../rules/api-key';
import type { SealKeys } from '../../messages/seal';
import type { EndpointGuard } from '../endpoint-check';
import type { ChainService } from '../../chains/chain-service';
import type { RateLimiter } from '../../util/rate-limiter';

export interface McpDeps {
  config: Config;
  catalogue: Catalogue;
  messages: MessageService;
  router: Pick<Router, 'route'>;
  metrics: ApiMetrics;
  logger: Logger;
  /** The endpoint policy applied to `reply_to` URLs, as on `POST /v1/messages`. */
  endpoints: EndpointGuard;
  /** The deployment's seal keys: 2026-07-28's requestState is sealed with a key derived from them (input-rounds.ts). */
  sealKeys: Pick<SealKeys, 'keys'>;
  /** Chains (`reach_plan_and_run`, plan-and-run.ts). */
  chains: Pick<ChainService, 'check' | 'start' | 'get' | 'waitForEnd'>;
  /** The api's per-tenant rate limit: a planned chain costs what `POST /v1/chains/plan` and `/v1/chains` cost. */
  limiter: Pick<RateLimiter, 'take'>;
}

/** How a caller's answer continues a message (asking.ts): as its reply, or as a new message after the router's refusal. */
export interface Continuation {
  kind: 'reply' | 'router';
  message_id: string;
  /** `reply`: the turns the message had when it asked, so that an answer to an earlier question is not taken for a later one. */
  asked?: number;
  /** `reply`, when the agent asked several questions: the key of the one asked (they are asked one at a time). */
  question?: string;
}

/**
 * A 2026-07-28 request's round (input-rounds.ts): the client's capabilities, its answers to an agent's input_required
 * result and the agent's state. Present only on that revision, where an agent's input_required result is passed on.
 */
export interface McpRound {
  clientCapabilities: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  /** The gateway's own state: the message the client's answer continues (asking.ts). */
  continues?: Continuation;
  /** The gateway's own state: the client answers its question for a task's missing parameters (task-parameters.ts). */
  parameters?: true;
}

/** A 2025-11-25 session's client: what it declared, and requests to it on the call's own stream (session-rounds.ts). */
export interface McpSession {
  capabilities: Record<string, unknown>;
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
}

/** One tool call: who calls (the session's key), how to report progress and log lines (when the client asked), and its cancellation. */
export interface ToolCall {
  caller: Caller;
  /** Present when the client sent a progress token. */
  progress?: (progress: number, message: string) => Promise<void>;
  /** Present when the client may take log messages (`notifications/message`, 2025-11-25's logging). */
  log?: (level: 'info' | 'debug', message: string) => Promise<void>;
  round?: McpRound;
  /** Present on a 2025-11-25 session whose client declared `elicitation`: asks its user, in the middle of the call. */
  elicit?: (params: {
    message: string;
    requestedSchema: Record<string, unknown>;
  }) => Promise<{ action: string; content?: Record<string, unknown> }>;
  /** Present on a 2025-11-25 session. */
  session?: McpSession;
  signal: AbortSignal;
}
