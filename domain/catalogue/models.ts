/**
 * The catalogue in MongoDB: agents (cards), their instances, transition events, and a change counter.
 * Portable to FerretDB 1.24: plain documents, unique indexes, atomic single-document updates only.
 * JSON Schemas are stored as JSON text because MongoDB-wire servers restrict field names starting with `$`
 * (`$schema`, `$ref`, `$defs` are common in schemas).
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { CapabilityAcl } from '../acl';
import { circuitModel, type CircuitModel } from '../circuit-store';
import { ensureCounter } from './changes';

export const INSTANCE_STATES = ['healthy', 'busy', 'draining'] as const;
export type InstanceState = (typeof INSTANCE_STATES)[number];
export const TRANSPORTS = ['http', 'websocket'] as const;
export type Transport = (typeof TRANSPORTS)[number];
export type Liveness = 'online' | 'offline';

export interface CapabilityDoc {
  name: string;
  description: string;
  tags: string[];
  parameters_json?: string;
  returns_json?: string;
  examples: string[];
  /** Requests this capability does not handle although they sound like it (the router's "none" class learns them). */
  counter_examples?: string[];
  ack_timeout_ms?: number;
  /** Retry policy of this capability, overriding the gateway's defaults. */
  max_attempts?: number;
  max_delivery_ms?: number;
  max_concurrency?: number;
  /** Who may reach it (domain/acl.ts); absent → every caller of the tenant. */
  acl?: CapabilityAcl;
}

export interface AgentDoc {
  _id: string;
  tenant: string;
  name: string;
  /** The agent's own version label. */
  version: string;
  /** Incremented by every update of the card. */
  revision: number;
  description: string;
  tags: string[];
  capabilities: CapabilityDoc[];
  /** Lowercase text of name, description, tags and capabilities, for free-text search without `$text`. */
  search_text: string;
  /** Denormalised for filtering: capability names and all tags (agent's and capabilities'). */
  capability_names: string[];
  all_tags: string[];
  secret_hash: string;
  /** After a rotation the previous secret keeps working until `previous_secret_expires_at`. */
  previous_secret_hash?: string;
  previous_secret_expires_at?: Date;
  /** Signs deliveries (Standard Webhooks); kept in clear because the gateway must sign with it. */
  signing_secret?: string;
  /** The signing secret before the last rotation, also used until `previous_secret_expires_at`. */
  previous_signing_secret?: string;
  /** Where the card came from when imported (A2A). */
  source?: { kind: 'a2a'; version: string; url?: string };
  created_at: Date;
  updated_at: Date;
}

export interface InstanceLoad {
  in_flight: number;
  qps: number;
}

export interface InstanceDoc {
  /** `${agent_id}/${instance_id}` */
  _id: string;
  agent_id: string;
  tenant: string;
  instance_id: string;
  transport: Transport;
  endpoint?: string;
  /** WebSocket instances: the task queue of the api replica holding the socket. */
  ws_task_queue?: string;
  state: InstanceState;
  load: InstanceLoad;
  last_heartbeat_at: Date;
  /** Marked by heartbeats (online) and the sweeper (offline); routing also derives it from the heartbeat age. */
  liveness: Liveness;
  liveness_changed_at: Date;
  created_at: Date;
}

export const AGENT_EVENT_TYPES = [
  'registered',
  'reregistered',
  'updated',
  'deregistered',
  'secret_rotated',
  'instance_added',
  'instance_moved',
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

export interface CatalogueMetaDoc {
  _id: string;
  version: number;
}

const capabilitySchema = new Schema<CapabilityDoc>(
  {
    name: { type: String, required: true },
    description: { type: String, default: '' },
    tags: { type: [String], default: [] },
    parameters_json: String,
    returns_json: String,
    examples: { type: [String], default: [] },
    counter_examples: { type: [String], default: undefined },
    ack_timeout_ms: Number,
    max_attempts: Number,
    max_delivery_ms: Number,
    max_concurrency: Number,
    acl: { type: Schema.Types.Mixed },
  },
  { _id: false },
);

const agentSchema = new Schema<AgentDoc>(
  {
    _id: { type: String, required: true },
    tenant: { type: String, required: true },
    name: { type: String, required: true },
    version: { type: String, default: '1' },
    revision: { type: Number, default: 1 },
    description: { type: String, default: '' },
    tags: { type: [String], default: [] },
    capabilities: { type: [capabilitySchema], default: [] },
    search_text: { type: String, default: '' },
    capability_names: { type: [String], default: [] },
    all_tags: { type: [String], default: [] },
    secret_hash: { type: String, required: true },
    previous_secret_hash: String,
    previous_secret_expires_at: Date,
    signing_secret: String,
    previous_signing_secret: String,
    source: { type: Schema.Types.Mixed },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'agents' },
);
agentSchema.index({ tenant: 1, name: 1 }, { unique: true });
agentSchema.index({ secret_hash: 1 }, { unique: true });
agentSchema.index({ previous_secret_hash: 1 });

const instanceSchema = new Schema<InstanceDoc>(
  {
    _id: { type: String, required: true },
    agent_id: { type: String, required: true },
    tenant: { type: String, required: true },
    instance_id: { type: String, required: true },
    transport: { type: String, enum: TRANSPORTS, required: true },
    endpoint: String,
    ws_task_queue: String,
    state: { type: String, enum: INSTANCE_STATES, required: true },
    load: {
      in_flight: { type: Number, default: 0 },
      qps: { type: Number, default: 0 },
    },
    last_heartbeat_at: { type: Date, required: true },
    liveness: { type: String, enum: ['online', 'offline'], required: true },
    liveness_changed_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'agent_instances' },
);
instanceSchema.index({ agent_id: 1 });
instanceSchema.index({ liveness: 1, last_heartbeat_at: 1 });

const eventSchema = new Schema<AgentEventDoc>(
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

const metaSchema = new Schema<CatalogueMetaDoc>(
  { _id: { type: String, required: true }, version: { type: Number, required: true } },
  { versionKey: false, collection: 'catalogue_meta' },
);

export interface CatalogueModels {
  agents: Model<AgentDoc>;
  instances: Model<InstanceDoc>;
  events: Model<AgentEventDoc>;
  meta: Model<CatalogueMetaDoc>;
  /** Circuit breaker state per instance (domain/circuit-store.ts). */
  circuits: CircuitModel;
}

function model<T>(connection: Connection, name: string, schema: Schema<T>): Model<T> {
  return (connection.models[name] as Model<T> | undefined) ?? connection.model<T>(name, schema);
}

export function catalogueModels(connection: Connection): CatalogueModels {
  return {
    agents: model(connection, 'Agent', agentSchema),
    instances: model(connection, 'AgentInstance', instanceSchema),
    events: model(connection, 'AgentEvent', eventSchema),
    meta: model(connection, 'CatalogueMeta', metaSchema),
    circuits: circuitModel(connection),
  };
}

/** Creates the indexes and the change counter (idempotent); call once at process start. */
export async function initCatalogueModels(models: CatalogueModels): Promise<void> {
  await Promise.all(Object.values(models).map((m: Model<any>) => m.init()));
  await ensureCounter(models);
}
