/**
 * What the message workflow does after each thing that happens to a delivery attempt: finish, wait for the
 * receipt, back off and try again (elsewhere, once an instance has failed twice), redeliver at once, or give up.
 * Pure: the workflow (workflows/message.ts) makes the Temporal calls, this decides.
 */
import type { DeliveryVerdict } from '../protocol/verdicts';
import type { Reason, ReceiptInput } from '../messages/message';
import type { AgentError } from '../protocol/receipt';
import type { InputRequest } from '../protocol/turns';

/** What just happened to the current attempt. */
export type AttemptEvent =
  /** No instance of the agent could take the message now. */
  | { kind: 'unavailable'; error: string }
  /** The agent (or the transport) answered the delivery. */
  | { kind: 'answered'; verdict: DeliveryVerdict }
  /** The receipt came while the workflow awaited it after a delivery. */
  | { kind: 'receipt'; receipt: ReceiptInput }
  /** The receipt came while the workflow backed off before the next attempt. */
  | { kind: 'receipt_while_backing_off'; receipt: ReceiptInput }
  /** No receipt within the capability's ack timeout. */
  | { kind: 'receipt_missing'; ackTimeoutMs: number };

/** Where the message stands: attempts made in this run, its budget, and the last failure so far. */
export interface Progress {
  tries: number;
  maxAttempts: number;
  lastFailure: Reason;
}

export type NextStep =
  | { kind: 'finish'; state: 'processed' | 'failed'; reason?: Reason; result?: unknown; error?: AgentError }
  /** The agent took the message; its receipt (or the ack timeout) comes next. */
  | { kind: 'await_receipt' }
  /** Try again without waiting: nothing was sent, or a backoff was cut short by a retryable failure receipt. */
  | { kind: 'attempt_now'; error?: AgentError }
  /** Wait a backoff (at least `retryAfterMs`, when the agent asked), then try again. */
  | { kind: 'back_off'; failure: Reason; retryAfterMs?: number; blameInstance: boolean; error?: AgentError }
  /** A delivered message got no receipt: deliver it again at once, under the same message id. */
  | { kind: 'redeliver'; failure: Reason }
  /** The agent answered that the message is not for its capability: choose again (or end), never that one. */
  | { kind: 'reroute' }
  /** The agent asked the caller for input: wait for the reply, then deliver the next turn. */
  | { kind: 'await_input'; input: InputRequest }
  | { kind: 'give_up'; reason: Reason; error?: AgentError };

/** How many failures of one instance (transient errors or missing receipts) before the message moves elsewhere. */
export const INSTANCE_FAILURES_BEFORE_FAILOVER = 2;

/** Counts failures per instance; an instance that reached the limit is avoided by this message's next attempts. */
export class InstanceFailures {
  private readonly counts = new Map<string, number>();

  constructor(private readonly limit = INSTANCE_FAILURES_BEFORE_FAILOVER) {}

  add(instanceId: string): void {
    this.counts.set(instanceId, (this.counts.get(instanceId) ?? 0) + 1);
  }

  excluded(): string[] {
    return [...this.counts].filter(([, n]) => n >= this.limit).map(([id]) => id);
  }
}

export function nextStep(event: AttemptEvent, progress: Progress): NextStep {
  switch (event.kind) {
    case 'unavailable':
      return retryLater(progress, { code: 'no_available_instance', message: event.error }, false);
    case 'answered':
      return afterAnswer(event.verdict, progress);
    case 'receipt':
      if (event.receipt.status === 'misrouted') return { kind: 'reroute' };
      if (event.receipt.status === 'input_required') return awaitInput(event.receipt);
      return isRetryableFailure(event.receipt)
        ? retryLater(progress, agentFailed(event.receipt.error!), false, event.receipt.error)
        : finishWithReceipt(event.receipt);
    case 'receipt_while_backing_off':
      if (event.receipt.status === 'misrouted') return { kind: 'reroute' };
      if (event.receipt.status === 'input_required') return awaitInput(event.receipt);
      return isRetryableFailure(event.receipt)
        ? { kind: 'attempt_now', error: event.receipt.error! }
        : finishWithReceipt(event.receipt);
    case 'receipt_missing': {
      const failure: Reason = {
        code: 'ack_timeout',
        message: `no receipt within ${event.ackTimeoutMs} ms of delivery`,
      };
      return outOfAttempts(progress)
        ? { kind: 'give_up', reason: withAttempts(failure, progress.tries) }
        : { kind: 'redeliver', failure };
    }
  }
}

