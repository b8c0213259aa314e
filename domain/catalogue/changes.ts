/** What every catalogue change leaves behind: an event readable through the API, and a bumped change counter. */
import type { AgentEventType, CatalogueModels } from './models';

export const CATALOGUE_META_ID = 'catalogue';

export interface ChangeEvent {
  tenant: string;
  agent_id: string;
  instance_id?: string;
  type: AgentEventType;
  at: Date;
  details?: Record<string, unknown>;
}

/** Records the event and increments the change counter that per-process indexes poll (no change streams needed). */
export async function recordChange(models: CatalogueModels, event: ChangeEvent): Promise<void> {
  await models.events.create(event);
  await bumpVersion(models);
}

export async function bumpVersion(models: CatalogueModels): Promise<void> {
  await models.meta.updateOne({ _id: CATALOGUE_META_ID }, { $inc: { version: 1 } }, { upsert: true });
}

export async function catalogueVersion(models: CatalogueModels): Promise<number> {
  const meta = await models.meta.findById(CATALOGUE_META_ID).lean();
  return meta?.version ?? 0;
}
