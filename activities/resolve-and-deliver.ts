/**
 * One attempt of a lean run in one local activity: where the message goes now, and — when that is an HTTP
 * endpoint — the delivery itself (one workflow activation instead of two). A WebSocket target is returned without a
 * delivery: the replica holding the socket delivers it.
 */
import type { TargetLookup } from '../catalogue/agent-queries';
import type { MessageInput } from '../messages/message';
import { deliversOverSocket } from '../rules/transport';
import type { DeliverRequest, DeliverResult } from './deliver';
import type { ResolveTargetRequest } from './resolve-target';

export interface ResolveAndDeliverRequest extends ResolveTargetRequest {
  message: MessageInput;
  attempt: number;
}

export interface ResolveAndDeliverResult {
  lookup: TargetLookup;
  /** Present when the target was found and delivered to over HTTP. */
  delivery?: DeliverResult;
}

export function createResolveAndDeliver(deps: {
  resolveTarget: (request: ResolveTargetRequest) => Promise<TargetLookup>;
  deliver: (request: DeliverRequest) => Promise<DeliverResult>;
}) {
  return async function resolveAndDeliver(request: ResolveAndDeliverRequest): Promise<ResolveAndDeliverResult> {
    const { message, attempt, ...resolve } = request;
    const lookup = await deps.resolveTarget(resolve);
    if (lookup.kind !== 'found' || deliversOverSocket(lookup.target)) return { lookup };
    return { lookup, delivery: await deps.deliver({ message, target: lookup.target, attempt }) };
  };
}
