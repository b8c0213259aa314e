/**
 * The activities a message run calls, with their timeouts and retries: lookup and delivery (regular activities in
 * classic runs, local ones in lean runs), WebSocket delivery on the replica holding the socket, reading an A2A task,
 * and the api's `rerouteMessage` on its routing queue.
 */
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliverRequest, DeliverResult } from '../activities/deliver';
import type { SocketActivities } from '../activities/deliver-socket';
import type { RerouteActivities, RerouteRequest, RerouteResult } from '../activities/reroute-message';
import type { ResolveAndDeliverRequest, ResolveAndDeliverResult } from '../activities/resolve-and-deliver';
import type { DeliveryTarget } from '../catalogue/agent-queries';
import { routingTaskQueue } from '../temporal-callers/contract';
import type { DeliveryPolicy } from '../messages/message';
import { deliversOverSocket } from '../rules/transport';

/** Margin over the HTTP timeout before Temporal declares the activity itself lost (e.g. worker crash). */
const ACTIVITY_MARGIN_MS = 5_000;

/** Tries of one lean lookup-and-delivery activity before the run itself backs off (see leanActivities). */
const LOOKUP_TRIES = 4;

/** How long a misrouted message waits for an api replica to route it again. */
const REROUTE_WAIT = '2m';

/**
 * An A2A task under way is first read within the delivery's worker for up to A2A_FIRST_READ_WAIT_MS (GetTask after
 * 50 ms, then twice as long each time: most tasks of a quick agent end there, with no Temporal timer, whose
 * resolution on the dev server is about a second); then after A2A_POLL_FIRST_MS, twice as long each time, up to
 * A2A_POLL_MAX_MS.
 */
export const A2A_FIRST_READ_WAIT_MS = 1_000;
export const A2A_POLL_FIRST_MS = 1_000;
export const A2A_POLL_MAX_MS = 5_000;

/** What a run calls to reach an agent, whichever its shape. */
export interface RunActivities {
  reach(request: ResolveAndDeliverRequest): Promise<ResolveAndDeliverResult>;
  deliverTo(target: DeliveryTarget, request: DeliverRequest): Promise<DeliverResult>;
  recordMissingReceipt: Activities['recordMissingReceipt'];
  notifyCancel: Activities['notifyCancel'];
}

export function runActivities(lean: boolean, policy: DeliveryPolicy, now: () => string): RunActivities {
  return lean ? leanActivities(policy, now) : classicActivities(policy, now);
}

/**
 * The activities of a classic run, with its timeouts. Delivery goes over HTTP from any worker, or over WebSocket
 * from the api replica holding the socket; a lost delivery activity counts as a transient error.
 */
function classicActivities(policy: DeliveryPolicy, now: () => string): RunActivities {
  const { resolveTarget } = proxyActivities<Activities>({
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: '5m',
    retry: { maximumInterval: '10s' },
  });
  const { deliver } = proxyActivities<Activities>({
    startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
    retry: { maximumAttempts: 3 },
  });
  const { recordMissingReceipt } = proxyActivities<Activities>({
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 3 },
  });
  const { notifyCancel } = proxyActivities<Activities>({
    startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
    retry: { maximumAttempts: 1 }, // best effort
  });
  /** Classic runs resolve in one activity and deliver in another. */
  const reach = async (request: ResolveAndDeliverRequest): Promise<ResolveAndDeliverResult> => {
    const { message, attempt, run, params, ...resolve } = request;
    return { lookup: await resolveTarget(resolve) };
  };
  return { reach, deliverTo: deliveryOver(deliver, policy, now), recordMissingReceipt, notifyCancel };
}

/**
 * The activities of a lean run: resolution, HTTP delivery and the bookkeeping run as local activities in the
 * worker that runs the workflow task (they read in-memory copies); WebSocket delivery stays a regular activity on
 * the queue of the replica holding the socket.
 */
export function leanActivities(
  policy: DeliveryPolicy,
  now: () => string,
): RunActivities & Pick<Activities, 'settleMessage'> {
  const { recordMissingReceipt, settleMessage } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: '5m',
    retry: { maximumInterval: '10s' },
  });
  // A few retries of its own (1 + 2 + 4 s apart); then the run backs off and tries again (an outage of the
  // catalogue's database costs time, not tries of the message), seeing cancels and the deadline in between.
  const { resolveAndDeliver } = proxyLocalActivities<Activities>({
    startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
    scheduleToCloseTimeout: '5m',
    retry: { maximumInterval: '10s', maximumAttempts: LOOKUP_TRIES },
  });
  const { notifyCancel } = proxyLocalActivities<Activities>({
    startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
    retry: { maximumAttempts: 1 },
  });
  // HTTP targets are delivered inside resolveAndDeliver; deliverTo is left with WebSocket targets.
  const unreachable = async (): Promise<DeliverResult> => ({
    verdict: { kind: 'transient', error: 'no delivery was made for an HTTP target' },
    started_at: now(),
    latency_ms: 0,
  });
  return {
    reach: resolveAndDeliver,
    deliverTo: deliveryOver(unreachable, policy, now),
    recordMissingReceipt,
    notifyCancel,
    settleMessage,
  };
}

/**
 * The api's `rerouteMessage` on its routing queue (api/routing-worker.ts: the router lives in the api). Without an
 * api to answer within REROUTE_WAIT, the message cannot be routed again: it ends `no_route`.
 */
export async function rerouted(request: RerouteRequest): Promise<RerouteResult> {
  const { rerouteMessage } = proxyActivities<RerouteActivities>({
    taskQueue: routingTaskQueue(workflowInfo().taskQueue),
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: REROUTE_WAIT,
    retry: { maximumInterval: '5s' },
  });
  try {
    return await rerouteMessage(request);
  } catch (error) {
    const routing = { decided_by: 'none', provider: 'none', explanation: null };
    return {
      kind: 'refused',
      reason: {
        code: 'no_route',
        message: `no api replica routed it again within ${REROUTE_WAIT} (${(error as Error).message})`,
      },
      routing,
    };
  }
}

/** Reading an A2A agent's task: a local activity (GetTask, repeated for up to its wait), failures reported, not retried here. */
export function a2aActivities(policy: DeliveryPolicy) {
  return proxyLocalActivities<Activities>({
    startToCloseTimeout: policy.attemptTimeoutMs + A2A_FIRST_READ_WAIT_MS + ACTIVITY_MARGIN_MS,
    retry: { maximumAttempts: 1 },
  });
}

/** Delivers over HTTP with `deliverHttp`, or over the socket's replica; a lost delivery activity is a transient error. */
function deliveryOver(
  deliverHttp: (request: DeliverRequest) => Promise<DeliverResult>,
  policy: DeliveryPolicy,
  now: () => string,
) {
  return async (target: DeliveryTarget, request: DeliverRequest): Promise<DeliverResult> => {
    try {
      if (!deliversOverSocket(target)) return await deliverHttp(request);
      const { deliverOverSocket } = proxyActivities<SocketActivities>({
        taskQueue: target.ws_task_queue,
        startToCloseTimeout: policy.attemptTimeoutMs + ACTIVITY_MARGIN_MS,
        scheduleToStartTimeout: '5s', // the replica holding the socket is gone: move on
        retry: { maximumAttempts: 1 },
      });
      return await deliverOverSocket(request);
    } catch (error) {
      return {
        verdict: { kind: 'transient', error: `delivery activity failed: ${(error as Error).message}` },
        started_at: now(),
        latency_ms: 0,
      };
    }
  };
}
