/**
 * A worker's circuits, kept in memory and merged into the shared records (store/circuits.ts) in batches, so a
 * delivery costs no database round trip. Each outcome applies at once to this process's copy of the instance's
 * circuit (its own streak of failures opens it here at once); every flush writes the outcomes gathered since the
 * last one into the shared record (read, apply in order, write) and reads which circuits are open anywhere, so
 * circuits opened by other workers or api replicas are honoured within one flush interval.
 * A crash loses the outcomes gathered since the last flush (at most one interval's worth): the circuit then opens
 * or closes that many outcomes later.
 */
import { instanceKey } from '../rules/ids';
import { closedCircuit, effectiveState, recordOutcome, type Circuit, type CircuitPolicy } from '../rules/circuit';
import { LruCache } from '../util/lru';
import type { CircuitStore } from './circuits';
import { startFlushLoop } from '../platform/flush-loop';

interface Outcome {
  ok: boolean;
  at: number;
}

interface Pending {
  agent_id: string;
  instance_id: string;
  outcomes: Outcome[];
}

export interface BatchedCircuitsOptions {
  /** Instances whose local circuit is kept; the least recently used beyond it are forgotten (the shared record stays). */
  capacity: number;
  /** Outcomes kept while the database is unreachable; the oldest instance's are dropped beyond it. */
  maxPending: number;
  now?: () => number;
}

export class BatchedCircuits {
  private readonly local: LruCache<string, Circuit>;
  private pending = new Map<string, Pending>();
  private pendingCount = 0;
  /** `agent_id/instance_id` of the circuits open in the shared records at the last flush. */
  private sharedOpen = new Map<string, Circuit>();
  private readonly now: () => number;

  constructor(
    private readonly shared: Pick<CircuitStore, 'apply' | 'openCircuits'>,
    private readonly policy: CircuitPolicy,
    private readonly options: BatchedCircuitsOptions,
  ) {
    this.local = new LruCache(options.capacity);
    this.now = options.now ?? Date.now;
  }

  /** Records one outcome: applied to this process's circuit now, to the shared record at the next flush. */
  async record(agentId: string, instanceId: string, ok: boolean): Promise<Circuit> {
    const key = instanceKey(agentId, instanceId);
    const at = this.now();
    const base = this.local.get(key) ?? this.sharedOpen.get(key) ?? closedCircuit(at);
    const next = recordOutcome(base, ok, at, this.policy);
    this.local.set(key, next);
    this.keep(key, agentId, instanceId, { ok, at });
    return next;
  }

  /** Instances of the agent whose circuit is open now, here or (as of the last flush) anywhere. */
  async openInstances(agentId: string): Promise<Set<string>> {
    const now = this.now();
    const open = new Set<string>();
    const prefix = `${agentId}/`;
    for (const [key, circuit] of this.sharedOpen) {
      if (key.startsWith(prefix) && !this.local.has(key) && effectiveState(circuit, now, this.policy) === 'open')
        open.add(key.slice(prefix.length));
    }
    for (const [key, circuit] of this.local.items()) {
      if (key.startsWith(prefix) && effectiveState(circuit, now, this.policy) === 'open')
        open.add(key.slice(prefix.length));
    }
    return open;
  }

  /** How many outcomes wait for the next flush. */
  get unflushed(): number {
    return this.pendingCount;
  }

  /** Merges the gathered outcomes into the shared records, then learns which circuits are open anywhere. */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.pendingCount = 0;
    const written = new Set<string>();
    try {
      for (const [key, entry] of batch) {
        this.local.set(key, await this.shared.apply(entry.agent_id, entry.instance_id, entry.outcomes));
        written.add(key);
      }
    } catch (error) {
      // What was not written is kept for the next flush (and bounded there).
      for (const [key, entry] of batch) {
        if (!written.has(key))
          for (const outcome of entry.outcomes) this.keep(key, entry.agent_id, entry.instance_id, outcome);
      }
      throw error;
    }
    const open = await this.shared.openCircuits();
    this.sharedOpen = open;
    // A circuit another process opened or closed wins over this process's older view of it.
    for (const key of [...this.local.keys()]) {
      if (!batch.has(key) && !this.pending.has(key)) this.local.delete(key);
    }
  }

  /** Flushes every `everyMs` until the returned function is called (which flushes once more). */
  start(everyMs: number, onError: (error: unknown) => void): () => Promise<void> {
    return startFlushLoop(() => this.flush(), everyMs, onError);
  }

  private keep(key: string, agentId: string, instanceId: string, outcome: Outcome): void {
    const entry = this.pending.get(key) ?? { agent_id: agentId, instance_id: instanceId, outcomes: [] };
    entry.outcomes.push(outcome);
    this.pending.set(key, entry);
    this.pendingCount++;
    if (this.pendingCount > this.options.maxPending) this.dropOldest();
  }

  private dropOldest(): void {
    const oldest = this.pending.keys().next().value as string | undefined;
    if (oldest === undefined) return;
    this.pendingCount -= this.pending.get(oldest)!.outcomes.length;
    this.pending.delete(oldest);
  }
}
