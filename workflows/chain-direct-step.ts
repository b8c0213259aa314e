/**
 * How a chain (runs since DIRECT_STEPS) sends one message of its own: not as a child run, but started by a local
 * activity as the api starts a message (eagerly, so its first task comes back to this worker with the start), and
 * awaited in that same local activity for a while, so a quick step ends in the workflow task that started it and
 * the next step starts there too. A step still running after that is awaited by a regular activity. Deterministic:
 * no I/O here.
 *
 * A workflow task that waits locally holds the chain's queries and updates (a status read, a cancel) until it ends,
 * so one task waits at most LOCAL_WAIT_MS in all, and takes at most LOCAL_RESULT_BYTES of results (they travel in
 * its completion, and the history's size is read between tasks): past either, steps are awaited by activity.
 */
import {
  ActivityCancellationType,
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PreparedMessage } from '../activities/prepare-message';
import type { ChainSent } from '../chains/chain-sent';
import { jsonSize } from '../chains/mapped-size';
import { messageWorkflowId } from '../platform/temporal-names';
import type { SendMessageInput } from '../temporal-callers/contract';

/** Most time one workflow task of a chain waits for its steps' ends in local activities, in all. */
export const LOCAL_WAIT_MS = 1_000;
/** Most bytes of results one workflow task of a chain takes from local activities. */
export const LOCAL_RESULT_BYTES = 1024 * 1024;

const { sendChainStep } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '2m',
  retry: { maximumInterval: '10s' },
  // A cancel waits for the activity's own end: once it has ended, its message was started or never will be.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

const { awaitChainStep } = proxyActivities<Activities>({
  // A long step is long-polled for ever; a worker that dies is noticed by its missing heartbeat and retried.
  startToCloseTimeout: '1d',
  heartbeatTimeout: '30s',
  retry: { maximumInterval: '10s' },
});

/**
 * What local waiting the current workflow task has left. A new task is told by the history's length, which
 * Temporal gives each task (a task's local activities all see the same).
 */
export class LocalWaits {
  private task = -1;
  private waitedMs = 0;
  private bytes = 0;

  allowance(): number {
    this.current();
    return this.bytes >= LOCAL_RESULT_BYTES ? 0 : Math.max(0, LOCAL_WAIT_MS - this.waitedMs);
  }

  spent(waitedMs: number, bytes: number): void {
    this.current();
    this.waitedMs += waitedMs;
    this.bytes += bytes;
  }

  /** Bytes of results this task took locally: the history's size, read between tasks, does not count them yet. */
  takenBytes(): number {
    this.current();
    return this.bytes;
  }

  private current(): void {
    const { historyLength } = workflowInfo();
    if (historyLength === this.task) return;
    this.task = historyLength;
    this.waitedMs = 0;
    this.bytes = 0;
  }
}

export interface DirectStep {
  tenant: string;
  chain_id: string;
  message_id: string;
  /** The message to prepare locally, or one the api's routing queue prepared (a refusal by the router). */
  send: { request: SendMessageInput } | { prepared: PreparedMessage };
}

/**
 * Sends one message and answers what it came to. A refusal of its preparation fails it (`refusal`); a cancel of the
 * calling scope cancels its message, whose end is then awaited (it may have ended otherwise meanwhile).
 */
export async function sendDirect(
  step: DirectStep,
  waits: LocalWaits,
  refusal: (error: unknown) => ChainSent,
): Promise<ChainSent> {
  let sent;
  try {
    sent = await sendChainStep({ ...step.send, wait_ms: waits.allowance() });
  } catch (error) {
    return isCancellation(error) ? cancelStep(step) : refusal(error);
  }
  waits.spent(sent.waited_ms, 'ended' in sent ? jsonSize(sent.ended) : 0);
  if ('ended' in sent) return sent.ended;
  try {
    return await awaitChainStep({ tenant: step.tenant, chain_id: step.chain_id, message_id: step.message_id });
  } catch (error) {
    return isCancellation(error) ? cancelStep(step) : refusal(error);
  }
}

/** Cancels the step's message (as a child run's cancel did) and awaits its end; none started: cancelled. */
function cancelStep(step: DirectStep): Promise<ChainSent> {
  return CancellationScope.nonCancellable(async () => {
    // Fails when no message started (or it already ended): its end, or its absence, is read next.
    await getExternalWorkflowHandle(messageWorkflowId(step.tenant, step.message_id))
      .cancel()
      .catch((error: unknown) =>
        log.info(
          'chain step: its message could not be cancelled (none started, or it had ended); its end is read next',
          {
            chain_id: step.chain_id,
            message_id: step.message_id,
            why: (error as Error).message ?? String(error),
          },
        ),
      );
    return awaitChainStep({ tenant: step.tenant, chain_id: step.chain_id, message_id: step.message_id });
  });
}
