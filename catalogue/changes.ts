/**
 * What every catalogue change leaves behind: an event readable through the API, and a bumped change counter.
 *
 * FerretDB (unlike MongoDB) does not apply a conditional update atomically: two replicas that both read an
 * instance as online may both "win" the update that marks it offline. A transition event therefore carries a
 * deterministic id, and the unique `_id` index lets exactly one replica record it.
 */
import { randomUUID } from 'node:crypto';
import type { AgentEventDoc } from '../store/agent-events';
import { bumpVersion } from '../store/catalogue-meta';
import type { CatalogueModels } from '../store/models';

export type ChangeEvent = Omit<AgentEventDoc, '_id'>;

/**
 * Records the event and increments the change counter that per-process indexes poll (no change streams needed).
 * With `transitionId`, a second record of the same transition is refused; returns whether this call recorded it.
 */
export async function recordChange(
  models: CatalogueModels,
  event: ChangeEvent,
  transitionId?: string,
): Promise<boolean> {
  try {
    await models.events.create({ _id: transitionId ?? `${event.type}:${event.agent_id}:${randomUUID()}`, ...event });
  } catch (error) {
    if (transitionId && (error as { code?: number }).code === 11000) return false;
    throw error;
  }
  await bumpVersion(models.meta);
  return true;
}
