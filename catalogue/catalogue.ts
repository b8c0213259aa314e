/** The catalogue's parts, built together from the models and config. */
import { CircuitStore } from '../store/circuits';
import { circuitPolicy, heartbeatPolicy, type Config } from '../platform/config';
import { AgentQueries } from './agent-queries';
import { AgentStore } from './agent-store';
import { CatalogueIndex } from './catalogue-index';
import { Heartbeats } from './heartbeats';
import type { HeartbeatPolicy } from '../rules/liveness';
import type { CatalogueModels } from '../store/models';

export interface Catalogue {
  models: CatalogueModels;
  store: AgentStore;
  queries: AgentQueries;
  heartbeats: Heartbeats;
  /** This process's in-memory copy, for search and routing. */
  index: CatalogueIndex;
  circuits: CircuitStore;
  policy: HeartbeatPolicy;
  now: () => Date;
}

export function createCatalogue(
  models: CatalogueModels,
  config: Config,
  now: () => Date = () => new Date(),
): Catalogue {
  const policy = heartbeatPolicy(config);
  const circuits = new CircuitStore(models.circuits, circuitPolicy(config), now);
  const index = new CatalogueIndex(models, {
    refreshMs: config.CATALOGUE_REFRESH_MS,
    maxStalenessMs: config.CATALOGUE_MAX_STALENESS_MS,
  });
  return {
    models,
    circuits,
    store: new AgentStore(models, {
      secretOverlapMs: config.SECRET_ROTATION_OVERLAP_MS,
      authCacheMs: config.AGENT_AUTH_CACHE_MS,
      now,
      onChange: (id) => index.changedHere(id),
    }),
    queries: new AgentQueries(models, policy, now, circuits, index),
    heartbeats: new Heartbeats(models, policy, {
      writeEveryMs: config.HEARTBEAT_WRITE_EVERY_MS,
      maxInstances: config.MAX_INSTANCES_PER_AGENT,
      now,
      onChange: (id) => index.changedHere(id),
    }),
    index,
    policy,
    now,
  };
}
