/** The api as an Express app built from its dependencies; `api/main.ts` wires the real ones. */
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { AgentStore } from '../domain/agent-store';
import type { Config } from '../domain/config';
import { errorHandler, notFoundHandler } from './error-middleware';
import type { MessageService } from './message-service';
import { agentRoutes } from './routes/agents';
import { callbackRoutes } from './routes/callback';
import { healthRoutes, type HealthChecks } from './routes/health';
import { messageRoutes } from './routes/messages';

export interface AppDeps {
  config: Config;
  agents: AgentStore;
  messages: MessageService;
  health: HealthChecks;
  logger: Logger;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(express.json({ limit: deps.config.MAX_BODY_BYTES }));
  const tenant = deps.config.DEFAULT_TENANT;
  app.use(healthRoutes(deps.health));
  app.use(agentRoutes({ agents: deps.agents, tenant }));
  app.use(messageRoutes({ messages: deps.messages, config: deps.config, tenant }));
  app.use(callbackRoutes({ agents: deps.agents, messages: deps.messages }));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
