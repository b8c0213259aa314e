/**
 * One delivery over an agent's WebSocket. Runs only in the api replica that holds the socket: each replica serves
 * this activity on a task queue of its own, recorded on the instance when the agent connects.
 */
import type { CircuitStore } from '../store/circuits';
import { deliveryEnvelope } from '../protocol/envelope';
import type { AckFrame } from '../protocol/frames';
import { circuitOutcome, verdictOfAck, withinResultSize, type DeliveryVerdict } from '../protocol/verdicts';
import { pastDeadline, type DeliverRequest, type DeliverResult } from './deliver';

export interface SocketSender {
  /** Sends the envelope to the instance's socket and resolves with its ack, or with why it could not. */
  send(
    agentId: string,
    instanceId: string,
    envelope: object,
    timeoutMs: number,
  ): Promise<{ ack: AckFrame } | { failure: string }>;
}

/** `maxResultBytes`: the most a result may take as JSON to be kept (MAX_PAYLOAD_BYTES; a frame is capped at 1 MiB already). */
export function createSocketActivities(deps: {
  sockets: SocketSender;
  circuits: Pick<CircuitStore, 'record'>;
  now: () => number;
  maxResultBytes: number;
}) {
  return {
    async deliverOverSocket(request: DeliverRequest): Promise<DeliverResult> {
      const { message, target, attempt } = request;
      const started = deps.now();
      if (pastDeadline(message, started))
        return { verdict: { kind: 'too_late' }, started_at: new Date(started).toISOString(), latency_ms: 0 };
      const sent = await deps.sockets.send(
        target.agent_id,
        target.instance_id,
        deliveryEnvelope(message, target, attempt),
        message.policy.attemptTimeoutMs,
      );
      const verdict: DeliveryVerdict =
        'ack' in sent
          ? withinResultSize(verdictOfAck(sent.ack), deps.maxResultBytes)
          : { kind: 'transient', error: sent.failure };
      const linkWorked = circuitOutcome(verdict);
      if (linkWorked !== undefined)
        await deps.circuits.record(target.agent_id, target.instance_id, linkWorked).catch(() => undefined);
      return { verdict, started_at: new Date(started).toISOString(), latency_ms: deps.now() - started };
    },
  };
}

export type SocketActivities = ReturnType<typeof createSocketActivities>;
