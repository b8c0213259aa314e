import type { AgentStore, TargetLookup } from '../domain/agent-store';
import type { MessageTarget } from '../domain/message';

export interface ResolveTargetRequest {
  tenant: string;
  target: MessageTarget;
}

/** Reads the catalogue for where an explicitly targeted message goes now (the agent may have moved). */
export function createResolveTarget(deps: { agents: AgentStore }) {
  return async function resolveTarget(request: ResolveTargetRequest): Promise<TargetLookup> {
    return deps.agents.findTarget(request.tenant, request.target.agent_id, request.target.capability);
  };
}
