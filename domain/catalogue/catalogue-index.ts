/**
 * A per-process, in-memory copy of the catalogue for fast reads (the router's candidates). It polls the change
 * counter every `refreshMs` and reloads when it moved, or when the copy is older than `maxStalenessMs` (load
 * figures change without bumping the counter). FerretDB has no change streams, so polling it is.
 */
import type { Logger } from 'pino';
import { groupBy } from '../group-by';
import type { AgentWithInstances } from './agent-queries';
import { catalogueVersion } from './changes';
import type { AgentDoc, CatalogueModels, InstanceDoc } from './models';

export interface CatalogueIndexOptions {
  refreshMs: number;
  maxStalenessMs: number;
  now?: () => number;
}

interface Snapshot {
  version: number;
  loadedAt: number;
  byTenant: Map<string, AgentWithInstances[]>;
}

export class CatalogueIndex {
  private snapshot: Snapshot = { version: -1, loadedAt: 0, byTenant: new Map() };
  private readonly now: () => number;

  constructor(
    private readonly models: CatalogueModels,
    private readonly options: CatalogueIndexOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  get version(): number {
    return this.snapshot.version;
  }

  /** The tenant's agents with their instances, as of the last refresh. */
  agents(tenant: string): readonly AgentWithInstances[] {
    return this.snapshot.byTenant.get(tenant) ?? [];
  }

  /** Reloads when the catalogue changed or the copy is too old; returns whether it reloaded. */
  async refresh(): Promise<boolean> {
    const version = await catalogueVersion(this.models);
    const stale = this.now() - this.snapshot.loadedAt > this.options.maxStalenessMs;
    if (version === this.snapshot.version && !stale) return false;
    const [agents, instances] = await Promise.all([
      this.models.agents.find({}, { secret_hash: 0, previous_secret_hash: 0, search_text: 0 }).lean<AgentDoc[]>(),
      this.models.instances.find({}).lean<InstanceDoc[]>(),
    ]);
    const instancesByAgent = groupBy(instances, (i) => i.agent_id);
    const entries = agents.map((agent) => ({ agent, instances: instancesByAgent.get(agent._id) ?? [] }));
    const byTenant = groupBy(entries, (e) => e.agent.tenant);
    this.snapshot = { version, loadedAt: this.now(), byTenant };
    return true;
  }

  /** Refreshes every `refreshMs` until the returned function is called. */
  start(logger: Logger): () => void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      this.refresh()
        .catch((error: unknown) => logger.warn({ err: error }, 'catalogue index refresh failed'))
        .finally(() => (busy = false));
    }, this.options.refreshMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
