/**
 * How a delivered message ended, told to the instance's circuit and to the router's ranking (lean runs). The
 * circuit hears the receipt (the link works: the success an "accepted" answer did not count); the ranking hears
 * whether the capability *processed* the message, over HTTP or WebSocket alike.
 */
import type { CircuitStore } from '../store/circuits';
import type { RoutingStats } from '../store/routing-stats';

export interface Settlement {
  agent_id: string;
  capability: string;
  instance_id: string;
  /** A receipt (processed or failed) came from the agent. */
  receipt_came: boolean;
  processed: boolean;
  /** From the first delivery attempt to the end. */
  latency_ms: number;
}

export function createSettleMessage(deps: {
  circuits: Pick<CircuitStore, 'record'>;
  stats?: Pick<RoutingStats, 'record'>;
}) {
  return async function settleMessage(settlement: Settlement): Promise<void> {
    // Both advisory: failing to record must not fail the message.
    await Promise.all([
      settlement.receipt_came
        ? deps.circuits.record(settlement.agent_id, settlement.instance_id, true).catch(() => undefined)
        : undefined,
      deps.stats
        ?.record(settlement.agent_id, settlement.capability, settlement.processed, settlement.latency_ms)
        .catch(() => undefined),
    ]);
  };
}
