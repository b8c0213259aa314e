/**
 * Posts a message's final status to the caller's `reply_to` URL until it answers 2xx, on a widening schedule like
 * Svix's: about 5 s, 30 s, 3 min, 18 min, 2 h, then every 10 h, 8 attempts in all (with the default first delay).
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

export async function notifyCallerWorkflow(input: NotifyCallerInput): Promise<{ delivered: boolean }> {
  const { notifyCaller } = proxyActivities<Activities>({
    startToCloseTimeout: '30s',
    retry: {
      initialInterval: input.retry_initial_ms,
      backoffCoefficient: 6,
      maximumInterval: '10h',
      maximumAttempts: 8,
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
    const id = 'message_id' in status ? { message_id: status.message_id, trace_id: status.trace_id } : { chain_id: status.chain_id };
    log.warn('reply_to: the caller was not told of the end (every attempt failed or the post was refused)', { ...id, url_host: hostOf(input.url), error: (error as Error)?.message ?? String(error) });
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
