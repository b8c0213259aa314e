import { z } from 'zod';
import { positiveMs } from './fields';

/**
 * Messages and delivery: how large a message and an answer may be, the idempotency window, delivery attempts and
 * their backoff, the circuit breaker per agent instance, and the notifications sent to callers.
 */
export const deliveryShape = {
  /**
   * Largest stored message `payload` + `intent`, and result (a receipt's, or an agent's answer to a delivery or an A2A
   * task's artifacts: larger fails the message `result_too_large`), in bytes of JSON (kept in Temporal history). @default 262144
   */
  MAX_PAYLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(256 * 1024),
  /**
   * Most bytes read of any answer from an agent or a card host: an HTTP delivery's answer, an A2A agent's answers
   * (SendMessage, GetTask, CancelTask), a fetched A2A card. The read stops there: a delivery whose answer is longer
   * fails `result_too_large` (not retried), a card import 422 `agent_card_too_large`. A result must also fit
   * MAX_PAYLOAD_BYTES as JSON to be kept. @default 1048576 (1 MiB)
   */
  AGENT_ANSWER_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(1024 * 1024),
  /**
   * The idempotency window: how long after a message ends its id still answers with that message (200, or 409 for
   * another body) instead of starting a new one. It is the namespace's retention of closed runs: embedded mode sets
   * it on its namespace; elsewhere set the namespace's retention to at least this (the api warns at start when it is
   * shorter). At least 1 day (Temporal's minimum retention), in ms. @default 604800000 (7 days)
   */
  IDEMPOTENCY_WINDOW_MS: z.coerce.number().int().min(86_400_000).default(604_800_000),
  /** Time allowed for one HTTP delivery attempt, in ms. @default 10000 */
  DELIVERY_TIMEOUT_MS: positiveMs.default(10_000),
  /** Attempts per delivery before the message fails with `delivery_exhausted` (the seeds' policy: at most 5). @default 5 */
  DELIVERY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** Delay before the first retry of a transient failure, doubled each time, in ms (seeds: 5 s). @default 5000 */
  DELIVERY_INITIAL_BACKOFF_MS: positiveMs.default(5_000),
  /** Upper bound of one backoff delay, in ms. @default 60000 */
  DELIVERY_MAX_BACKOFF_MS: positiveMs.default(60_000),
  /** How long to wait for an agent's processed receipt when its capability sets no ack timeout, in ms. @default 30000 */
  DEFAULT_ACK_TIMEOUT_MS: positiveMs.default(30_000),
  /** Circuit breaker per agent instance: failures in a row that open it. @default 5 */
  CIRCUIT_CONSECUTIVE_FAILURES: z.coerce.number().int().min(1).default(5),
  /** Failure rate (0–1) over the window that opens it, once the window holds CIRCUIT_MIN_REQUESTS outcomes. @default 0.5 */
  CIRCUIT_FAILURE_RATE: z.coerce.number().gt(0).max(1).default(0.5),
  /** Outcomes needed in the window before the failure rate counts. @default 20 */
  CIRCUIT_MIN_REQUESTS: z.coerce.number().int().min(1).default(20),
  /** Length of the failure-rate window, in ms. @default 60000 */
  CIRCUIT_WINDOW_MS: positiveMs.default(60_000),
  /** How long a circuit stays open the first time, in ms; each reopening lasts that much longer. @default 30000 */
  CIRCUIT_OPEN_MS: positiveMs.default(30_000),
  /** Longest a circuit stays open, in ms. @default 300000 */
  CIRCUIT_MAX_OPEN_MS: positiveMs.default(300_000),
  /**
   * How often a worker merges the delivery outcomes it gathered into the shared circuit records and learns which
   * circuits are open elsewhere, in ms (a worker killed between two merges loses that interval's outcomes). @default 500
   */
  CIRCUIT_FLUSH_MS: positiveMs.default(500),
  /**
   * Standard Webhooks secret (`whsec_…`) signing the notifications sent to callers' `reply_to` URLs. Messages with
   * `reply_to` are refused while it is unset (422 `reply_to_unavailable`); embedded mode generates one in DATA_DIR and
   * prints it. Optional.
   */
  CALLER_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]{24,}$/, 'must look like whsec_<base64>')
    .optional(),
  /** First retry delay of a failed `reply_to` notification, in ms; then ×6 each time up to 10 h, 8 tries in all (docs/api.md has the schedule). @default 5000 */
  CALLER_WEBHOOK_RETRY_INITIAL_MS: positiveMs.default(5_000),
};

type DeliveryEnv = z.infer<z.ZodObject<typeof deliveryShape>>;

/** The circuit breaker knobs. */
export function circuitPolicy(config: DeliveryEnv) {
  return {
    consecutiveFailures: config.CIRCUIT_CONSECUTIVE_FAILURES,
    failureRate: config.CIRCUIT_FAILURE_RATE,
    minRequests: config.CIRCUIT_MIN_REQUESTS,
    windowMs: config.CIRCUIT_WINDOW_MS,
    openMs: config.CIRCUIT_OPEN_MS,
    maxOpenMs: config.CIRCUIT_MAX_OPEN_MS,
  };
}

/** How much of an agent's answer the worker reads, and of its result a status keeps. */
export function answerLimits(config: DeliveryEnv) {
  return { maxAnswerBytes: config.AGENT_ANSWER_MAX_BYTES, maxResultBytes: config.MAX_PAYLOAD_BYTES };
}
