/**
 * Every mongoose model of Agent-Reach's catalogue, built on one connection: agents (cards), their instances,
 * transition events, the change counter and circuit state. Each collection's schema is in a file of its own.
 * Portable to FerretDB 1.24: plain documents, unique indexes, atomic single-document updates only.
 */
import type { Connection, Model } from 'mongoose';
import { agentSchema, type AgentDoc } from './agents';
import { eventSchema, type AgentEventDoc } from './agent-events';
import { instanceSchema, type InstanceDoc } from './agent-instances';
import { ensureCounter, metaSchema, type CatalogueMetaDoc } from './catalogue-meta';
import { circuitModel, type CircuitModel } from './circuits';
import { model } from './model-once';

export interface CatalogueModels {
  agents: Model<AgentDoc>;
  instances: Model<InstanceDoc>;
  events: Model<AgentEventDoc>;
  meta: Model<CatalogueMetaDoc>;
  /** Circuit breaker state per instance (store/circuits.ts). */
  circuits: CircuitModel;
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
  await ensureCounter(models.meta);
}
