/** The api as an Express app built from its dependencies; `api/main.ts` wires the real ones. */
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Catalogue } from '../domain/catalogue/catalogue';
import type { Config } from '../domain/config';
import type { ApiMetrics } from '../domain/metrics';
import { errorHandler, notFoundHandler } from './error-middleware';
import type { MessageService } from './message-service';
import { dashboardPage } from './dashboard';
import { docsPage, openApiDocument } from './openapi';
import { agentCardRoutes } from './routes/agent-cards';
import { agentRoutes } from './routes/agents';
import { callbackRoutes } from './routes/callback';
import { healthRoutes, type HealthChecks } from './routes/health';
import { heartbeatRoutes } from './routes/heartbeat';
import { messageRoutes } from './routes/messages';
import { metricsRoutes } from './routes/metrics';
import { routeRoutes } from './routes/route';
import { traceRoutes } from './routes/traces';
import type { Router as RouterType } from '../domain/router/router';

export interface AppDeps {
  config: Config;
  catalogue: Catalogue;
  messages: MessageService;
  health: HealthChecks;
  logger: Logger;
  /** Used to fetch remote A2A agent cards. */
  fetch?: typeof fetch;
  metrics: ApiMetrics;
  /** The intent router (also used by `messages` for messages without a capability). */
  router: Pick<RouterType, 'route'>;
}

/** Counts every request by route template (not raw path, to keep label values few) and status. */
function countRequests(metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method: req.method, route }, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple'); // no nested objects from query strings
  app.use(countRequests(deps.metrics));
  app.use(express.json({ limit: deps.config.MAX_BODY_BYTES }));
  const tenant = deps.config.DEFAULT_TENANT;
  app.use(healthRoutes(deps.health));
  app.use(metricsRoutes({ metrics: deps.metrics, catalogue: deps.catalogue, messages: deps.messages, tenant }));
  const document = openApiDocument(deps.config.PUBLIC_URL);
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.get('/docs', (_req, res) => {
    res.type('html').send(docsPage());
  });
  app.get('/dashboard', (_req, res) => {
    res.type('html').send(dashboardPage());
  });
  app.use(agentCardRoutes({ catalogue: deps.catalogue, config: deps.config, tenant, ...(deps.fetch ? { fetch: deps.fetch } : {}) }));
  app.use(agentRoutes({ catalogue: deps.catalogue, tenant }));
  app.use(heartbeatRoutes({ catalogue: deps.catalogue, metrics: deps.metrics }));
  app.use(messageRoutes({ messages: deps.messages, config: deps.config, tenant, metrics: deps.metrics, logger: deps.logger }));
  app.use(routeRoutes({ router: deps.router, tenant, metrics: deps.metrics }));
  app.use(traceRoutes({ messages: deps.messages, config: deps.config, tenant }));
  app.use(callbackRoutes({ agents: deps.catalogue.store, messages: deps.messages, metrics: deps.metrics }));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
