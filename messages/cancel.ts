/** Cancelling a message on the caller's word: the run ends `cancelled` unless it already ended. */
import { cancelUpdate } from './temporal';
import type { MessageState } from './message';
import type { MessageRuns } from './runs';

export type CancelResult =
  { kind: 'cancelled' } | { kind: 'already_ended'; state: MessageState } | { kind: 'unknown_message' };

export async function cancelMessage(
  runs: MessageRuns,
  tenant: string,
  messageId: string,
  reason?: string,
): Promise<CancelResult> {
  try {
    const outcome = await runs
      .handle(tenant, messageId)
      .executeUpdate(cancelUpdate, { args: [reason ? { reason } : {}] });
    return outcome.cancelled ? { kind: 'cancelled' } : { kind: 'already_ended', state: outcome.state };
  } catch (error) {
    const description = await runs.describe(tenant, messageId);
    if (!description) return { kind: 'unknown_message' };
    if (description.status.name === 'RUNNING') throw error;
    return { kind: 'already_ended', state: (await runs.statusOf(tenant, messageId, description)).state };
  }
}
