/** The `agent_events` collection: what happened to agents and instances (registered, offline, …), readable through the API. */
import { Schema } from 'mongoose';

export const AGENT_EVENT_TYPES = [
  'registered',
  'reregistered',
  'updated',
  'deregistered',
  'secret_rotated',
  'instance_added',
  'instance_moved',
  'instance_pruned',
  'online',
  'offline',
  'state_changed',
] as const;
export type AgentEventType = (typeof AGENT_EVENT_TYPES)[number];

export interface AgentEventDoc {
  /** Deterministic for liveness transitions (see changes.ts), random otherwise. */
  _id: string;
  tenant: string;
  agent_id: string;
  instance_id?: string;
  type: AgentEventType;
  at: Date;
  details?: Record<string, unknown>;
}

export const eventSchema = new Schema<AgentEventDoc>(
  {
    _id: { type: String, required: true },
    tenant: { type: String, required: true },
    agent_id: { type: String, required: true },
    instance_id: String,
    type: { type: String, enum: AGENT_EVENT_TYPES, required: true },
    at: { type: Date, required: true },
    details: { type: Schema.Types.Mixed },
  },
  { versionKey: false, collection: 'agent_events' },
);
eventSchema.index({ agent_id: 1, at: -1 });
eventSchema.index({ at: 1 }); // the sweeper's retention query
