/**
 * What every catalogue change leaves behind: an event readable through the API, and a bumped change counter.
 *
 * FerretDB (unlike MongoDB) does not apply a conditional update atomically: two replicas that both read an
 * instance as online may both "win" the update that marks it offline. A transition event therefore carries a
 * deterministic id, and the unique `_id` index lets exactly one replica record it.
 */
import { randomUUID } from 'node:crypto';
import type { AgentEventDoc, CatalogueModels } from './models';

export const CATALOGUE_META_ID = 'catalogue';

export type ChangeEvent = Omit<AgentEventDoc, '_id'>;

/**
 * Records the event and increments the change counter that per-process indexes poll (no change streams needed).
 * With `transitionId`, a second record of the same transition is refused; returns whether this call recorded it.
 */
export async function recordChange(models: CatalogueModels, event: ChangeEvent, transitionId?: string): Promise<boolean> {
  try {
    await models.events.create({ _id: transitionId ?? `${event.type}:${event.agent_id}:${randomUUID()}`, ...event });
  } catch (error) {
    if (transitionId && (error as { code?: number }).code === 11000) return false;
    throw error;
  }
  await bumpVersion(models);
  return true;
}

/**
 * Increments the change counter. Concurrent first upserts can collide on the `_id` (E11000), so the counter is
 * created once at start-up ({@link ensureCounter}) and a collision here is retried as a plain update.
 */
export async function bumpVersion(models: CatalogueModels): Promise<void> {
  try {
    await models.meta.updateOne({ _id: CATALOGUE_META_ID }, { $inc: { version: 1 } }, { upsert: true });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    await models.meta.updateOne({ _id: CATALOGUE_META_ID }, { $inc: { version: 1 } });
  }
}

/** Creates the change counter if it does not exist yet. */
export async function ensureCounter(models: CatalogueModels): Promise<void> {
  try {
    await models.meta.create({ _id: CATALOGUE_META_ID, version: 0 });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
  }
}

export async function catalogueVersion(models: CatalogueModels): Promise<number> {
  const meta = await models.meta.findById(CATALOGUE_META_ID).lean();
  return meta?.version ?? 0;
}
