/**
 * The agent catalogue in MongoDB. Portable to FerretDB 1.24: plain documents and unique indexes only.
 * JSON Schemas are stored as JSON text because MongoDB-wire servers restrict field names starting with `$`
 * (`$schema`, `$ref`, `$defs` are common in schemas).
 */
import { Schema, type Connection, type Model } from 'mongoose';

export const INSTANCE_STATES = ['healthy', 'busy', 'draining'] as const;
export type InstanceState = (typeof INSTANCE_STATES)[number];

export interface CapabilityDoc {
  name: string;
  description: string;
  tags: string[];
  parameters_json?: string;
  returns_json?: string;
  examples: string[];
  ack_timeout_ms?: number;
}

export interface InstanceDoc {
  instance_id: string;
  transport: 'http' | 'websocket';
  endpoint?: string;
  state: InstanceState;
  last_heartbeat_at?: Date;
}

export interface AgentDoc {
  _id: string;
  tenant: string;
  name: string;
  version: string;
  description: string;
  tags: string[];
  capabilities: CapabilityDoc[];
  instances: InstanceDoc[];
  secret_hash: string;
  created_at: Date;
  updated_at: Date;
}

const capabilitySchema = new Schema<CapabilityDoc>(
  {
    name: { type: String, required: true },
    description: { type: String, default: '' },
    tags: { type: [String], default: [] },
    parameters_json: String,
    returns_json: String,
    examples: { type: [String], default: [] },
    ack_timeout_ms: Number,
  },
  { _id: false },
);

const instanceSchema = new Schema<InstanceDoc>(
  {
    instance_id: { type: String, required: true },
    transport: { type: String, enum: ['http', 'websocket'], required: true },
    endpoint: String,
    state: { type: String, enum: INSTANCE_STATES, required: true },
    last_heartbeat_at: Date,
  },
  { _id: false },
);

const agentSchema = new Schema<AgentDoc>(
  {
    _id: { type: String, required: true },
    tenant: { type: String, required: true },
    name: { type: String, required: true },
    version: { type: String, default: '1' },
    description: { type: String, default: '' },
    tags: { type: [String], default: [] },
    capabilities: { type: [capabilitySchema], default: [] },
    instances: { type: [instanceSchema], default: [] },
    secret_hash: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'agents' },
);
agentSchema.index({ tenant: 1, name: 1 }, { unique: true });
agentSchema.index({ secret_hash: 1 }, { unique: true });

export type AgentModel = Model<AgentDoc>;

export function agentModel(connection: Connection): AgentModel {
  return (connection.models.Agent as AgentModel | undefined) ?? connection.model<AgentDoc>('Agent', agentSchema);
}
