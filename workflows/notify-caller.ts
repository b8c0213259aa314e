/**
 * Posts a message's final status to the caller's `reply_to` URL until it answers 2xx, on a widening schedule of its
 * own (NOTIFY_RETRY): each wait six times the one before, at most 10 h, 8 tries. With the default first delay the
 * waits are 5 s, 30 s, 3 min, 18 min, 1 h 48 min, 10 h and 10 h (docs/api.md).
 */
import { log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ChainStatus } from '../chains/chain';
import type { MessageStatus } from '../messages/message';

export interface NotifyCallerInput {
  url: string;
  retry_initial_ms: number;
  /** A message's final status, or a chain's. */
  status: MessageStatus | ChainStatus;
}

/** The notification's retries, but the first delay (the api's CALLER_WEBHOOK_RETRY_INITIAL_MS, in the input). */
export const NOTIFY_RETRY = {
  backoffCoefficient: 6,
  maximumIntervalMs: 10 * 60 * 60 * 1000,
  maximumAttempts: 8,
} as const;

export async function notifyCallerWorkflow(input: NotifyCallerInput): Promise<{ delivered: boolean }> {
  const { notifyCaller } = proxyActivities<Activities>({
    startToCloseTimeout: '30s',
    retry: {
      initialInterval: input.retry_initial_ms,
      backoffCoefficient: NOTIFY_RETRY.backoffCoefficient,
      maximumInterval: NOTIFY_RETRY.maximumIntervalMs,
      maximumAttempts: NOTIFY_RETRY.maximumAttempts,
      nonRetryableErrorTypes: ['NoCallerSecret', 'NotificationRefused'],
    },
  });
  try {
    // Who started this run, as Temporal says: the activity posts only for a message run of the gateway's.
    const { parent, startTime } = workflowInfo();
    await notifyCaller({
      url: input.url,
      status: input.status,
      run_started_at: startTime.toISOString(),
      ...(parent ? { parent: { workflow_id: parent.workflowId, run_id: parent.runId } } : {}),
    });
    return { delivered: true };
  } catch (error) {
    const { status } = input;
    const id =
      'message_id' in status
        ? { message_id: status.message_id, trace_id: status.trace_id }
        : { chain_id: status.chain_id };
    log.warn('reply_to: the caller was not told of the end (every attempt failed or the post was refused)', {
      ...id,
      url_host: hostOf(input.url),
      error: (error as Error)?.message ?? String(error),
    });
    return { delivered: false };
  }
}

/** The host alone: a reply_to URL may carry a token in its path or query, which the log must not keep. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch (error) {
    return `(not a URL: ${(error as Error).message})`;
  }
}
