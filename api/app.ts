/** The api as an Express app built from its dependencies; `api/main.ts` wires the real ones. */
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Catalogue } from '../catalogue/catalogue';
import type { Config } from '../platform/config';
import type { ApiMetrics } from '../platform/metrics';
import { endpointPolicy, type Lookup } from '../rules/endpoint-policy';
import { guardedFetch } from '../platform/guarded-fetch';
import type { ApiKeyStore } from '../store/api-keys';
import { RateLimiter } from '../util/rate-limiter';
import { identifyCaller } from './caller-auth';
import { discoveryUrl } from '../identity/discovery-url';
import { gatewayAudience, tokenVerifierOf, type TokenVerifier } from '../identity/token-verifier';
import { mcpAuthorization, protectedResourceRoutes } from './oauth-resource';
import { clientLimitOf, type ClientLimit } from './client-limit';
import { errorHandler, notFoundHandler } from './error-middleware';
import type { EndpointGuard } from './endpoint-check';
import type { MessageService } from '../messages/message-service';
import { dashboardPage } from './dashboard';
import { methodGuard } from './method-guard';
import { docsPage, OPERATIONS, openApiDocument } from './openapi';
import { a2aFaceRoutes } from './a2a/face';
import { a2aPushRoutes } from './a2a/push';
import { agentCardRoutes } from './routes/agent-cards';
import { agentRoutes } from './routes/agents';
import { callbackRoutes } from './routes/callback';
import { healthRoutes, type HealthChecks } from './routes/health';
import { heartbeatRoutes } from './routes/heartbeat';
import { keyRoutes } from './routes/keys';
import { messageRoutes } from './routes/messages';
import { chainRoutes } from './routes/chains';
import { chainPlanRoutes } from './routes/chain-plan';
import type { ChainService } from '../chains/chain-service';
import { metricsRoutes } from './routes/metrics';
import { routeRoutes } from './routes/route';
import { misrouteRoutes } from './routes/misroutes';
import type { MisrouteStore } from '../store/misroutes';
import type { PushConfigStore } from '../store/a2a-push-configs';
import type { LessonCache } from '../router/lessons';
import { traceRoutes } from './routes/traces';
import type { Router as RouterType } from '../router/router';
import type { McpFace } from './mcp/sessions';
import type { PlanTaskStore } from '../store/plan-tasks';
import { A2aPlanTasks } from './a2a/plan-tasks';

