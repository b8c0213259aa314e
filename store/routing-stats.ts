/**
 * The `routing_stats` collection: how each capability has fared, for the router's ranking (router/ranking.ts): successes, failures and an EWMA of latency, recorded by the worker
 * when each message ends (success means processed; see activities/settle-message.ts). Samples are gathered in
 * memory and written every few seconds, one read-modify-write per capability (FerretDB has no update pipelines), so deliveries do not wait for it and the
 * database sees one write per capability per flush, not two operations per attempt. Two workers flushing the same
 * capability at the same instant may lose one batch, which a running statistic absorbs; a worker killed between
 * flushes loses its unflushed samples.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { startFlushLoop } from '../platform/flush-loop';
import { model } from './model-once';

/** How a capability has fared. */
export interface CapabilityStats {
  successes: number;
  failures: number;
  /** Exponentially weighted mean delivery latency, in ms; absent before the first delivery. */
  latency_ewma_ms?: number;
}

export interface RoutingStatsDoc extends CapabilityStats {
  /** `agent_id/capability` */
  _id: string;
  updated_at: Date;
}

const statsSchema = new Schema<RoutingStatsDoc>(
  {
    _id: { type: String, required: true },
    successes: { type: Number, required: true },
    failures: { type: Number, required: true },
    latency_ewma_ms: Number,
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'routing_stats' },
);

export function routingStatsModel(connection: Connection): Model<RoutingStatsDoc> {
  return model(connection, 'RoutingStats', statsSchema);
}

/** Weight of the newest latency sample in the EWMA. */
export const LATENCY_ALPHA = 0.2;

export function nextStats(current: CapabilityStats | undefined, ok: boolean, latencyMs: number): CapabilityStats {
  const previous = current?.latency_ewma_ms;
  return {
    successes: (current?.successes ?? 0) + (ok ? 1 : 0),
    failures: (current?.failures ?? 0) + (ok ? 0 : 1),
    latency_ewma_ms: previous === undefined ? latencyMs : previous + LATENCY_ALPHA * (latencyMs - previous),
  };
}

interface Sample {
  ok: boolean;
  latencyMs: number;
}

export class RoutingStats {
  private cached: { at: number; stats: Map<string, CapabilityStats> } | undefined;
  private pending = new Map<string, Sample[]>();

  constructor(
    private readonly model: Model<RoutingStatsDoc>,
    /** How long a read snapshot is reused by the router. */
    private readonly cacheMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps one attempt's outcome until the next flush. */
  async record(agentId: string, capability: string, ok: boolean, latencyMs: number): Promise<void> {
    const key = `${agentId}/${capability}`;
    const samples = this.pending.get(key) ?? [];
    samples.push({ ok, latencyMs });
    this.pending.set(key, samples);
  }

  /** Writes what was recorded since the last flush. */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    for (const [_id, samples] of batch) {
      const current = await this.model.findById(_id).lean<RoutingStatsDoc>();
      const next = samples.reduce<CapabilityStats | undefined>(
        (stats, s) => nextStats(stats, s.ok, s.latencyMs),
        current ?? undefined,
      )!;
      await this.model.replaceOne({ _id }, { _id, ...next, updated_at: new Date(this.now()) }, { upsert: true });
    }
  }

  /** Flushes every `everyMs` until the returned function is called (which flushes once more). */
  start(everyMs: number, onError: (error: unknown) => void): () => Promise<void> {
    return startFlushLoop(() => this.flush(), everyMs, onError);
  }

  async snapshot(): Promise<Map<string, CapabilityStats>> {
    if (this.cached && this.now() - this.cached.at < this.cacheMs) return this.cached.stats;
    const docs = await this.model.find({}).lean<RoutingStatsDoc[]>();
    const stats = new Map(
      docs.map(({ _id, successes, failures, latency_ewma_ms }) => [
        _id,
        { successes, failures, ...(latency_ewma_ms === undefined ? {} : { latency_ewma_ms }) },
      ]),
    );
    this.cached = { at: this.now(), stats };
    return stats;
  }
}