function afterAnswer(verdict: DeliveryVerdict, progress: Progress): NextStep {
  switch (verdict.kind) {
    case 'too_late':
      return { kind: 'attempt_now' }; // nothing was sent; the next turn expires the message
    case 'processed':
      return { kind: 'finish', state: 'processed', result: verdict.result };
    case 'duplicate':
      return verdict.processed
        ? { kind: 'finish', state: 'processed', result: verdict.result }
        : { kind: 'await_receipt' };
    case 'accepted':
      return { kind: 'await_receipt' };
    case 'misrouted':
      return { kind: 'reroute' };
    case 'input_required':
      return { kind: 'await_input', input: verdict.input };
    case 'agent_failed':
      // A retryable failure: the agent asks to be tried again later, same message id, after a backoff.
      return verdict.error.retryable
        ? retryLater(progress, agentFailed(verdict.error), false, verdict.error)
        : { kind: 'finish', state: 'failed', reason: agentFailed(verdict.error), error: verdict.error };
    case 'refused':
      // A business refusal (the agent's other instances would refuse too), or the gateway's refusal of the answer.
      return verdict.code
        ? { kind: 'finish', state: 'failed', reason: { code: verdict.code, message: verdict.error } }
        : {
            kind: 'finish',
            state: 'failed',
            reason: { code: 'agent_refused', message: `the agent refused the message: ${verdict.error}` },
          };
    case 'transient':
      return retryLater(
        progress,
        { code: 'delivery_exhausted', message: verdict.error },
        true,
        undefined,
        verdict.retryAfterMs,
      );
  }
}

/** An `input_required` receipt waits for the caller; one without its question (the api checks for it) is the agent's failure. */
function awaitInput(receipt: ReceiptInput): NextStep {
  if (receipt.input) return { kind: 'await_input', input: receipt.input };
  return {
    kind: 'finish',
    state: 'failed',
    reason: { code: 'agent_failed', message: 'the agent asked for input without saying what it needs' },
  };
}

function retryLater(
  progress: Progress,
  failure: Reason,
  blameInstance: boolean,
  error?: AgentError,
  retryAfterMs?: number,
): NextStep {
  if (outOfAttempts(progress))
    return { kind: 'give_up', reason: withAttempts(failure, progress.tries), ...(error ? { error } : {}) };
  return {
    kind: 'back_off',
    failure,
    blameInstance,
    ...(error ? { error } : {}),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

function outOfAttempts(progress: Progress): boolean {
  return progress.tries >= progress.maxAttempts;
}

function isRetryableFailure(receipt: ReceiptInput): boolean {
  return receipt.status === 'failed' && receipt.error?.retryable === true;
}

function agentFailed(error: AgentError): Reason {
  return { code: 'agent_failed', message: error.message };
}

function finishWithReceipt(receipt: ReceiptInput): NextStep {
  const recorded = {
    ...(receipt.result === undefined ? {} : { result: receipt.result }),
    ...(receipt.error ? { error: receipt.error } : {}),
  };
  return receipt.status === 'processed'
    ? { kind: 'finish', state: 'processed', ...recorded }
    : {
        kind: 'finish',
        state: 'failed',
        reason: { code: 'agent_failed', message: receipt.error?.message ?? 'the agent reported a failure' },
        ...recorded,
      };
}

/** Why no instance could take the message, one `instance: reason` per registered instance. */
export function unavailability(instances: { instance_id: string; reason: string }[]): string {
  return `no available instance (${instances.map((i) => `${i.instance_id}: ${i.reason}`).join(', ') || 'none registered'})`;
}

export function withAttempts(reason: Reason, attempts: number): Reason {
  return { code: reason.code, message: `no delivery succeeded in ${attempts} attempts; last error: ${reason.message}` };
}

/** Why the message failed when the capability's own time limit for delivery passed. */
export function outOfTime(lastFailure: Reason): Reason {
  return {
    code: lastFailure.code,
    message: `no delivery succeeded within the capability's time limit; last error: ${lastFailure.message}`,
  };
}

/** Why the message cannot go to its target: `rejected` before any attempt, `failed` after one (the catalogue changed). */
export function lookupRefusal(
  kind: 'unknown_agent' | 'unknown_capability' | 'forbidden',
  target: { agent_id: string; capability: string },
): Reason {
  const { agent_id, capability } = target;
  switch (kind) {
    case 'unknown_agent':
      return { code: 'agent_not_found', message: `no agent ${agent_id} in this tenant` };
    case 'unknown_capability':
      return { code: 'unknown_capability', message: `agent ${agent_id} has no capability ${capability}` };
    case 'forbidden':
      return {
        code: 'capability_forbidden',
        message: `the sender may not reach ${capability} of agent ${agent_id} (its access list changed)`,
      };
  }
}

/** A run whose input the gateway did not build (messages/seal.ts): nothing is delivered, nobody notified. */
export function unsealedRefusal(reason: string): Reason {
  return {
    code: 'invalid_access_token',
    message: `refused: this run's input was not built by the gateway (${reason}); send through the api or the sendMessage workflow`,
  };
}

/**
 * Whether no instance can take the message only because circuits are open. Such a try is not spent (lean runs):
 * a message's attempts go to deliveries, and an open circuit lets a probe through once its open time is over, which
 * is a delivery that counts. Without this, an agent restarting in seconds opens its circuit for CIRCUIT_OPEN_MS and
 * every message waiting for it runs out of tries before the probe.
 */
export function waitsOnCircuits(instances: readonly { reason: string }[]): boolean {
  return instances.length > 0 && instances.every((i) => i.reason === 'circuit_open');
}
