/**
 * All activities, built from their dependencies. The worker passes the real ones; tests may pass others.
 */
import type { AgentQueries } from '../catalogue/agent-queries';
import type { CircuitStore } from '../store/circuits';
import type { RoutingStats } from '../store/routing-stats';
import type { EndpointPolicy } from '../rules/endpoint-policy';
import type { WorkerMetrics } from '../platform/metrics';
import type { Logger } from 'pino';
import { A2aClients } from './a2a-clients';
import { createDeliver, type DeliverRequest, type DeliverResult } from './deliver';
import { createCancelA2aTask, createDeliverA2a, createPollA2aTask } from './deliver-a2a';
import { createNotifyCaller } from './notify-caller';
import { createNotifyCancel, type NotifyCancelRequest, type NotifyCancelResult } from './notify-cancel';
import { createCapabilityParameters, createPrepareChain } from './prepare-chain';
import { createChainStepActivities } from './chain-step';
import { createMapChainStep } from './map-chain-step';
import { createPrepareMessage, type PrepareMessageDeps } from './prepare-message';
import type { ChainCheckDeps } from '../chains/check-chain';
import { createResolveAndDeliver } from './resolve-and-deliver';
import { createResolveTarget } from './resolve-target';
import { createSettleMessage } from './settle-message';
import { speaksA2a } from '../rules/transport';
import type { SealKeys } from '../messages/seal';
import type { AnswerLimits } from '../protocol/verdicts';
import { callerChecks, checked } from './caller-checks';
import type { RunProvenance } from './run-provenance';
import type { RunChainInput } from '../chains/temporal';

export interface ActivityDeps {
  queries: Pick<AgentQueries, 'findTarget' | 'signingSecrets' | 'agentRecord'>;
  circuits: Pick<CircuitStore, 'record'>;
  /** Each attempt's outcome and latency feed the router's ranking. */
  stats?: Pick<RoutingStats, 'record'>;
  metrics?: WorkerMetrics;
  /** Structured logs of delivery attempts, with message and trace ids. */
  logger?: Logger;
  /** Signs `reply_to` notifications; absent → they fail (the api refuses `reply_to` then). */
  callerWebhookSecret?: string;
  fetch: typeof fetch;
  now: () => number;
  /** Checked again before every HTTP delivery and reply_to post (an address may have changed since it was accepted). */
  endpointPolicy?: EndpointPolicy;
  /** How much of an agent's (or a webhook receiver's) answer is read, and of a result kept. */
  answerLimits: AnswerLimits;
  /** What `prepareMessage` (direct `sendMessage` starts) reads; absent → such starts fail, non-retryable. */
  intake?: Pick<PrepareMessageDeps, 'queries' | 'config' | 'keys'>;
  /** Seal the inputs this worker builds (`prepareMessage`) and check those it delivers and notifies for. */
  sealKeys: SealKeys;
  /** What `prepareChain` (runChain) reads; absent → chains fail, non-retryable. */
  chains?: ChainCheckDeps;
  /** Which run scheduled an activity, as Temporal says: every activity checks it first (caller-checks.ts). */
  provenance: RunProvenance;
}

export function createActivities(deps: ActivityDeps) {
  const checks = callerChecks(deps.provenance, deps.sealKeys);
  const local = (name: string) => () => checks.local(name);
  const resolveTarget = createResolveTarget(deps);
  const a2a = { ...deps, clients: new A2aClients(deps.fetch, deps.answerLimits.maxAnswerBytes) };
  const deliverHttp = createDeliver(deps);
  const deliverA2a = createDeliverA2a(a2a);
  /** Delivers from this worker: our envelope over HTTP, or an A2A SendMessage. */
  const deliver = (request: DeliverRequest): Promise<DeliverResult> =>
    speaksA2a(request.target) ? deliverA2a(request) : deliverHttp(request);
  const cancelA2aTask = createCancelA2aTask(a2a);
  const notifyCancelHttp = createNotifyCancel(deps);
  /** Tells the agent the caller cancelled: CancelTask for an A2A agent's task, else our cancel notice. */
  const notifyCancel = (request: NotifyCancelRequest): Promise<NotifyCancelResult> =>
    request.a2a_task_id ? cancelA2aTask({ ...request, a2a_task_id: request.a2a_task_id }) : notifyCancelHttp(request);
  const settleMessage = createSettleMessage(deps);
  const prepareChain = createPrepareChain(deps.chains);
  const prepareMessage = createPrepareMessage({
    ...deps.intake,
    sealKeys: deps.sealKeys,
    now: deps.now,
    provenance: deps.provenance,
  });
  const chainSteps = createChainStepActivities({ prepareMessage, provenance: deps.provenance });
  return {
    // Classic runs (started before the lean shape) resolve and deliver in regular activities.
    resolveTarget: checked(() => checks.messageRun('resolveTarget'), resolveTarget),
    deliver: checked((request: DeliverRequest) => checks.messageRun('deliver', request.message), deliver),
    resolveAndDeliver: checked(
      local('resolveAndDeliver'),
      createResolveAndDeliver({ resolveTarget, deliver, sealKeys: deps.sealKeys }),
    ),
    pollA2aTask: checked(local('pollA2aTask'), createPollA2aTask(a2a)),
    notifyCancel: checked(
      (request: NotifyCancelRequest) => checks.messageRun('notifyCancel', request.message),
      notifyCancel,
    ),
    notifyCaller: createNotifyCaller(deps),
    settleMessage: checked(local('settleMessage'), settleMessage),
    prepareChain: async (input: RunChainInput) => {
      checks.local('prepareChain');
      await checks.chainCaller(
        input,
        deps.intake && { config: deps.intake.config, ...(deps.intake.keys ? { keys: deps.intake.keys } : {}) },
      );
      // chainCaller refuses an input whose seal does not check out: a seal here is the gateway's.
      return prepareChain(input, input.seal !== undefined);
    },
    capabilityParameters: checked(local('capabilityParameters'), createCapabilityParameters(deps.chains)),
    /** A chain step reading results kept by reference, from their messages (a local activity of runChain). */
    mapChainStep: checked(local('mapChainStep'), createMapChainStep()),
    prepareMessage,
    /** A chain's step started by the chain itself and awaited a while (a local activity of runChain). */
    sendChainStep: checked(local('sendChainStep'), chainSteps.sendChainStep),
    /** A chain's step that did not end within that while: a regular activity of runChain, for its own messages. */
    awaitChainStep: chainSteps.awaitChainStep,
    /** A delivered message got no receipt in time: counts against the instance's circuit. */
    recordMissingReceipt: checked(
      () => checks.messageRun('recordMissingReceipt'),
      async (request: { agent_id: string; instance_id: string }): Promise<void> => {
        await deps.circuits.record(request.agent_id, request.instance_id, false);
      },
    ),
  };
}

export type Activities = ReturnType<typeof createActivities>;
