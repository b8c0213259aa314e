/**
 * Every knob of Agent-Reach, read from the environment by one zod schema at boot. The schema is composed of one part
 * per concern (platform/config/: each part's variables with their doc comments, and the helpers that read them);
 * docs/configuration.md lists the parts in this order (`npm run docs`). A bad value stops start-up with a message
 * that names the variable (see {@link loadConfig}).
 */
import { z } from 'zod';
import { agentsShape, checkHeartbeatWrites } from './config/agents';
import { chainsShape } from './config/chains';
import { deliveryShape } from './config/delivery';
import { facesShape } from './config/faces';
import { localServersShape } from './config/local-servers';
import { observabilityShape } from './config/observability';
import { oidcShape } from './config/oidc';
import { checkJudgeModel, routerShape } from './config/router';
import { checkConfigKeys, securityShape } from './config/security';
import { serverShape } from './config/server';
import { storageShape } from './config/storage';
import { temporalCallersShape } from './config/temporal-callers';

export { heartbeatPolicy } from './config/agents';
export { chainLimits } from './config/chains';
export { answerLimits, circuitPolicy } from './config/delivery';
export { temporalSqlitePragmas } from './config/local-servers';
export { DEFAULT_HEAD_WAIT_MS, matcherSettings } from './config/router';
export { workerTuning } from './config/server';

export const envSchema = z
  .object({
    ...serverShape,
    ...storageShape,
    ...securityShape,
    ...oidcShape,
    ...agentsShape,
    ...deliveryShape,
    ...chainsShape,
    ...routerShape,
    ...facesShape,
    ...temporalCallersShape,
    ...observabilityShape,
    ...localServersShape,
  })
  .superRefine((env, ctx) => {
    checkConfigKeys(env, ctx);
    checkJudgeModel(env, ctx);
    checkHeartbeatWrites(env, ctx);
  });

export type Config = z.infer<typeof envSchema> & { PUBLIC_URL: string };

/** Thrown by {@link loadConfig} when a variable is invalid; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super('Invalid configuration:\n' + problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n'));
    this.name = 'ConfigError';
  }
}

/** Parses the environment (empty strings count as unset). Throws {@link ConfigError}. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '(environment)'),
        message: issue.message,
      })),
    );
  }
  const config = parsed.data;
  const host = config.API_HOST === '0.0.0.0' ? '127.0.0.1' : config.API_HOST;
  return {
    ...config,
    PUBLIC_URL: (config.PUBLIC_URL ?? `http://${host}:${config.API_PORT}`).replace(/\/$/, ''),
  };
}

/** Loads the config for an entry point, printing the problems and exiting with code 2 when it is invalid. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}
