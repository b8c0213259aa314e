/**
 * Where a message goes: the capability the caller named (checked against the catalogue and its ACL), or the router's
 * choice for an intent. Shared by the api's intake and by `prepareMessage` (direct `sendMessage` starts), so a
 * message is routed the same way whichever door it came in by. A router's refusal is a rejection to record.
 */
import type { AgentQueries, ReachCheck } from '../catalogue/agent-queries';
import { routeRequest } from '../router/route-request';
import type { RouteDecision, Router } from '../router/router';
import type { Caller } from '../rules/api-key';
import type { MessageRouting, Reason } from './message';
import type { ChosenTarget, SendRequest } from './message-input';

/** Why no target could be chosen (nothing is recorded): as the api's 404s and 403. */
export type TargetRefusal = Exclude<ReachCheck, { kind: 'ok' }>;

export interface ChooseTargetDeps {
  queries: Pick<AgentQueries, 'checkReach'>;
  /** Chooses a target for messages sent with an intent and no capability. */
  router?: Pick<Router, 'route'>;
}

export async function chooseTarget(
  deps: ChooseTargetDeps,
  caller: Caller,
  body: SendRequest,
): Promise<ChosenTarget | TargetRefusal> {
  const tenant = caller.tenant;
  if (body.target?.capability) {
    // An agent with no instance available right now is fine: the workflow retries until one comes back.
    const check = await deps.queries.checkReach(tenant, body.target.agent_id, body.target.capability, caller);
    if (check.kind !== 'ok') return check;
    return {
      target: { agent_id: body.target.agent_id, capability: body.target.capability },
      ...(body.params ? { params: body.params } : {}),
    };
  }
  if (!deps.router) throw new Error('no router configured for messages without a capability');
  const decision = await deps.router.route(routeRequest(caller, body));
  if (decision.kind === 'refused' && decision.code === 'unknown_agent') return { kind: 'unknown_agent' };
  const routing: MessageRouting = {
    decided_by: decision.explanation.decided_by,
    provider: decision.explanation.provider,
    explanation: decision.explanation,
  };
  const rejection = rejectionOf(decision);
  if (decision.kind === 'refused')
    return { target: { agent_id: body.target?.agent_id ?? '', capability: '' }, routing, rejection: rejection! };
  const target = { agent_id: decision.target.agent_id, capability: decision.target.capability };
  return { target, params: decision.params, routing, ...(rejection ? { rejection } : {}) };
}

/** Whether a choice is a refusal (nothing to record) rather than a target (possibly a rejection to record). */
export function isRefusal(chosen: ChosenTarget | TargetRefusal): chosen is TargetRefusal {
  return 'kind' in chosen;
}

export function rejectionOf(decision: RouteDecision): Reason | undefined {
  switch (decision.kind) {
    case 'routed':
      return undefined;
    case 'input_required':
      return {
        code: 'input_required',
        message:
          decision.message ??
          `${decision.target.capability} needs ${decision.missing.join(', ')}, which the intent does not give`,
        missing: decision.missing,
      };
    case 'refused':
      if (decision.code === 'ambiguous')
        return {
          code: 'ambiguous',
          message: decision.message,
          ...(decision.choices ? { choices: decision.choices } : {}),
        };
      return {
        code: decision.code === 'no_eligible_capability' ? 'no_eligible_capability' : 'no_route',
        message: decision.message,
      };
  }
}
