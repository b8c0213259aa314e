/**
 * Runs of the message workflow worth keeping as replay histories: each way a message can end, and the paths
 * between (receipt, backoff, failover, redelivery after a missing receipt, deadline, cancel, reply_to, redrive).
 * `test/tools/record-histories.ts` runs them; test/unit/workflow-replay.test.ts replays what it stored.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { MessageInput, MessageState, MessageStatus, ReceiptInput } from '../../messages/message';
import { cancelUpdate, receiptUpdate, replyUpdate, statusQuery } from '../../messages/temporal';
import { eventually } from './eventually';
import { agentOf, messageInput, type Script } from './workflow-env';

export interface Scenario {
  name: string;
  /** The state the run must end in. */
  ends: MessageState;
  input(messageId: string): MessageInput;
  script: Script;
  /** False: started as a namespace client could, its input not sealed by the gateway. */
  sealed?: boolean;
  /** What the caller and the agent do while the run goes on (receipts, cancel); nothing when absent. */
  drive?(handle: WorkflowHandle, messageId: string): Promise<void>;
}

/** Waits until the run has delivered attempt `attempt` and waits for its receipt. */
export async function awaitingReceipt(handle: WorkflowHandle, attempt: number): Promise<MessageStatus> {
  return eventually(`attempt ${attempt} awaiting its receipt`, async () => {
    const status = await handle.query(statusQuery);
    return status.state === 'delivered' && status.attempts.length >= attempt ? status : undefined;
  });
}

/** Waits until the agent asked for input and the run waits for the caller's reply. */
export async function awaitingInput(handle: WorkflowHandle): Promise<MessageStatus> {
  return eventually('the message waiting for input', async () => {
    const status = await handle.query(statusQuery);
    return status.state === 'input_required' ? status : undefined;
  });
}

function receipt(
  messageId: string,
  status: ReceiptInput['status'],
  extra: Omit<ReceiptInput, 'agent_id' | 'status'> = {},
): { args: [ReceiptInput] } {
  return { args: [{ agent_id: agentOf(messageId), status, ...extra }] };
}

/** The agent took the first delivery, then answered that the message is not for it. */
async function misroutedAfterDelivery(handle: WorkflowHandle, id: string): Promise<void> {
  await awaitingReceipt(handle, 1);
  await handle.executeUpdate(receiptUpdate, receipt(id, 'misrouted'));
}

const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

