import type { AckFrame } from './frames';
import { inputRequest, type AgentError } from './receipt';
import type { InputRequest } from './turns';
import { jsonBytes } from '../util/json-bytes';

/** What the gateway makes of an agent's answer to a delivery, over HTTP or WebSocket (docs/protocol.md, "5. Answer, then send the receipt"). */
export type DeliveryVerdict =
  | { kind: 'processed'; result: unknown }
  | { kind: 'agent_failed'; error: AgentError }
  | { kind: 'accepted' }
  /** The message is not for this capability; the agent did nothing (docs/protocol.md, "Not for you"). */
  | { kind: 'misrouted' }
  /** The agent needs more from the caller: the message waits for the caller's reply (protocol/turns.ts). */
  | { kind: 'input_required'; input: InputRequest }
  | { kind: 'duplicate'; processed: boolean; result?: unknown }
  /** Not retried. `code` says why when it is the gateway's refusal of the answer rather than the agent's of the message. */
  | { kind: 'refused'; error: string; code?: typeof RESULT_TOO_LARGE }
  | { kind: 'transient'; error: string; retryAfterMs?: number }
  /** Not sent: the message's deadline passed between the workflow's check and the activity's start. */
  | { kind: 'too_late' };

/** The reason code of a message whose agent answered more than the gateway reads or stores. */
export const RESULT_TOO_LARGE = 'result_too_large';

/** How much of an agent's answer is read, and how much of its result is kept (docs/limits.md). */
export interface AnswerLimits {
  /** Bytes read of any answer; past them the read stops (AGENT_ANSWER_MAX_BYTES). */
  maxAnswerBytes: number;
  /** Bytes of JSON a result may take in the message's status (MAX_PAYLOAD_BYTES, as for receipts). */
  maxResultBytes: number;
}

/** An agent's error message kept in a status or an attempt: the first this many characters. */
const MAX_ERROR_CHARS = 1_000;

