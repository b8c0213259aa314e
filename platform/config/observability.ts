import { z } from 'zod';
import { flag } from './fields';

/** Observability: logs, metrics and traces. */
export const observabilityShape = {
  /** Log verbosity of our processes: `debug`, `info`, `warn` or `error` (JSON logs via pino). @default info */
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** `GET /metrics` without a key (for scrapers that cannot send one); otherwise it needs a key with the `metrics` scope. @default false */
  METRICS_PUBLIC: flag.default(false),
  /**
   * Port of the worker's Prometheus endpoint (`/metrics`: `reach_delivery_attempts_total{outcome,transport}`,
   * `reach_delivery_latency_seconds`, `reach_delivery_retries_total`); 0 turns it off (docker-compose: 9464). @default 0
   */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /**
   * OTLP/HTTP collector base URL (e.g. http://otel-collector:4318); only when set, the api's workflow starts, the
   * workflow runs and the activities are exported as spans (Temporal's OpenTelemetry interceptors), in the message's
   * own trace id. Optional.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
};
