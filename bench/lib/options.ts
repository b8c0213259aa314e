/** Command-line options shared by bench:delivery and bench:chaos, and the gateway settings they imply. */
import { FAULT_KINDS, parseFaultKinds, type FaultPlan } from './faults';

export interface CommonOptions {
  workMs: number;
  seed: number;
  timeoutMs: number;
  faults: Omit<FaultPlan, 'rate'>;
  apiKey?: string;
  ackTimeoutMs: number;
  maxAttempts: number;
  maxDeliveryMs: number;
  /** KEY=VALUE pairs added to the api's and the worker's environment (e.g. worker tuning knobs). */
  env: Record<string, string>;
  keepData: boolean;
}

/** parseArgs option definitions of {@link CommonOptions}. */
export const COMMON_ARGS = {
  'work-ms': { type: 'string', default: '20' },
  seed: { type: 'string', default: '1' },
  'timeout-ms': { type: 'string', default: '2000' },
  'fault-kinds': { type: 'string', default: FAULT_KINDS.join(',') },
  'delay-min-ms': { type: 'string', default: '500' },
  'delay-max-ms': { type: 'string', default: '4000' },
  'api-key': { type: 'string' },
  'ack-timeout-ms': { type: 'string', default: '5000' },
  'max-attempts': { type: 'string', default: '10' },
  'max-delivery-ms': { type: 'string', default: '120000' },
  env: { type: 'string', multiple: true, default: [] as string[] },
  'keep-data': { type: 'boolean', default: false },
} as const;

export function commonOptions(values: Record<string, string | boolean | string[] | undefined>): CommonOptions {
  const num = (name: string) => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a non-negative number`);
    return value;
  };
  const apiKey = (values['api-key'] as string | undefined) ?? process.env.REACH_API_KEY;
  const env = Object.fromEntries(
    (values.env as string[]).map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`--env wants KEY=VALUE, got ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  return {
    workMs: num('work-ms'),
    seed: num('seed'),
    timeoutMs: num('timeout-ms'),
    faults: {
      kinds: parseFaultKinds(values['fault-kinds'] as string),
      delayMinMs: num('delay-min-ms'),
      delayMaxMs: num('delay-max-ms'),
    },
    ...(apiKey ? { apiKey } : {}),
    ackTimeoutMs: num('ack-timeout-ms'),
    maxAttempts: num('max-attempts'),
    maxDeliveryMs: num('max-delivery-ms'),
    env,
    keepData: Boolean(values['keep-data']),
  };
}

/**
 * The gateway's delivery knobs for a benchmark: the same per-try timeout as the direct client, and a backoff of
 * 0.5 s doubling to 4 s (the production default, 5 s doubling to 60 s, would make tails of minutes under faults).
 */
export function gatewayEnv(options: CommonOptions): Record<string, string> {
  return {
    DELIVERY_TIMEOUT_MS: String(options.timeoutMs),
    DELIVERY_INITIAL_BACKOFF_MS: '500',
    DELIVERY_MAX_BACKOFF_MS: '4000',
    ...options.env,
  };
}
