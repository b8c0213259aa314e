/**
 * Who is told when one of their lists changes: 2025-11-25 sessions (on their GET stream, sessions.ts) and 2026-07-28
 * `subscriptions/listen` streams (listen-bus.ts). A list follows the catalogue where it is made of it: the resources
 * (the tenant's agents), the tools of a capability-tool server, and the tools, prompts and resources of an agent face.
 *
 * While anyone follows, every CATALOGUE_REFRESH_MS the catalogue's change counter is read; when it moved, the lists
 * are rebuilt only for the tenants whose agents changed (their ids and revisions), once per key and view (not per
 * follower), yielding to the event loop between them, and each follower whose list differs from the one it was last
 * shown is told which list changed.
 */
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import { groupBy } from '../../catalogue/group-by';
import { callerIdOf } from '../../rules/api-key';
import { sha256Hex } from '../../rules/ids';
import { listFaceResources, listFaceTemplates, listPrompts } from './agent-face-requests';
import type { McpDeps } from './context';
import { listResources } from './resources';
import { listedTools, type SessionOptions } from './server';

export type ListKind = 'tools' | 'prompts' | 'resources';

/** Of each followed list, as last shown or checked. */
export type ListFingerprints = Partial<Record<ListKind, string>>;

export interface ListFollower {
  options: SessionOptions;
  fingerprints: ListFingerprints;
  /** Tells the follower that `kind` changed. */
  changed(kind: ListKind): Promise<void> | void;
}

/** The lists of a server that follow the catalogue. */
export function followedLists(options: SessionOptions): ListKind[] {
  if (options.agent !== undefined) return ['tools', 'prompts', 'resources'];
  return options.capabilityTools ? ['tools', 'resources'] : ['resources'];
}

const LISTS: Record<ListKind, (deps: McpDeps, options: SessionOptions) => Promise<unknown>> = {
  tools: listedTools,
  prompts: (deps, options) => listPrompts(deps, options, options.agent!),
  resources: async (deps, options) =>
    options.agent === undefined
      ? listResources(deps, options.caller)
      : [await listFaceResources(deps, options, options.agent), await listFaceTemplates(deps, options, options.agent)],
};

/** The followed lists of `options`, as the catalogue is now. */
export async function listFingerprints(deps: McpDeps, options: SessionOptions): Promise<ListFingerprints> {
  const fingerprints: ListFingerprints = {};
  for (const kind of followedLists(options))
    fingerprints[kind] = sha256Hex(JSON.stringify(await LISTS[kind](deps, options)));
  return fingerprints;
}

/** What a tenant's lists are made of: its agents and their revisions (a card change is a new revision). */
function agentsRevision(agents: readonly AgentWithInstances[]): string {
  return agents.map(({ agent }) => `${agent._id}:${agent.revision}`).join(',');
}

/** Followers that see the same lists: one key, one view. */
function viewOf({ options }: ListFollower): string {
  return JSON.stringify([callerIdOf(options.caller), options.agent ?? null, options.capabilityTools]);
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ListWatch {
  private readonly followers = new Set<ListFollower>();
  private timer?: NodeJS.Timeout;
  private seenVersion = -1;
  /** Per tenant with followers: its agents' revisions when its lists were last checked. */
  private seenRevisions = new Map<string, string>();
  private checking = false;

  constructor(private readonly deps: McpDeps) {}

  /** Follows the catalogue for `follower` until the returned function is called. */
  follow(follower: ListFollower): () => void {
    this.followers.add(follower);
    if (!this.timer) {
      this.timer = setInterval(() => void this.check(), this.deps.config.CATALOGUE_REFRESH_MS);
      this.timer.unref();
    }
    return () => {
      this.followers.delete(follower);
      if (this.followers.size === 0) this.stop();
    };
  }

  /** Followers now. */
  get size(): number {
    return this.followers.size;
  }

  /** Tells each follower whose lists the last catalogue change altered. */
  async check(): Promise<void> {
    if (this.followers.size === 0 || this.checking) return;
    this.checking = true;
    try {
      const { index } = this.deps.catalogue;
      await index.ensureCurrent(this.deps.logger);
      if (index.version === this.seenVersion) return;
      this.seenVersion = index.version;
      const seen = new Map<string, string>();
      for (const [tenant, followers] of groupBy([...this.followers], (f) => f.options.caller.tenant)) {
        const revision = agentsRevision(index.agents(tenant));
        seen.set(tenant, revision);
        if (this.seenRevisions.get(tenant) !== revision) await this.recheck(followers);
      }
      this.seenRevisions = seen; // only tenants that still have followers
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'MCP catalogue watch failed');
    } finally {
      this.checking = false;
    }
  }

  /** Rebuilds the lists once per view of `followers` (one tenant's) and tells those whose lists changed. */
  private async recheck(followers: ListFollower[]): Promise<void> {
    for (const ofView of groupBy(followers, viewOf).values()) {
      await yieldToEventLoop();
      const now = await listFingerprints(this.deps, ofView[0]!.options);
      for (const follower of ofView) await this.tell(follower, now);
    }
  }

  private async tell(follower: ListFollower, now: ListFingerprints): Promise<void> {
    for (const kind of followedLists(follower.options)) {
      if (now[kind] === follower.fingerprints[kind]) continue;
      follower.fingerprints[kind] = now[kind];
      try {
        await follower.changed(kind);
      } catch (error) {
        this.deps.logger.debug({ err: error, kind }, 'MCP list_changed not sent');
      }
    }
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops watching (the replica is stopping); followers are closed by their owners. */
  close(): void {
    this.stop();
    this.followers.clear();
  }
}
