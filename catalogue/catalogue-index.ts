/**
 * A per-process, in-memory copy of the catalogue for fast reads (the router's candidates). It polls the change
 * counter every `refreshMs` and reloads when it moved, or when the copy is older than `maxStalenessMs` (load
 * figures change without bumping the counter). FerretDB has no change streams, so polling it is.
 */
import type { Logger } from 'pino';
import { groupBy } from './group-by';
import type { AgentSearch, AgentWithInstances } from './agent-queries';
import { catalogueVersion } from '../store/catalogue-meta';
import { isOnline, type HeartbeatPolicy } from '../rules/liveness';
import type { AgentDoc } from '../store/agents';
import type { CatalogueModels } from '../store/models';
import type { InstanceDoc } from '../store/agent-instances';

export interface CatalogueIndexOptions {
  refreshMs: number;
  maxStalenessMs: number;
  now?: () => number;
}

interface Snapshot {
  version: number;
  loadedAt: number;
  byTenant: Map<string, AgentWithInstances[]>;
  byId: Map<string, AgentWithInstances>;
}

export class CatalogueIndex {
  private snapshot: Snapshot = { version: -1, loadedAt: 0, byTenant: new Map(), byId: new Map() };
  private readonly now: () => number;
  private inflight: Promise<boolean> | undefined;
  /**
   * Agents this process changed since the copy was loaded, with the change's sequence number: `agent()` does not
   * answer for them (their readers go to the database) until a reload that began after the change.
   */
  private readonly changed = new Map<string, number>();
  private changes = 0;

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

  /**
   * One agent with its instances as of the last refresh; undefined when absent from the copy (or of another
   * tenant), and before the first load. `tenant` undefined: any tenant (delivery signing knows only the agent id).
   */
  agent(agentId: string, tenant?: string): AgentWithInstances | undefined {
    if (this.changed.has(agentId)) return undefined;
    const entry = this.snapshot.byId.get(agentId);
    return entry && (tenant === undefined || entry.agent.tenant === tenant) ? entry : undefined;
  }

  /** This process changed the agent: read it from the database until the copy has the change (read your writes). */
  changedHere(agentId: string): void {
    this.changed.set(agentId, ++this.changes);
  }

  /** Every tenant's agents (metrics). */
  allAgents(): AgentWithInstances[] {
    return [...this.snapshot.byTenant.values()].flat();
  }

  /** Reloads when the catalogue changed or the copy is too old; returns whether it reloaded. Concurrent calls share one. */
  refresh(knownVersion?: number): Promise<boolean> {
    this.inflight ??= this.reloadIfNeeded(knownVersion).finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  /**
   * For requests: waits for a reload only when the catalogue changed (so a change made through any replica is seen);
   * a copy that is merely old is reloaded in the background.
   */
  async ensureCurrent(logger?: { warn: (o: object, m: string) => void }): Promise<void> {
    const version = await catalogueVersion(this.models.meta);
    if (version !== this.snapshot.version) {
      await this.refresh(version);
    } else if (this.now() - this.snapshot.loadedAt > this.options.maxStalenessMs) {
      this.refresh(version).catch((error: unknown) => logger?.warn({ err: error }, 'catalogue index refresh failed'));
    }
  }

  private async reloadIfNeeded(knownVersion?: number): Promise<boolean> {
    const changesBefore = this.changes;
    const version = knownVersion ?? (await catalogueVersion(this.models.meta));
    const stale = this.now() - this.snapshot.loadedAt > this.options.maxStalenessMs;
    if (version === this.snapshot.version && !stale) return false;
    const [agents, instances] = await Promise.all([
      this.models.agents.find({}, { secret_hash: 0, previous_secret_hash: 0 }).lean<AgentDoc[]>(),
      this.models.instances.find({}).lean<InstanceDoc[]>(),
    ]);
    const instancesByAgent = groupBy(instances, (i) => i.agent_id);
    agents.sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
    const entries = agents.map((agent) => ({ agent, instances: instancesByAgent.get(agent._id) ?? [] }));
    const byTenant = groupBy(entries, (e) => e.agent.tenant);
    const byId = new Map(entries.map((e) => [e.agent._id, e]));
    this.snapshot = { version, loadedAt: this.now(), byTenant, byId };
    for (const [agentId, change] of this.changed) if (change <= changesBefore) this.changed.delete(agentId);
    return true;
  }

  /** Search in memory, agents in id order; `online` is derived from the heartbeat ages in this copy. */
  search(
    tenant: string,
    search: AgentSearch,
    now: Date,
    policy: HeartbeatPolicy,
  ): { items: AgentWithInstances[]; next_cursor?: string } {
    const needle = search.q?.toLowerCase();
    const matches = (entry: AgentWithInstances): boolean => {
      const { agent, instances } = entry;
      if (search.cursor && agent._id <= search.cursor) return false;
      if (search.tag && !agent.all_tags.includes(search.tag)) return false;
      if (search.capability && !agent.capability_names.includes(search.capability)) return false;
      if (needle && !agent.search_text.includes(needle)) return false;
      if (search.state) {
        const online = instances.filter((i) => isOnline(i.last_heartbeat_at, now, policy));
        if (search.state === 'online' && online.length === 0) return false;
        if (search.state === 'offline' && online.length > 0) return false;
        if (!['online', 'offline'].includes(search.state) && !online.some((i) => i.state === search.state))
          return false;
      }
      return true;
    };
    const items: AgentWithInstances[] = [];
    let more = false;
    for (const entry of this.agents(tenant)) {
      if (!matches(entry)) continue;
      if (items.length === search.limit) {
        more = true;
        break;
      }
      items.push(entry);
    }
    return { items, ...(more ? { next_cursor: items.at(-1)!.agent._id } : {}) };
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