export const SCENARIOS: Scenario[] = [
  {
    // Multi-turn (patch multi-turn-v1): the agent asks inline, the caller replies, turn 2 is processed by receipt.
    name: 'input-required-then-processed',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: {
      verdicts: [
        {
          kind: 'input_required',
          input: { message: 'Which order?', schema: { type: 'object', required: ['order_id'] } },
        },
        { kind: 'accepted' },
      ],
    },
    async drive(handle, id) {
      await awaitingInput(handle);
      await handle.executeUpdate(replyUpdate, { args: [{ params: { order_id: 7 } }] });
      await awaitingReceipt(handle, 2);
      await handle.executeUpdate(receiptUpdate, receipt(id, 'processed', { result: { refunded: 7 }, turn: 2 }));
    },
  },
  {
    // Several questions (patch multi-question-v1): answered over two replies, then turn 2 is processed by receipt.
    name: 'several-questions-then-processed',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: {
      verdicts: [
        {
          kind: 'input_required',
          input: {
            message: 'Two things first.',
            questions: {
              order: { message: 'Which order?', schema: { type: 'object', required: ['order_id'] } },
              why: { message: 'Why?' },
            },
          },
        },
        { kind: 'accepted' },
      ],
    },
    async drive(handle, id) {
      await awaitingInput(handle);
      await handle.executeUpdate(replyUpdate, { args: [{ answers: { order: { params: { order_id: 7 } } } }] });
      await handle.executeUpdate(replyUpdate, { args: [{ answers: { why: { intent: 'it broke' } } }] });
      await awaitingReceipt(handle, 2);
      await handle.executeUpdate(receiptUpdate, receipt(id, 'processed', { result: { refunded: 7 }, turn: 2 }));
    },
  },
  {
    // The agent asks by receipt; the caller cancels instead of replying.
    name: 'input-required-cancelled',
    ends: 'cancelled',
    input: (id) => messageInput(id, { deadline: inAMinute() }),
    script: { verdicts: [{ kind: 'accepted' }] },
    async drive(handle, id) {
      await awaitingReceipt(handle, 1);
      await handle.executeUpdate(receiptUpdate, receipt(id, 'input_required', { input: { message: 'Which order?' } }));
      await awaitingInput(handle);
      await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'never mind' }] });
    },
  },
  {
    name: 'rerouted-after-misroute',
    ends: 'processed',
    input: (id) => messageInput(id, { routing: { decided_by: 'head', provider: 'scripted', explanation: null } }),
    script: {
      verdicts: [{ kind: 'accepted' }, { kind: 'processed', result: { refunded: true } }],
      reroute: {
        kind: 'routed',
        target: { agent_id: agentOf('rerouted-after-misroute'), capability: 'refund_other' },
        params: { order: '42' },
        routing: { decided_by: 'head', provider: 'scripted', explanation: null },
      },
    },
    drive: misroutedAfterDelivery,
  },
  {
    name: 'misrouted-by-name',
    ends: 'failed',
    input: (id) => messageInput(id),
    script: { verdicts: [{ kind: 'accepted' }] },
    drive: misroutedAfterDelivery,
  },
  {
    name: 'processed-inline',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: { verdicts: [{ kind: 'processed', result: { refunded: true } }] },
  },
  {
    name: 'processed-by-receipt',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: { verdicts: [{ kind: 'accepted' }] },
    async drive(handle, id) {
      await awaitingReceipt(handle, 1);
      await handle.executeUpdate(receiptUpdate, receipt(id, 'processed', { result: { refunded: true } }));
    },
  },
  {
    name: 'failed-over-after-transient-errors',
    ends: 'processed',
    input: (id) => messageInput(id, { policy: { ...messageInput(id).policy, maxAttempts: 4 } }),
    script: {
      verdicts: [
        { kind: 'transient', error: 'HTTP 503' },
        { kind: 'transient', error: 'HTTP 503', retryAfterMs: 200 },
        { kind: 'processed', result: 'ok' },
      ],
    },
  },
  {
    name: 'unavailable-then-delivered',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: {
      lookups: [{ kind: 'no_available_instance', instances: [{ instance_id: 'inst-a', reason: 'offline' }] }],
      verdicts: [{ kind: 'processed', result: null }],
    },
  },
  {
    name: 'retryable-agent-failure-then-processed',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: { verdicts: [{ kind: 'accepted' }] },
    async drive(handle, id) {
      await awaitingReceipt(handle, 1);
      await handle.executeUpdate(
        receiptUpdate,
        receipt(id, 'failed', { error: { message: 'busy, try later', retryable: true } }),
      );
      await awaitingReceipt(handle, 2);
      await handle.executeUpdate(receiptUpdate, receipt(id, 'processed', { result: 'done' }));
    },
  },
  {
    name: 'ack-timeout-exhausted',
    ends: 'failed',
    input: (id) =>
      messageInput(id, { policy: { ...messageInput(id).policy, maxAttempts: 3, defaultAckTimeoutMs: 300 } }),
    script: { verdicts: [{ kind: 'accepted' }] },
  },
  {
    name: 'capability-time-limit',
    ends: 'failed',
    input: (id) => messageInput(id, { policy: { ...messageInput(id).policy, maxAttempts: 50 } }),
    script: { verdicts: [{ kind: 'transient', error: 'ECONNREFUSED' }], limits: { max_delivery_ms: 3_000 } },
  },
  {
    name: 'refused',
    ends: 'failed',
    input: (id) => messageInput(id),
    script: { verdicts: [{ kind: 'refused', error: 'HTTP 422: unknown order' }] },
  },
  {
    name: 'agent-failed',
    ends: 'failed',
    input: (id) => messageInput(id),
    script: { verdicts: [{ kind: 'agent_failed', error: { code: 'no_such_order', message: 'no order 42' } }] },
  },
  {
    name: 'unknown-capability',
    ends: 'rejected',
    input: (id) => messageInput(id),
    script: { lookups: [{ kind: 'unknown_capability' }], verdicts: [{ kind: 'accepted' }] },
  },
  {
    name: 'rejected-by-router',
    ends: 'rejected',
    input: (id) => messageInput(id, { rejection: { code: 'no_route', message: 'no capability matches' } }),
    script: { verdicts: [{ kind: 'accepted' }] },
  },
  {
    name: 'expired-awaiting-receipt',
    ends: 'expired',
    input: (id) => messageInput(id, { deadline: new Date(Date.now() + 4_000).toISOString() }),
    script: { verdicts: [{ kind: 'accepted' }] },
  },
  {
    name: 'cancelled-awaiting-receipt',
    ends: 'cancelled',
    input: (id) => messageInput(id, { deadline: inAMinute() }),
    script: { verdicts: [{ kind: 'accepted' }] },
    async drive(handle) {
      await awaitingReceipt(handle, 1);
      await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'changed my mind' }] });
    },
  },
  {
    name: 'duplicate-processed',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: { verdicts: [{ kind: 'duplicate', processed: true, result: 'already done' }] },
  },
  {
    name: 'websocket-processed',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: { transport: 'websocket', verdicts: [{ kind: 'processed', result: 'over the socket' }] },
  },
  {
    name: 'reply-to-caller',
    ends: 'processed',
    input: (id) => messageInput(id, { reply_to: { url: 'http://caller.invalid/hook', retry_initial_ms: 100 } }),
    script: { verdicts: [{ kind: 'processed', result: 'ok' }] },
  },
  {
    name: 'redriven',
    ends: 'processed',
    input: (id) =>
      messageInput(id, {
        redrive: {
          previous_attempts: [
            {
              attempt: 1,
              agent_id: agentOf(id),
              instance_id: 'inst-a',
              endpoint: 'http://inst-a.agents.invalid/deliver',
              started_at: new Date().toISOString(),
              latency_ms: 4,
              outcome: 'transient_error',
              error: 'HTTP 503',
            },
          ],
          history: [
            {
              at: new Date().toISOString(),
              previous_state: 'failed',
              previous_reason: { code: 'delivery_exhausted', message: 'HTTP 503' },
            },
          ],
        },
      }),
    script: { verdicts: [{ kind: 'processed', result: 'second time lucky' }] },
  },
  {
    name: 'unsealed-refused',
    ends: 'rejected',
    input: (id) => messageInput(id, { reply_to: { url: 'http://caller.invalid/hook', retry_initial_ms: 100 } }),
    script: { verdicts: [{ kind: 'processed', result: 'never delivered' }] },
    sealed: false,
  },
  {
    name: 'lookup-outage-then-processed',
    ends: 'processed',
    input: (id) => messageInput(id, { policy: { ...messageInput(id).policy, maxAttempts: 1, attemptTimeoutMs: 500 } }),
    script: { verdicts: [{ kind: 'processed', result: 'after the outage' }], outageMs: 9_000 },
  },
  {
    name: 'a2a-polled-processed',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: {
      transport: 'a2a',
      verdicts: [{ kind: 'accepted' }],
      polls: [
        { outcome: { kind: 'pending', state: 'working' } },
        { failure: { transient: true, error: 'ECONNRESET' } },
        { outcome: { kind: 'ended', state: 'completed', outcome: { status: 'processed', result: { rate: 0.9 } } } },
      ],
    },
  },
  {
    // An A2A agent's task asks (input-required), the caller replies, the continued task completes.
    name: 'a2a-input-required-then-processed',
    ends: 'processed',
    input: (id) => messageInput(id),
    script: {
      transport: 'a2a',
      verdicts: [{ kind: 'accepted' }, { kind: 'accepted' }],
      polls: [
        {
          outcome: {
            kind: 'ended',
            state: 'input-required',
            outcome: { status: 'input_required', input: { message: 'Which currency?', a2a_message_id: 'q1' } },
          },
        },
        { outcome: { kind: 'ended', state: 'completed', outcome: { status: 'processed', result: { rate: 0.9 } } } },
      ],
    },
    async drive(handle) {
      await awaitingInput(handle);
      await handle.executeUpdate(replyUpdate, { args: [{ intent: 'EUR' }] });
    },
  },
  {
    name: 'a2a-cancelled-working',
    ends: 'cancelled',
    input: (id) => messageInput(id, { deadline: inAMinute() }),
    script: { transport: 'a2a', verdicts: [{ kind: 'accepted' }] },
    async drive(handle) {
      await awaitingReceipt(handle, 1);
      await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'changed my mind' }] });
    },
  },
];
