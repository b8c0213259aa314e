/** What the router is asked, and the one way a caller's request (`POST /v1/route`, `POST /v1/messages`) becomes it. */
import type { PartialCaller } from '../rules/api-key';

export interface RouteRequest {
  tenant: string;
  caller: PartialCaller;
  intent?: string;
  /** A named agent (and maybe capability): skips matching when both are given, narrows it when only the agent is. */
  target?: { agent_id: string; capability?: string };
  /** Same session → same agent and instance while it stays eligible and matches about as well. */
  session_id?: string;
  /** Parameters the caller already gave; extraction fills only what is missing. */
  params?: Record<string, unknown>;
  /** Capabilities (`agent_id/capability`) not to choose: those the message's agents reported it misrouted to. */
  exclude?: readonly string[];
}

/** The fields of a caller's request body that the router reads. */
export type RouteAsk = Pick<RouteRequest, 'intent' | 'target' | 'session_id' | 'params'>;

/** The router's request for what `caller` asked, in the caller's tenant; fields the body left out stay out. */
export function routeRequest(caller: PartialCaller, body: RouteAsk): RouteRequest {
  return {
    tenant: caller.tenant,
    caller,
    ...(body.intent ? { intent: body.intent } : {}),
    ...(body.target ? { target: body.target } : {}),
    ...(body.session_id ? { session_id: body.session_id } : {}),
    ...(body.params ? { params: body.params } : {}),
  };
}
