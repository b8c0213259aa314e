/**
 * The message workflow on a real Temporal dev server with scripted activities: no database, no agents.
 * Used by the workflow tests and by the script that records the replay histories (test/tools/record-histories.ts).
 *
 * Time-skipping (`TestWorkflowEnvironment.createTimeSkipping`) needs Temporal's test server, which the SDK
 * downloads on first use; offline it cannot be had, so this runs `createLocal` on the Temporal CLI that
 * `npm test` finds or builds, and the timer paths use timers of a few hundred milliseconds instead.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { createPrepareMessage } from '../../activities/prepare-message';
import { createMapChainStep } from '../../activities/map-chain-step';
import { createCapabilityParameters, createPrepareChain } from '../../activities/prepare-chain';
import { createChainStepActivities } from '../../activities/chain-step';
import type { DeliverRequest, DeliverResult } from '../../activities/deliver';
import type { A2aPoll } from '../../activities/deliver-a2a';
import type { Settlement } from '../../activities/settle-message';
import { createResolveAndDeliver } from '../../activities/resolve-and-deliver';
import type { RerouteRequest, RerouteResult } from '../../activities/reroute-message';
import { routingTaskQueue } from '../../temporal-callers/contract';
import type { DeliveryVerdict } from '../../protocol/verdicts';
import type { ResolveTargetRequest } from '../../activities/resolve-target';
import type { DeliveryTarget, TargetLookup } from '../../catalogue/agent-queries';
import type { MessageInput, MessageStatus } from '../../messages/message';
import {
  MESSAGE_WORKFLOW,
  messageSearchAttributes,
  messageWorkflowId,
  SEARCH_ATTRIBUTES,
} from '../../messages/temporal';
import { resolveTemporalCli } from '../../supervisor/binaries';
import { sealInput, type SealKeys } from '../../messages/seal';

export const TENANT = 'acme';
/** The seal keys of the scripted gateway: every run the tests start as the api would is sealed with them. */
export const TEST_SEAL_KEYS: SealKeys = {
  keys: ['test-seal-key-0123456789abcdefghijklmnopqrstuvwxyz'],
  since: '2026-01-01T00:00:00.000Z',
};
export const CAPABILITY = 'refund';
/** The agent's instances, in the order the scripted catalogue offers them. */
export const INSTANCES = ['inst-a', 'inst-b'] as const;

/** How the scripted catalogue and agent behave for one message. */
export interface Script {
  /** What each delivery attempt comes to, in order; the last one repeats. */
  verdicts: DeliveryVerdict[];
  /** What each target lookup answers before it finds an instance, in order (e.g. none available at first). */
  lookups?: Exclude<TargetLookup, { kind: 'found' }>[];
  transport?: 'http' | 'websocket' | 'a2a';
  /** A2A agents: what each GetTask of the task answers, in order; the last one repeats. */
  polls?: A2aPoll[];
  /** The catalogue's database is out for this long from the first lookup: every lookup meanwhile throws. */
  outageMs?: number;
  /** The capability's own limits, as the catalogue reports them. */
  limits?: Pick<DeliveryTarget, 'ack_timeout_ms' | 'max_attempts' | 'max_delivery_ms'>;
  /** What the api's router answers when the agent says `misrouted` (the new target must be the same agent id). */
  reroute?: RerouteResult;
}

/** What the scripted activities were asked to do, per message id. */
export interface ActivityCalls {
  deliveries: DeliverRequest[];
  missingReceipts: { agent_id: string; instance_id: string }[];
  /** What the circuit and the ranking were told when the message ended (lean runs). */
  settlements: Settlement[];
  cancels: string[];
  /** The A2A tasks cancelled with CancelTask, and the GetTask polls made. */
  a2aCancels: string[];
  polls: string[];
  callerNotifications: MessageStatus[];
}

export interface WorkflowEnv {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  /**
   * Starts a message run as the api does (its input sealed); `script` decides what the catalogue and the agent
   * answer. `{ sealed: false }` starts it as a namespace client could, with the input as given; `workflowType` starts
   * another message workflow type than the one the api starts (the earlier one, whose runs are still served).
   */
  start(
    input: MessageInput,
    script: Script,
    options?: { sealed?: boolean; workflowType?: string },
  ): Promise<WorkflowHandleWithFirstExecutionRunId>;
  calls(messageId: string): ActivityCalls;
  stop(): Promise<void>;
}

