/** The router as the api runs it: the in-memory catalogue, circuits, stats and sessions in MongoDB, config. */
import type { Connection } from 'mongoose';
import type { Logger } from 'pino';
import type { Catalogue } from '../catalogue/catalogue';
import { matcherSettings, type Config } from '../platform/config';
import { canReach } from '../rules/acl';
import { hasScope } from '../rules/api-key';
import { chooseMatcher } from './create-matcher';
import { EmbeddingPoolClosed } from './embeddings/embedding-pool';
import { HeadTrainingStopped } from './head/head-trainer';
import { OpenAiLlm } from './llm';
import { createJudge, judgeStatusOf } from './judge/create-judge';
import { DEFAULT_HEAD_SETTINGS, type HeadSettings } from './head/decide';
import type { HeadTraining } from './head/head';
import { Router, type RouterDeps } from './router';
import { MongoSessionStore, sessionModel } from '../store/routing-sessions';
import { RoutingStats, routingStatsModel } from '../store/routing-stats';

/**
 * Refusal thresholds of plain similarity (ROUTER_HEAD=off, or while a head trains), per provider, between the
 * balanced fits on CLINC150 val + oos_val (0.74) and zh-routing dev (0.79) for e5 + bge-small-en
 * (`ROUTER_HEAD=off npm run bench:routing`); ROUTER_THRESHOLD overrides. Scores of different providers live on
 * different scales, so each has its own.
 */
export const DEFAULT_THRESHOLDS = { local: 0.77, openai: 0.5, lexical: 0.46 } as const;

/**
 * The decision's settings as configured: similarity's threshold, and the head's (each catalogue's head fits its own
 * thresholds; configured ones override them). The routing benchmark decides with these too.
 */
export function decisionSettings(
  config: Partial<Pick<Config, 'ROUTER_THRESHOLD' | 'ROUTER_HEAD_ACCEPT' | 'ROUTER_HEAD_ESCALATE'>>,
  kind: keyof typeof DEFAULT_THRESHOLDS,
): { threshold: number; head: HeadSettings } {
  return {
    threshold: config.ROUTER_THRESHOLD ?? DEFAULT_THRESHOLDS[kind],
    head: {
      ...DEFAULT_HEAD_SETTINGS,
      ...(config.ROUTER_HEAD_ACCEPT === undefined ? {} : { accept: config.ROUTER_HEAD_ACCEPT }),
      ...(config.ROUTER_HEAD_ESCALATE === undefined ? {} : { escalate: config.ROUTER_HEAD_ESCALATE }),
    },
  };
}

/**
 * A head whose training failed: a warning, unless the api is stopping (its embedding pool closed under the
 * training): that is a stop, not a failure.
 */
export function logHeadError(logger: Pick<Logger, 'info' | 'warn'>, error: Error): void {
  if (error instanceof EmbeddingPoolClosed || error instanceof HeadTrainingStopped)
    logger.info('router: head training stopped: the router is closing');
  else logger.warn({ err: error }, 'router: head training failed; similarity decides');
}

/** A head trained: a warning when the time guard cut its training short (it then depends on the machine's load). */
export function logHeadTrained(
  logger: Pick<Logger, 'info' | 'warn'>,
  training: { model: string; capabilities: number } & HeadTraining,
): void {
  if (training.time_guard_cuts)
    logger.warn(
      training,
      "router: head trained, but the time guard cut its training short: it depends on the machine's load",
    );
  else logger.info(training, 'router: head trained');
}

export async function createRouter(
  catalogue: Catalogue,
  connection: Connection,
  config: Config,
  logger: Pick<Logger, 'info' | 'warn'>,
  overrides: Partial<RouterDeps> = {},
): Promise<Router> {
  const matcher = await chooseMatcher({
    ...matcherSettings(config),
    onHeadError: (error) => logHeadError(logger, error),
    onHeadTrained: (model, capabilities, training) => logHeadTrained(logger, { model, capabilities, ...training }),
  });
  logger.info({ provider: matcher.provider }, `router: ${matcher.note}`);
  const stats = new RoutingStats(routingStatsModel(connection));
  let judgeStatus = judgeStatusOf(config);
  const judge = createJudge(
    config,
    { info: (m) => logger.info(m), warn: (m) => logger.warn(m) },
    process.env,
    judgeStatus,
    (status) => {
      judgeStatus = status;
    },
  );
  return new Router({
    agents: async (tenant) => {
      await catalogue.index.ensureCurrent(logger);
      return catalogue.index.agents(tenant);
    },
    matcherFactory: matcher.factory,
    heartbeat: catalogue.policy,
    openCircuits: () => catalogue.circuits.openInstanceKeys(),
    stats: () => stats.snapshot(),
    sessions: new MongoSessionStore(sessionModel(connection), config.ROUTER_SESSION_TTL_MS),
    ...(config.LLM_MODEL
      ? {
          llm: new OpenAiLlm({
            model: config.LLM_MODEL,
            ...(config.LLM_BASE_URL ? { baseURL: config.LLM_BASE_URL } : {}),
            ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
          }),
        }
      : {}),
    // Capabilities with an ACL are ineligible for callers it does not admit; only admins read why.
    acl: (caller, candidate) =>
      canReach(caller, {
        tenant: caller.tenant,
        ...(candidate.capability.acl ? { acl: candidate.capability.acl } : {}),
      }),
    isAdmin: (caller) => hasScope({ scopes: caller.scopes ?? [] }, 'admin'),
    ...decisionSettings(config, matcher.kind),
    now: catalogue.now,
    ...(matcher.parameterEmbedder ? { parameterEmbedder: matcher.parameterEmbedder } : {}),
    ...(judge ? { judge } : {}),
    judgeStatus: () => judgeStatus,
    ...(matcher.close ? { closeModels: matcher.close } : {}),
    ...overrides,
  });
}
