/** What the sweeper deletes: agent events past their retention and routing sessions past their TTL. */
import type { Connection } from 'mongoose';
import type { Pruner } from '../catalogue/sweeper';
import type { Config } from '../platform/config';
import { sessionModel } from '../store/routing-sessions';
import type { CatalogueModels } from '../store/models';
import { deleteOlderThan } from '../store/retention';

export function retentionPruners(
  config: Pick<Config, 'AGENT_EVENT_RETENTION_MS' | 'ROUTER_SESSION_TTL_MS'>,
  mongo: Connection,
  models: Pick<CatalogueModels, 'events'>,
  now: () => Date = () => new Date(),
): Pruner[] {
  const before = (ms: number) => new Date(now().getTime() - ms);
  return [
    {
      name: 'agent_events',
      prune: () => deleteOlderThan(models.events, 'at', before(config.AGENT_EVENT_RETENTION_MS)),
    },
    {
      name: 'routing_sessions',
      prune: () => deleteOlderThan(sessionModel(mongo), 'updated_at', before(config.ROUTER_SESSION_TTL_MS)),
    },
  ];
}
