/**
 * A foreign party's workflows: code of its own, on a task queue of its own, in the gateway's namespace, that
 * schedules the gateway's activities on the gateway's queues with inputs of its own making. Each is exported under a
 * name of the gateway's own workflow types too (`leanMessageWorkflow`, `sendMessage`, …): a name proves nothing.
 */
import { proxyActivities } from '@temporalio/workflow';

export interface ForeignAttempt {
  /** The queue the activity is scheduled on (the gateway's, or its api's routing queue). */
  taskQueue: string;
  activity: string;
  args: unknown[];
}

/** What scheduling the activity came to: its result, or the failure the gateway answered. */
export interface ForeignOutcome {
  ok: boolean;
  type?: string;
  message?: string;
}

export async function forger(attempt: ForeignAttempt): Promise<ForeignOutcome> {
  const activities = proxyActivities<Record<string, (...args: unknown[]) => Promise<unknown>>>({
    taskQueue: attempt.taskQueue,
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 2, initialInterval: '100ms' },
  });
  try {
    await activities[attempt.activity]!(...attempt.args);
    return { ok: true };
  } catch (error) {
    const cause = (error as { cause?: { type?: string; message?: string } }).cause;
    return {
      ok: false,
      ...(cause?.type ? { type: cause.type } : {}),
      ...(cause?.message ? { message: cause.message } : {}),
    };
  }
}

export const leanMessageWorkflow = forger;
export const messageWorkflow = forger;
export const sendMessage = forger;
export const notifyCallerWorkflow = forger;
export const runChain = forger;