/** Each message goes to an agent of its own, so the agent id tells the scripted activities whose script it is. */
export function agentOf(messageId: string): string {
  return `agt_${messageId}`;
}

/** A message input with small timers; `overrides` replace fields. */
export function messageInput(messageId: string, overrides: Partial<MessageInput> = {}): MessageInput {
  return {
    tenant: TENANT,
    message_id: messageId,
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    target: { agent_id: agentOf(messageId), capability: CAPABILITY },
    intent: 'refund order 42',
    params: { order_id: '42' },
    callback_url: 'http://gateway.invalid/v1/callback',
    accepted_at: new Date().toISOString(),
    policy: {
      maxAttempts: 3,
      initialBackoffMs: 100,
      maxBackoffMs: 400,
      attemptTimeoutMs: 1_000,
      defaultAckTimeoutMs: 60_000,
    },
    caller: { tenant: TENANT, key_id: 'key_test', scopes: ['messages:send'] },
    ...overrides,
  };
}

/** A fresh id, so runs of one test never meet runs of another. */
export function uniqueMessageId(name: string): string {
  return `${name}-${randomUUID().slice(0, 8)}`;
}

function deliveryTarget(agentId: string, instanceId: string, script: Script, socketQueue: string): DeliveryTarget {
  const websocket = script.transport === 'websocket';
  return {
    agent_id: agentId,
    capability: CAPABILITY,
    instance_id: instanceId,
    transport: script.transport ?? 'http',
    endpoint: websocket ? `ws://${instanceId}` : `http://${instanceId}.agents.invalid/deliver`,
    ...(websocket ? { ws_task_queue: socketQueue } : {}),
    ...script.limits,
  };
}

