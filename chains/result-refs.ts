/**
 * Which results a chain keeps and which it keeps by reference. A chain's status travels whole through Temporal: the
 * status query, the run's result, the `reply_to` notification's input, a continue-as-new's input; each must stay
 * well under Temporal's 2 MB per payload. So the status keeps a result inline only up to a cap that leaves every
 * message of the chain room within 1 MiB; a larger result stays in its message (`GET /v1/messages/<id>` serves it)
 * and the status shows where. Pure: safe in workflows.
 */
import type { ResultRef } from './chain';
import { jsonSize } from './mapped-size';

/** Most bytes of JSON one result may take and still be kept in the chain's status. */
export const MAX_INLINE_RESULT_BYTES = 16 * 1024;
/** Most bytes of JSON all results kept inline take together. */
export const CHAIN_INLINE_RESULTS_BYTES = 1024 * 1024;

/** The cap of one inline result for a chain that sends at most `messageCount` messages (steps and compensations). */
export function inlineResultCap(messageCount: number): number {
  return Math.min(MAX_INLINE_RESULT_BYTES, Math.floor(CHAIN_INLINE_RESULTS_BYTES / Math.max(1, messageCount)));
}

/** A message's result as the chain's status keeps it: itself when small enough, else a reference to its message. */
export function keptResult(
  messageId: string,
  result: unknown,
  cap: number,
): { result?: unknown } | { result_ref: ResultRef } {
  if (result === undefined) return {};
  const bytes = jsonSize(result);
  return bytes <= cap ? { result } : { result_ref: { message_id: messageId, bytes } };
}