export interface AppDeps {
  config: Config;
  /** A2A clients' push notification configs (absent: the A2A face offers none). */
  pushConfigs?: PushConfigStore;
  /** The A2A skill plan_and_run's waiting plans (absent: the skill is not served). */
  planTasks?: PlanTaskStore;
  catalogue: Catalogue;
  messages: MessageService;
  /** Chains of messages (`/v1/chains`). */
  chains: ChainService;
  health: HealthChecks;
  logger: Logger;
  /** Used to fetch remote A2A agent cards. @default a fetch that connects only where the endpoint policy allows */
  fetch?: typeof fetch;
  metrics: ApiMetrics;
  /** The intent router (also used by `messages` for messages without a capability). */
  router: Pick<RouterType, 'route' | 'status'>;
  /** Callers' API keys. */
  keys: ApiKeyStore;
  /** Resolves host names for the endpoint policy (the system resolver when absent). */
  lookup?: Lookup;
  /** The per-tenant rate limit (shared with the MCP face). @default one of the app's own */
  limiter?: RateLimiter;
  /** The MCP face, served at `/mcp` (docs/mcp.md); absent, there is no `/mcp`. */
  mcp?: McpFace;
  /** Misroute reports and lessons (`/v1/router/misroutes`). */
  lessons: { store: MisrouteStore; cache: LessonCache };
  /** The per-address limit before authentication, shared with the WebSocket upgrades. @default one of the app's own */
  clients?: ClientLimit;
  /** Validates OIDC access tokens. @default one for AUTH_OIDC_ISSUER (none when it is unset) */
  tokens?: TokenVerifier;
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

/** The per-tenant rate limit of RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST. */
export function rateLimiterOf(config: Pick<Config, 'RATE_LIMIT_PER_SECOND' | 'RATE_LIMIT_BURST'>): RateLimiter {
  return new RateLimiter({ perSecond: config.RATE_LIMIT_PER_SECOND, burst: config.RATE_LIMIT_BURST });
}

/** The OpenAPI document, its page, the OAuth protected-resource metadata and the dashboard. */
function addDocumentRoutes(app: Express, config: Config): void {
  const document = openApiDocument(config.PUBLIC_URL);
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.get('/docs', (_req, res) => {
    res.type('html').send(docsPage());
  });
  app.use(protectedResourceRoutes(config));
  const dashboard = dashboardPage(
    config.AUTH_OIDC_ISSUER?.length && config.AUTH_OIDC_DASHBOARD_CLIENT_ID
      ? {
          discovery_url: discoveryUrl(config.AUTH_OIDC_ISSUER[0]!),
          client_id: config.AUTH_OIDC_DASHBOARD_CLIENT_ID,
          redirect_uri: `${config.PUBLIC_URL}/dashboard`,
          resource: gatewayAudience(config),
        }
      : undefined,
  );
  app.get('/dashboard', (_req, res) => {
    res.type('html').send(dashboard);
  });
}

/** The A2A skill plan_and_run's waiting plans, when there is a store for them. */
function a2aPlansOf(deps: AppDeps, limiter: RateLimiter): A2aPlanTasks | undefined {
  return (
    deps.planTasks &&
    new A2aPlanTasks({
      router: deps.router,
      queries: deps.catalogue.queries,
      chains: deps.chains,
      config: deps.config,
      metrics: deps.metrics,
      store: deps.planTasks,
      limiter,
    })
  );
}

/** The REST api (`/v1/…` and `/metrics`), once bodies are parsed. */
function addRestRoutes(
  app: Express,
  deps: AppDeps,
  shared: { endpoints: EndpointGuard; limiter: RateLimiter; tokens: TokenVerifier | undefined },
): void {
  const { config } = deps;
  const { endpoints, limiter, tokens } = shared;
  const fetchCards = deps.fetch ?? guardedFetch(endpoints.policy);
  app.use(
    metricsRoutes({
      metrics: deps.metrics,
      catalogue: deps.catalogue,
      messages: deps.messages,
      isPublic: config.METRICS_PUBLIC,
    }),
  );
  app.use(
    agentCardRoutes({ catalogue: deps.catalogue, config, endpoints, fetch: fetchCards, ...(tokens ? { tokens } : {}) }),
  );
  app.use(agentRoutes({ catalogue: deps.catalogue, maxCapabilities: config.MAX_CAPABILITIES_PER_AGENT, endpoints }));
  app.use(heartbeatRoutes({ catalogue: deps.catalogue, metrics: deps.metrics, endpoints }));
  app.use(messageRoutes({ messages: deps.messages, config, metrics: deps.metrics, logger: deps.logger, endpoints }));
  app.use(
    chainPlanRoutes({
      router: deps.router,
      queries: deps.catalogue.queries,
      chains: deps.chains,
      config,
      limiter,
      metrics: deps.metrics,
    }),
  );
  app.use(chainRoutes({ chains: deps.chains, config, limiter }));
  app.use(routeRoutes({ router: deps.router, metrics: deps.metrics }));
  app.use(misrouteRoutes(deps.lessons));
  app.use(traceRoutes({ messages: deps.messages, config }));
  app.use(
    callbackRoutes({
      agents: deps.catalogue.store,
      messages: deps.messages,
      metrics: deps.metrics,
      maxPayloadBytes: config.MAX_PAYLOAD_BYTES,
    }),
  );
  app.use(keyRoutes({ keys: deps.keys }));
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple'); // no nested objects from query strings
  app.use(countRequests(deps.metrics));
  // An unsupported method on a known path: 405 with Allow (OPTIONS: 204 with Allow), before anything else is read.
  app.use(methodGuard(OPERATIONS));
  const { config } = deps;
  // Health and the documents answer before keys are read or bodies parsed: a probe never waits on the database
  // (key look-ups) or gets a tenant's 429.
  app.use(healthRoutes(deps.health));
  addDocumentRoutes(app, config);
  const limiter = deps.limiter ?? rateLimiterOf(config);
  // Before any credential is looked up: an address that keeps failing authentication is refused (api/client-limit.ts).
  const clients = deps.clients ?? clientLimitOf(config);
  app.use(clients.chargeFailures());
  // A2A agents' push notifications carry the message's token, not an API key (their bodies are not read).
  app.use(a2aPushRoutes({ catalogue: deps.catalogue, messages: deps.messages, clients }));
  // Keys first: an invalid key or an exhausted tenant is refused before its body is read.
  const tokens = deps.tokens ?? tokenVerifierOf(config);
  app.use(identifyCaller(deps.keys, limiter, tokens));
  const endpoints = { policy: endpointPolicy(config), ...(deps.lookup ? { lookup: deps.lookup } : {}) };
  // The A2A face (docs/a2a.md) reads its own bodies: one that is not JSON is a JSON-RPC error there.
  const plans = a2aPlansOf(deps, limiter);
  app.use(a2aFaceRoutes({ ...deps, endpoints, ...(tokens ? { tokens } : {}), ...(plans ? { plans } : {}) }));
  app.use(express.json({ limit: config.MAX_BODY_BYTES }));
  addRestRoutes(app, deps, { endpoints, limiter, tokens });
  if (deps.mcp) app.use(mcpAuthorization(config), deps.mcp.routes());
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
