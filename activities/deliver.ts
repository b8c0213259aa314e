/** One delivery attempt to an agent instance over HTTP (and the attempt bookkeeping A2A delivery shares). Never throws for what the agent answers: it classifies it. */
import type { AgentQueries, DeliveryTarget } from '../catalogue/agent-queries';
import { checkEndpoint, type EndpointPolicy } from '../rules/endpoint-policy';
import { signatureHeaders } from '../rules/signing';
import type { MessageInput } from '../messages/message';
import { deliveryEnvelope } from '../protocol/envelope';
import { deliveryHeaders } from '../protocol/headers';
import { deliveryKey } from '../protocol/turns';
import {
  answerTooLarge,
  circuitOutcome,
  classifyResponse,
  withinResultSize,
  type AnswerLimits,
  type DeliveryVerdict,
} from '../protocol/verdicts';
import { AnswerTooLargeError, readCappedText } from '../platform/capped-body';
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../platform/metrics';
import type { CircuitStore } from '../store/circuits';

export interface DeliverRequest {
  message: MessageInput;
  target: DeliveryTarget;
  attempt: number;
}

export interface DeliverResult {
  verdict: DeliveryVerdict;
  http_status?: number;
  /** A2A deliveries: the agent's task, followed with pollA2aTask while it is under way. */
  a2a_task_id?: string;
  started_at: string;
  latency_ms: number;
}

/** Each attempt's outcome feeds the instance's circuit breaker (an "accepted" one only through its receipt). */
export interface DeliverDeps extends AttemptOutcomeDeps {
  fetch: typeof fetch;
  /** Read here rather than passed in, so no secret is written to workflow history. */
  queries: Pick<AgentQueries, 'signingSecrets'>;
  /** The SSRF policy, checked before each attempt (the host may resolve elsewhere than at registration). */
  endpointPolicy?: EndpointPolicy;
  /** How much of the answer is read and of its result kept. */
  answerLimits: AnswerLimits;
}

/** The answer's JSON (undefined when empty or not JSON), read up to `maxBytes` (else AnswerTooLargeError). */
async function readJson(response: Response, maxBytes: number): Promise<unknown> {
  const text = await readCappedText(response, maxBytes);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeNetworkError(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `timeout after ${timeoutMs} ms`;
  return err.cause?.code ?? err.cause?.message ?? err.message ?? 'network error';
}

function isEndpointNotAllowed(error: unknown): boolean {
  return (error as { cause?: { code?: string } })?.cause?.code === 'ENDPOINT_NOT_ALLOWED';
}

/** What ends a delivery attempt, over HTTP or A2A, needs: its outcome goes to the circuit, the metrics and the log. */
export interface AttemptOutcomeDeps {
  circuits: Pick<CircuitStore, 'record'>;
  now: () => number;
  metrics?: Pick<WorkerMetrics, 'deliveryAttempts' | 'deliveryLatency' | 'retries'>;
  logger?: Pick<Logger, 'info'>;
}

/** What an attempt adds to its record besides the verdict. */
export type AttemptDetails = Pick<DeliverResult, 'http_status' | 'a2a_task_id'>;

/**
 * The function that ends the attempt of `request` started at `started` (ms) over `transport`. Advisory: failing to
 * record an outcome must not fail the delivery. (The ranking hears how the message ended, not each attempt: see
 * settle-message.ts.)
 */
export function attemptFinisher(
  deps: AttemptOutcomeDeps,
  request: DeliverRequest,
  started: number,
  transport: 'http' | 'a2a',
) {
  const { message, target, attempt } = request;
  return async (verdict: DeliveryVerdict, details: AttemptDetails = {}): Promise<DeliverResult> => {
    const latency = deps.now() - started;
    const linkWorked = circuitOutcome(verdict);
    if (linkWorked !== undefined)
      await deps.circuits.record(target.agent_id, target.instance_id, linkWorked).catch(() => undefined);
    deps.metrics?.deliveryAttempts.inc({ outcome: verdict.kind, transport });
    deps.metrics?.deliveryLatency.observe({ transport }, latency / 1000);
    if (attempt > 1) deps.metrics?.retries.inc();
    deps.logger?.info(
      {
        message_id: message.message_id,
        trace_id: message.trace_id,
        agent_id: target.agent_id,
        instance_id: target.instance_id,
        attempt,
        transport,
        outcome: verdict.kind,
        ...details,
        latency_ms: latency,
      },
      'delivery attempt',
    );
    return { verdict, ...details, started_at: new Date(started).toISOString(), latency_ms: latency };
  };
}

/** Whether the message's deadline has passed at `nowMs`: then nothing may be sent any more. */
export function pastDeadline(message: MessageInput, nowMs: number): boolean {
  return message.deadline !== undefined && nowMs >= Date.parse(message.deadline);
}

export function createDeliver(deps: DeliverDeps) {
  return async function deliver(request: DeliverRequest): Promise<DeliverResult> {
    const { message, target, attempt } = request;
    const started = deps.now();
    if (pastDeadline(message, started))
      return { verdict: { kind: 'too_late' }, started_at: new Date(started).toISOString(), latency_ms: 0 };
    const timeoutMs = message.policy.attemptTimeoutMs;
    const finished = attemptFinisher(deps, request, started, 'http');
    const finish = (verdict: DeliveryVerdict, httpStatus?: number) =>
      finished(verdict, httpStatus === undefined ? {} : { http_status: httpStatus });
    if (deps.endpointPolicy) {
      const verdict = await checkEndpoint(target.endpoint, deps.endpointPolicy);
      if (!verdict.allowed) return finish({ kind: 'refused', error: `endpoint not allowed: ${verdict.reason}` });
    }
    const body = JSON.stringify(deliveryEnvelope(message, target, attempt));
    const signed = signatureHeaders(
      await deps.queries.signingSecrets(target.agent_id),
      deliveryKey(message.message_id, message.turn),
      new Date(started),
      body,
    );
    let response: Response;
    try {
      response = await deps.fetch(target.endpoint, {
        method: 'POST',
        headers: { ...deliveryHeaders(message), ...signed },
        body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      // The host now resolves where the policy refuses (checked on the connection's own lookup): not retried.
      if (isEndpointNotAllowed(error))
        return finish({ kind: 'refused', error: (error as { cause: Error }).cause.message });
      return finish({ kind: 'transient', error: describeNetworkError(error, timeoutMs) });
    }
    const { maxAnswerBytes, maxResultBytes } = deps.answerLimits;
    let answer: unknown;
    try {
      answer = await readJson(response, maxAnswerBytes);
    } catch (error) {
      if (error instanceof AnswerTooLargeError) return finish(answerTooLarge(maxAnswerBytes), response.status);
      return finish(
        { kind: 'transient', error: `reading the answer: ${describeNetworkError(error, timeoutMs)}` },
        response.status,
      );
    }
    const verdict = classifyResponse(response.status, answer, response.headers.get('retry-after'), deps.now());
    return finish(withinResultSize(verdict, maxResultBytes), response.status);
  };
}