function clipped(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

/** The verdict on an answer longer than the gateway reads: the message fails, not retried (another try would answer the same). */
export function answerTooLarge(maxAnswerBytes: number): DeliveryVerdict {
  return { kind: 'refused', code: RESULT_TOO_LARGE, error: answerTooLargeMessage(maxAnswerBytes) };
}

export function answerTooLargeMessage(maxAnswerBytes: number): string {
  return `the agent's answer is larger than ${maxAnswerBytes} bytes (AGENT_ANSWER_MAX_BYTES); it was not read further`;
}

/** Why a result was not kept, or undefined when it fits in a status. */
export function oversizedResult(result: unknown, maxResultBytes: number): string | undefined {
  const bytes = jsonBytes(result);
  return bytes > maxResultBytes
    ? `the agent's result takes ${bytes} bytes of JSON; at most ${maxResultBytes} are kept (MAX_PAYLOAD_BYTES)`
    : undefined;
}

/** The verdict itself, or a refusal when the result it carries is larger than a status keeps. */
export function withinResultSize(verdict: DeliveryVerdict, maxResultBytes: number): DeliveryVerdict {
  if (verdict.kind !== 'processed' && verdict.kind !== 'duplicate') return verdict;
  const tooLarge = oversizedResult(verdict.result, maxResultBytes);
  return tooLarge ? { kind: 'refused', code: RESULT_TOO_LARGE, error: tooLarge } : verdict;
}

/**
 * Statuses worth retrying at the same agent. Everything else in 4xx is a business refusal.
 * - 408 Request Timeout, 425 Too Early, 429 Too Many Requests: the agent asks us to come back.
 * - 5xx: the agent or a proxy in front of it is unwell; except 501 Not Implemented and
 *   505 HTTP Version Not Supported, which will not heal on their own (see PERMANENT_SERVER_ERRORS).
 */
const TRANSIENT_CLIENT_ERRORS = new Set([408, 425, 429]);
const PERMANENT_SERVER_ERRORS = new Set([501, 505]);

export function isTransientStatus(status: number): boolean {
  if (TRANSIENT_CLIENT_ERRORS.has(status)) return true;
  return status >= 500 && status <= 599 && !PERMANENT_SERVER_ERRORS.has(status);
}

/** Parses Retry-After (delta-seconds or an HTTP date) into ms from `nowMs`; undefined when absent or invalid. */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

function asRecord(body: unknown): Record<string, unknown> | undefined {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined;
}

function agentError(value: unknown): AgentError {
  const record = asRecord(value);
  if (record && typeof record.message === 'string') {
    return {
      message: clipped(record.message),
      ...(typeof record.code === 'string' ? { code: record.code.slice(0, 100) } : {}),
      ...(typeof record.retryable === 'boolean' ? { retryable: record.retryable } : {}),
    };
  }
  return { message: typeof value === 'string' ? clipped(value) : 'the agent reported a failure' };
}

/**
 * Classifies one HTTP answer. `body` is the parsed JSON body, or undefined when it was empty or not JSON.
 */
export function classifyResponse(
  status: number,
  body: unknown,
  retryAfter: string | null | undefined,
  nowMs: number,
): DeliveryVerdict {
  const record = asRecord(body);
  if (status >= 200 && status <= 299) {
    if (record?.status === 'processed') return { kind: 'processed', result: record.result ?? null };
    if (record?.status === 'failed') return { kind: 'agent_failed', error: agentError(record.error) };
    if (record?.status === 'misrouted') return { kind: 'misrouted' };
    if (record?.status === 'input_required') return inputVerdict(record.input);
    return { kind: 'accepted' };
  }
  if (status === 409 && record?.status === 'duplicate') {
    const processed = record.result !== undefined;
    return processed ? { kind: 'duplicate', processed, result: record.result } : { kind: 'duplicate', processed };
  }
  if (isTransientStatus(status)) {
    const retryAfterMs = parseRetryAfter(retryAfter, nowMs);
    return {
      kind: 'transient',
      error: `HTTP ${status}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  const detail = record && 'error' in record ? `: ${agentError(record.error).message}` : '';
  return { kind: 'refused', error: `HTTP ${status}${detail}` };
}

/** An `input_required` answer: what it asks for, or a refusal when it does not say (the caller could not answer). */
function inputVerdict(input: unknown): DeliveryVerdict {
  const parsed = inputRequest.safeParse(input);
  if (!parsed.success)
    return {
      kind: 'refused',
      error: 'the agent answered input_required without a valid `input` ({message, schema?} or {message, questions})',
    };
  return { kind: 'input_required', input: parsed.data as InputRequest };
}

/** Classifies a WebSocket ack like an HTTP answer. */
export function verdictOfAck(ack: AckFrame): DeliveryVerdict {
  const error = typeof ack.error === 'string' ? { message: ack.error } : ack.error;
  switch (ack.status) {
    case 'processed':
      return { kind: 'processed', result: ack.result ?? null };
    case 'failed':
      return { kind: 'agent_failed', error: error ?? { message: 'the agent reported a failure' } };
    case 'duplicate':
      return ack.result === undefined
        ? { kind: 'duplicate', processed: false }
        : { kind: 'duplicate', processed: true, result: ack.result };
    case 'refused':
      return { kind: 'refused', error: error?.message ?? 'refused' };
    case 'misrouted':
      return { kind: 'misrouted' };
    case 'input_required':
      return inputVerdict(ack.input);
    default:
      return { kind: 'accepted' };
  }
}

/**
 * What an attempt tells the instance's circuit: true (the link works), false (it failed), or undefined when only
 * the receipt can tell. An "accepted" answer proves nothing yet: counting it as a success would reset the streak
 * of a silent agent at every attempt, so its circuit could never open (the missing receipt counts instead).
 */
export function circuitOutcome(verdict: DeliveryVerdict): boolean | undefined {
  switch (verdict.kind) {
    case 'transient':
      return false;
    case 'accepted':
    case 'too_late':
      return undefined;
    case 'duplicate':
      return verdict.processed ? true : undefined;
    default:
      return true; // processed, agent_failed, refused, misrouted: the agent answered, whatever it thought of the message
  }
}
