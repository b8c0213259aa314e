/**
 * One attempt of a lean run in one local activity: where the message goes now, and — when that is an HTTP
 * endpoint — the delivery itself (one workflow activation instead of two). A WebSocket target is returned without a
 * delivery: the replica holding the socket delivers it.
 *
 * First of all, the run's input must carry the gateway's seal (messages/seal.ts): a run of the internal workflow
 * type started by a namespace client with an input of its own making is answered `unsealed` and delivers nothing.
 */
import type { TargetLookup } from '../catalogue/agent-queries';
import type { MessageInput } from '../messages/message';
import { checkSeal, type SealKeys } from '../messages/seal';
import { deliversOverSocket } from '../rules/transport';
import type { DeliverRequest, DeliverResult } from './deliver';
import type { ResolveTargetRequest } from './resolve-target';

export interface ResolveAndDeliverRequest extends ResolveTargetRequest {
  message: MessageInput;
  attempt: number;
  /** The run delivering (from workflow info, which its starter cannot choose): the seal must be made for it. */
  run?: { workflow_id: string; started_at: string };
  /**
   * After an agent answered `misrouted`, the run delivers to the router's next choice (`target`) with the parameters
   * extracted for it; the sealed `message` is still the one checked.
   */
  params?: Record<string, unknown>;
  /**
   * A follow-up turn of a message that asked for input (protocol/turns.ts): its turn, the conversation so far and
   * the params with the replies' merged in, laid over the sealed `message` (still the one checked).
   */
  follow_up?: Pick<MessageInput, 'turn' | 'history' | 'params'>;
}

export interface ResolveAndDeliverResult {
  lookup: TargetLookup | { kind: 'unsealed'; reason: string };
  /** Present when the target was found and delivered to over HTTP. */
  delivery?: DeliverResult;
}

export function createResolveAndDeliver(deps: {
  resolveTarget: (request: ResolveTargetRequest) => Promise<TargetLookup>;
  deliver: (request: DeliverRequest) => Promise<DeliverResult>;
  sealKeys: SealKeys;
}) {
  return async function resolveAndDeliver(request: ResolveAndDeliverRequest): Promise<ResolveAndDeliverResult> {
    const { message, attempt, run, params, follow_up, ...resolve } = request;
    const seal = run
      ? checkSeal(message, deps.sealKeys, { workflowId: run.workflow_id, startedAt: run.started_at })
      : { ok: false as const, reason: 'the run is unknown' };
    if (!seal.ok) return { lookup: { kind: 'unsealed', reason: seal.reason } };
    const lookup = await deps.resolveTarget(resolve);
    if (lookup.kind !== 'found' || deliversOverSocket(lookup.target)) return { lookup };
    const delivered = params || follow_up ? { ...message, ...(params ? { params } : {}), ...follow_up } : message;
    return { lookup, delivery: await deps.deliver({ message: delivered, target: lookup.target, attempt }) };
  };
}
