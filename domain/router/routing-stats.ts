/**
 * How each capability has fared, for ranking: successes, failures and an EWMA of delivery latency, recorded by
 * the delivery activity after each attempt. Read-modify-write by `_id` (FerretDB has no update pipelines): two
 * workers recording at the same instant may lose one sample, which a running statistic absorbs.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { CapabilityStats } from './ranking';

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
  return (connection.models.RoutingStats as Model<RoutingStatsDoc> | undefined) ?? connection.model<RoutingStatsDoc>('RoutingStats', statsSchema);
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

export class RoutingStats {
  private cached: { at: number; stats: Map<string, CapabilityStats> } | undefined;

  constructor(
    private readonly model: Model<RoutingStatsDoc>,
    /** How long a read snapshot is reused by the router. */
    private readonly cacheMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {}

  async record(agentId: string, capability: string, ok: boolean, latencyMs: number): Promise<void> {
    const _id = `${agentId}/${capability}`;
    const current = await this.model.findById(_id).lean<RoutingStatsDoc>();
    await this.model.replaceOne({ _id }, { _id, ...nextStats(current ?? undefined, ok, latencyMs), updated_at: new Date(this.now()) }, { upsert: true });
  }

  async snapshot(): Promise<Map<string, CapabilityStats>> {
    if (this.cached && this.now() - this.cached.at < this.cacheMs) return this.cached.stats;
    const docs = await this.model.find({}).lean<RoutingStatsDoc[]>();
    const stats = new Map(docs.map(({ _id, successes, failures, latency_ewma_ms }) => [_id, { successes, failures, ...(latency_ewma_ms === undefined ? {} : { latency_ewma_ms }) }]));
    this.cached = { at: this.now(), stats };
    return stats;
  }
}
