/**
 * The `agents` collection: one card per agent, with its capabilities and secrets' hashes.
 * JSON Schemas are stored as JSON text because MongoDB-wire servers restrict field names starting with `$`
 * (`$schema`, `$ref`, `$defs` are common in schemas).
 */
import { Schema } from 'mongoose';
import type { CapabilityAcl } from '../rules/acl';

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
  /** Who may reach it (rules/acl.ts); absent → every caller of the tenant. */
  acl?: CapabilityAcl;
  /** Kept off the agent's public A2A card (docs/a2a.md). */
  private?: boolean;
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
  /**
   * Where the card came from when imported (A2A), and the card itself as received (JSON text, at most 64 KiB; text
   * because cards may hold `$`-keys), so that exporting it loses nothing (catalogue/a2a.ts).
   */
  source?: { kind: 'a2a'; version: string; url?: string; card_json?: string };
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
    counter_examples: { type: [String], default: undefined },
    ack_timeout_ms: Number,
    max_attempts: Number,
    max_delivery_ms: Number,
    max_concurrency: Number,
    acl: { type: Schema.Types.Mixed },
    private: { type: Boolean, default: undefined },
  },
  { _id: false },
);

export const agentSchema = new Schema<AgentDoc>(
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
