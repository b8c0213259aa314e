/**
 * Circuit state per agent instance in MongoDB, shared by all workers and api replicas.
 * Updates are read-compute-write by `_id`. On MongoDB two workers recording at the same instant may lose one
 * outcome; on FerretDB even conditional updates are not atomic. A lost outcome only delays opening or closing by
 * one request, which the thresholds absorb.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { model } from './model-once';
import { instanceKey } from '../rules/ids';
import {
  closedCircuit,
  effectiveState,
  recordOutcome,
  type Circuit,
  type CircuitPolicy,
  type CircuitState,
} from '../rules/circuit';

export interface CircuitDoc extends Circuit {
  _id: string;
  agent_id: string;
  instance_id: string;
  updated_at: Date;
}

const circuitSchema = new Schema<CircuitDoc>(
  {
    _id: { type: String, required: true },
    agent_id: { type: String, required: true },
    instance_id: { type: String, required: true },
    state: { type: String, enum: ['closed', 'open', 'half_open'], required: true },
    consecutive_failures: { type: Number, required: true },
    window_started_at: { type: Number, required: true },
    window_total: { type: Number, required: true },
    window_failures: { type: Number, required: true },
    opened_at: Number,
    times_opened: { type: Number, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'circuits' },
);
circuitSchema.index({ agent_id: 1 });

export type CircuitModel = Model<CircuitDoc>;

export function circuitModel(connection: Connection): CircuitModel {
  return model(connection, 'Circuit', circuitSchema);
}

export class CircuitStore {
  private readonly now: () => Date;

  constructor(
    private readonly model: CircuitModel,
    private readonly policy: CircuitPolicy,
    now?: () => Date,
  ) {
    this.now = now ?? (() => new Date());
  }

  /** Records one outcome of a delivery to this instance; returns the circuit afterwards. */
  async record(agentId: string, instanceId: string, ok: boolean): Promise<Circuit> {
    const now = this.now();
    const _id = instanceKey(agentId, instanceId);
    const current = await this.model.findById(_id).lean<CircuitDoc>();
    const next = recordOutcome(current ?? closedCircuit(now.getTime()), ok, now.getTime(), this.policy);
    await this.model.replaceOne(
      { _id },
      { _id, agent_id: agentId, instance_id: instanceId, ...next, updated_at: now },
      { upsert: true },
    );
    return next;
  }

  /** Applies outcomes gathered elsewhere (store/batched-circuits.ts), in order, to the shared record. */
  async apply(agentId: string, instanceId: string, outcomes: readonly { ok: boolean; at: number }[]): Promise<Circuit> {
    const _id = instanceKey(agentId, instanceId);
    const current = await this.model.findById(_id).lean<CircuitDoc>();
    const start = current ?? closedCircuit(outcomes[0]?.at ?? this.now().getTime());
    const next = outcomes.reduce((circuit, o) => recordOutcome(circuit, o.ok, o.at, this.policy), start as Circuit);
    await this.model.replaceOne(
      { _id },
      { _id, agent_id: agentId, instance_id: instanceId, ...stripDoc(next), updated_at: this.now() },
      { upsert: true },
    );
    return stripDoc(next);
  }

  /** Every circuit recorded as open, by `agent_id/instance_id` (whether its open time is over is for the reader). */
  async openCircuits(): Promise<Map<string, Circuit>> {
    const circuits = await this.model.find({ state: 'open' }).lean<CircuitDoc[]>();
    return new Map(circuits.map((c) => [c._id, stripDoc(c)]));
  }

  /** The effective circuit state of each of the agent's instances that has one (others are closed). */
  async states(agentId: string): Promise<Map<string, CircuitState>> {
    const now = this.now().getTime();
    const circuits = await this.model.find({ agent_id: agentId }).lean<CircuitDoc[]>();
    return new Map(circuits.map((c) => [c.instance_id, effectiveState(c, now, this.policy)]));
  }

  /** Instances of the agent whose circuit is open now (half-open ones let probes through). */
  async openInstances(agentId: string): Promise<Set<string>> {
    const now = this.now().getTime();
    const circuits = await this.model.find({ agent_id: agentId, state: 'open' }).lean<CircuitDoc[]>();
    return new Set(circuits.filter((c) => effectiveState(c, now, this.policy) === 'open').map((c) => c.instance_id));
  }

  /** `agent_id/instance_id` of every instance whose circuit is open now, across agents: one read for the router. */
  async openInstanceKeys(): Promise<Set<string>> {
    const now = this.now().getTime();
    const circuits = await this.model.find({ state: 'open' }).lean<CircuitDoc[]>();
    return new Set(circuits.filter((c) => effectiveState(c, now, this.policy) === 'open').map((c) => c._id));
  }
}

/** The circuit fields of a stored record (or of a circuit computed from one). */
function stripDoc(
  circuit: Circuit & Partial<Pick<CircuitDoc, '_id' | 'agent_id' | 'instance_id' | 'updated_at'>>,
): Circuit {
  const { _id, agent_id, instance_id, updated_at, ...fields } = circuit;
  return fields;
}