export async function startWorkflowEnv(): Promise<WorkflowEnv> {
  const cli = await resolveTemporalCli();
  if ('sdkDownload' in cli) throw new Error(`the workflow tests need the Temporal CLI: ${cli.reason}`);
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli.path }, searchAttributes: SEARCH_ATTRIBUTES },
  });
  const taskQueue = `workflow-test-${randomUUID()}`;
  const socketQueue = `${taskQueue}-ws`;
  const scripts = new Map<string, Script>();
  const lookupsMade = new Map<string, number>();
  const outageStarted = new Map<string, number>();
  const recorded = new Map<string, ActivityCalls>();
  const calls = (agentId: string): ActivityCalls => {
    let entry = recorded.get(agentId);
    if (!entry)
      recorded.set(
        agentId,
        (entry = {
          deliveries: [],
          missingReceipts: [],
          settlements: [],
          cancels: [],
          a2aCancels: [],
          polls: [],
          callerNotifications: [],
        }),
      );
    return entry;
  };
  const scriptOf = (agentId: string): Script => {
    const script = scripts.get(agentId);
    if (!script) throw new Error(`no script for agent ${agentId}`);
    return script;
  };

  const deliver = async (request: DeliverRequest): Promise<DeliverResult> => {
    const started = new Date();
    if (request.message.deadline && started.getTime() >= Date.parse(request.message.deadline)) {
      return { verdict: { kind: 'too_late' }, started_at: started.toISOString(), latency_ms: 0 };
    }
    const made = calls(request.target.agent_id).deliveries;
    made.push(request);
    const verdicts = scriptOf(request.target.agent_id).verdicts;
    const verdict = verdicts[Math.min(made.length, verdicts.length) - 1]!;
    const a2aTask =
      request.target.transport === 'a2a' && verdict.kind === 'accepted' ? { a2a_task_id: `task-${made.length}` } : {};
    return {
      verdict,
      ...(verdict.kind === 'transient' ? { http_status: 503 } : { http_status: 200 }),
      ...a2aTask,
      started_at: started.toISOString(),
      latency_ms: 3,
    };
  };
  const resolveTarget = async (request: ResolveTargetRequest): Promise<TargetLookup> => {
    const agentId = request.target.agent_id;
    const script = scriptOf(agentId);
    const made = lookupsMade.get(agentId) ?? 0;
    lookupsMade.set(agentId, made + 1);
    if (!outageStarted.has(agentId)) outageStarted.set(agentId, Date.now());
    if (script.outageMs && Date.now() - outageStarted.get(agentId)! < script.outageMs)
      throw new Error('database unreachable (scripted outage)');
    const scripted = script.lookups?.[made];
    if (scripted) return scripted;
    // Like the catalogue: an instance that failed this message is chosen only when no other is left.
    const avoid = new Set(request.avoid ?? []);
    const instance = INSTANCES.find((id) => !avoid.has(id)) ?? INSTANCES[0];
    return { kind: 'found', target: deliveryTarget(agentId, instance, script, socketQueue) };
  };
  const activities: Activities = {
    resolveTarget,
    deliver,
    resolveAndDeliver: createResolveAndDeliver({ resolveTarget, deliver, sealKeys: TEST_SEAL_KEYS }),
    async notifyCancel(request) {
      if (request.a2a_task_id) calls(request.agent_id).a2aCancels.push(request.a2a_task_id);
      else calls(request.agent_id).cancels.push(request.endpoint);
      return { http_status: 200 };
    },
    async pollA2aTask(request) {
      const made = calls(request.agent_id).polls;
      made.push(request.task_id);
      const polls = scriptOf(request.agent_id).polls ?? [{ outcome: { kind: 'pending', state: 'working' } }];
      return polls[Math.min(made.length, polls.length) - 1]!;
    },
    async notifyCaller(request) {
      // Only message runs notify in these scenarios.
      const status = request.status as MessageStatus;
      calls(status.target.agent_id).callerNotifications.push(status);
      return { http_status: 200 };
    },
    async recordMissingReceipt(request) {
      calls(request.agent_id).missingReceipts.push(request);
    },
    async settleMessage(settlement) {
      calls(settlement.agent_id).settlements.push(settlement);
    },
    // Direct sendMessage starts are tested against the whole system (test/integration/temporal-callers.test.ts).
    prepareMessage: createPrepareMessage({}),
    prepareChain: createPrepareChain(undefined),
    capabilityParameters: createCapabilityParameters(undefined),
    mapChainStep: createMapChainStep(),
    // Chains are tested against the whole system (test/integration/chains.test.ts).
    ...createChainStepActivities({
      prepareMessage: createPrepareMessage({}),
      provenance: { schedulingRun: () => Promise.reject(new Error('no chains here')) },
    }),
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities,
  });
  const socketWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: socketQueue,
    activities: { deliverOverSocket: deliver },
  });
  // The api's routing queue, where a misrouted message is routed again.
  const routingWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: routingTaskQueue(taskQueue),
    activities: {
      async rerouteMessage(request: RerouteRequest): Promise<RerouteResult> {
        const routing = { decided_by: 'none', provider: 'scripted', explanation: null };
        return (
          scriptOf(agentOf(request.message_id)).reroute ?? {
            kind: 'refused',
            reason: { code: 'no_route', message: 'no other capability matches' },
            routing,
          }
        );
      },
    },
  });
  const running = Promise.all([worker.run(), socketWorker.run(), routingWorker.run()]);

  return {
    env,
    taskQueue,
    async start(unsealed, script, { sealed = true, workflowType = MESSAGE_WORKFLOW } = {}) {
      scripts.set(unsealed.target.agent_id, script);
      const input = sealed ? sealInput(unsealed, TEST_SEAL_KEYS.keys[0]!, new Date()) : unsealed;
      return env.client.workflow.start(workflowType, {
        workflowId: messageWorkflowId(input.tenant, input.message_id),
        taskQueue,
        args: [input],
        typedSearchAttributes: messageSearchAttributes(input.tenant, input.target.agent_id, input.trace_id),
        workflowIdReusePolicy: input.redrive ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
      });
    },
    calls: (messageId) => calls(agentOf(messageId)),
    async stop() {
      worker.shutdown();
      socketWorker.shutdown();
      routingWorker.shutdown();
      await running;
      await env.teardown();
    },
  };
}
