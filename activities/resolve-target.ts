import type { AgentQueries, TargetLookup } from '../catalogue/agent-queries';
import type { Caller } from '../rules/api-key';
import type { MessageTarget } from '../messages/message';

export interface ResolveTargetRequest {
  tenant: string;
  target: MessageTarget;
  /** Instances that already failed this message: chosen only when no other instance is eligible. */
  avoid?: string[];
  /** The sender: a capability whose ACL does not admit it is `forbidden`. */
  caller?: Caller;
}

/** Reads the catalogue, before every attempt, for where the message goes now (the agent may have moved). */
export function createResolveTarget(deps: { queries: Pick<AgentQueries, 'findTarget'> }) {
  return async function resolveTarget(request: ResolveTargetRequest): Promise<TargetLookup> {
    return deps.queries.findTarget(
      request.tenant,
      request.target.agent_id,
      request.target.capability,
      request.avoid ?? [],
      request.caller,
    );
  };
}
