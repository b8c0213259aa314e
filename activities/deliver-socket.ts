/**
 * One delivery over an agent's WebSocket. Runs only in the api replica that holds the socket: each replica serves
 * this activity on a task queue of its own, recorded on the instance when the agent connects.
 */
import type { CircuitStore } from '../store/circuits';
import type { AgentError } from '../messages/message';
import type { DeliveryVerdict } from './classify-response';
import { deliveryEnvelope, pastDeadline, type DeliverRequest, type DeliverResult } from './deliver';

/** What an agent answers to a delivery frame. */
export interface AckFrame {
  status?: 'accepted' | 'processed' | 'failed' | 'duplicate' | 'refused';
  result?: unknown;
  error?: AgentError | string;
}

export interface SocketSender {
  /** Sends the envelope to the instance's socket and resolves with its ack, or with why it could not. */
  send(agentId: string, instanceId: string, envelope: object, timeoutMs: number): Promise<{ ack: AckFrame } | { failure: string }>;
}

export function verdictOfAck(ack: AckFrame): DeliveryVerdict {
  const error = typeof ack.error === 'string' ? { message: ack.error } : ack.error;
  switch (ack.status) {
    case 'processed':
      return { kind: 'processed', result: ack.result ?? null };
    case 'failed':
      return { kind: 'agent_failed', error: error ?? { message: 'the agent reported a failure' } };
    case 'duplicate':
      return ack.result === undefined ? { kind: 'duplicate', processed: false } : { kind: 'duplicate', processed: true, result: ack.result };
    case 'refused':
      return { kind: 'refused', error: error?.message ?? 'refused' };
    default:
      return { kind: 'accepted' };
  }
}

export function createSocketActivities(deps: { sockets: SocketSender; circuits: Pick<CircuitStore, 'record'>; now: () => number }) {
  return {
    async deliverOverSocket(request: DeliverRequest): Promise<DeliverResult> {
      const { message, target, attempt } = request;
      const started = deps.now();
      if (pastDeadline(message, started)) return { verdict: { kind: 'too_late' }, started_at: new Date(started).toISOString(), latency_ms: 0 };
      const sent = await deps.sockets.send(target.agent_id, target.instance_id, deliveryEnvelope(message, target, attempt), message.policy.attemptTimeoutMs);
      const verdict: DeliveryVerdict = 'ack' in sent ? verdictOfAck(sent.ack) : { kind: 'transient', error: sent.failure };
      await deps.circuits.record(target.agent_id, target.instance_id, verdict.kind !== 'transient').catch(() => undefined);
      return { verdict, started_at: new Date(started).toISOString(), latency_ms: deps.now() - started };
    },
  };
}

export type SocketActivities = ReturnType<typeof createSocketActivities>;
