/**
 * Following an A2A agent's task after its delivery: an A2A agent answers `SendMessage` with a task and reports the
 * outcome in it, not with our receipt. The run reads the task with GetTask until it ends; its outcome is then the
 * message's receipt.
 */
import type { A2aPoll } from '../activities/deliver-a2a';
import type { DeliveryTarget } from '../catalogue/agent-queries';
import { a2aActivities, A2A_FIRST_READ_WAIT_MS, A2A_POLL_FIRST_MS, A2A_POLL_MAX_MS } from './message-activities';
import { RECEIPT_VISIBLE_AFTER_MS, type MessageRun } from './message-run';

/**
 * Follows the task — at once for a while in the worker, then backing off (a push notification cuts a pause short) —
 * until it ends (its outcome becomes the run's receipt), the agent says nothing for `ackTimeoutMs` (reads that fail;
 * an answer "still working" counts as word from it), or a cancel or the deadline interrupts. True when the outcome
 * came; false when the agent no longer knows the task (deliver again) or the wait ended without it.
 */
export async function followA2aTask(
  run: MessageRun,
  target: DeliveryTarget,
  taskId: string,
  ackTimeoutMs: number,
): Promise<boolean> {
  const { pollA2aTask } = a2aActivities(run.input.policy);
  // The input as delivered (on a follow-up turn, the conversation: which question the reply answered).
  const message = run.deliveredInput();
  const followed = Date.now();
  let heardAt = followed;
  let shown = !run.lean;
  for (let poll = 0; ; poll++) {
    const untilDeadline = Math.max(0, run.deadlineMs - Date.now());
    if (poll > 0) {
      const pause = Math.min(
        A2A_POLL_FIRST_MS * 2 ** (poll - 1),
        A2A_POLL_MAX_MS,
        Math.max(0, heardAt + ackTimeoutMs - Date.now()),
        untilDeadline,
      );
      await run.taskNewsWithin(pause);
    }
    if (run.hasReceipt) return true;
    if (run.cancelRequest || Date.now() >= run.deadlineMs) return false;
    if (!shown && Date.now() - followed >= RECEIPT_VISIBLE_AFTER_MS && run.status.state === 'delivered') {
      run.showState('delivered');
      shown = true;
    }
    const waitMs = poll === 0 ? Math.min(A2A_FIRST_READ_WAIT_MS, untilDeadline) : 0;
    const polled = await pollA2aTask({
      message,
      agent_id: target.agent_id,
      endpoint: target.endpoint,
      task_id: taskId,
      wait_ms: waitMs,
    }).catch((error: Error): A2aPoll => ({ failure: { transient: true, error: error.message } }));
    if ('outcome' in polled) {
      heardAt = Date.now();
      if (polled.outcome.kind === 'ended') {
        run.receiptFromTask(
          polled.outcome.misrouted
            ? { agent_id: target.agent_id, status: 'misrouted' }
            : { agent_id: target.agent_id, ...polled.outcome.outcome },
        );
        return true;
      }
    } else if (!polled.failure.transient) {
      return false; // the agent no longer knows the task: deliver again
    }
    if (Date.now() - heardAt >= ackTimeoutMs) return false;
  }
}
