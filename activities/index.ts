/**
 * All activities, built from their dependencies. The worker passes the real ones; tests may pass others.
 */
import type { AgentQueries } from '../domain/catalogue/agent-queries';
import { createDeliver } from './deliver';
import { createNotifyCancel } from './notify-cancel';
import { createResolveTarget } from './resolve-target';

export interface ActivityDeps {
  queries: Pick<AgentQueries, 'findTarget' | 'signingSecrets'>;
  fetch: typeof fetch;
  now: () => number;
}

export function createActivities(deps: ActivityDeps) {
  return {
    resolveTarget: createResolveTarget(deps),
    deliver: createDeliver(deps),
    notifyCancel: createNotifyCancel(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
