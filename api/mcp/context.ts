/** What the MCP face works with: the api's own services, nothing of its own (docs/mcp.md). */
import type { Logger } from 'pino';
import type { Catalogue } from '../../catalogue/catalogue';
import type { MessageService } from '../../messages/message-service';
import type { Config } from '../../platform/config';
import type { ApiMetrics } from '../../platform/metrics';
import type { Router } from '../../router/router';
import type { Caller } from '../../rules/api-key';
import type { EndpointGuard } from '../endpoint-check';

export interface McpDeps {
  config: Config;
  catalogue: Catalogue;
  messages: MessageService;
  router: Pick<Router, 'route'>;
  metrics: ApiMetrics;
  logger: Logger;
  /** The endpoint policy applied to `reply_to` URLs, as on `POST /v1/messages`. */
  endpoints: EndpointGuard;
}

/** One tool call: who calls (the session's key), how to report progress and log lines (when the client asked), and its cancellation. */
export interface ToolCall {
  caller: Caller;
  /** Present when the client sent a progress token. */
  progress?: (progress: number, message: string) => Promise<void>;
  /** Present when the client may take log messages (`notifications/message`, 2025-11-25's logging). */
  log?: (level: 'info' | 'debug', message: string) => Promise<void>;
  signal: AbortSignal;
}
