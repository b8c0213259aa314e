/**
 * A message whose agent answered `misrouted`: the report counts towards a lesson of that capability
 * (store/misroutes.ts), and the router chooses again for the message's intent, leaving out every capability the
 * message was reported misrouted to. Runs on the api's routing queue (api/routing-worker.ts): the router and its
 * models live in the api.
 */
import { rejectionOf } from '../messages/choose-target';
import type { MessageRouting, MessageTarget, Reason } from '../messages/message';
import type { Router } from '../router/router';
import type { Caller } from '../rules/api-key';
import type { MisrouteStore } from '../store/misroutes';

export interface RerouteRequest {
  tenant: string;
  message_id: string;
  intent: string;
  /** Who sent it: the ACLs that admitted the first choice admit (or not) the next one. */
  caller?: Caller;
  /** The capability (`agent_id/capability`) that just answered `misrouted`. */
  misrouted: string;
  /** Every capability the message was reported misrouted to so far, `misrouted` included. */
  exclude: string[];
}

export type RerouteResult =
  | { kind: 'routed'; target: MessageTarget; params?: Record<string, unknown>; routing: MessageRouting }
  | { kind: 'refused'; reason: Reason; routing: MessageRouting };

export function createRerouteMessage(deps: {
  router: Pick<Router, 'route'>;
  misroutes: Pick<MisrouteStore, 'report'>;
  onReportError?: (error: Error) => void;
}) {
  return async function rerouteMessage(request: RerouteRequest): Promise<RerouteResult> {
    // The lesson is a side matter: a message is never held up by the store.
    await deps.misroutes
      .report(request.tenant, request.misrouted, request.intent, request.message_id)
      .catch((error: Error) => deps.onReportError?.(error));
    const decision = await deps.router.route({
      tenant: request.tenant,
      caller: request.caller ?? { tenant: request.tenant, key_id: '', scopes: [] },
      intent: request.intent,
      exclude: request.exclude,
    });
    const routing: MessageRouting = {
      decided_by: decision.explanation.decided_by,
      provider: decision.explanation.provider,
      explanation: decision.explanation,
    };
    if (decision.kind === 'routed')
      return {
        kind: 'routed',
        target: { agent_id: decision.target.agent_id, capability: decision.target.capability },
        params: decision.params,
        routing,
      };
    return { kind: 'refused', reason: rejectionOf(decision)!, routing };
  };
}

/** The activity as runs call it on the api's routing queue. */
export interface RerouteActivities {
  rerouteMessage: ReturnType<typeof createRerouteMessage>;
}
