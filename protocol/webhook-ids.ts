/**
 * The `webhook-id` of each notification the gateway sends. Standard Webhooks asks for an id unique to each message
 * and the same on every retry of it, so that a receiver may de-duplicate on it:
 * - a delivery: the message id (every attempt and redelivery of a message is the same notification);
 * - the cancel notice to the agent: `<message id>/cancelled`;
 * - the `reply_to` notice to the caller: `<message id>/ended/<when it ended>` (a redriven message that ends again
 *   is a new notice).
 * Message ids cannot contain `/`, so no notice's id is ever another message's delivery id.
 */
export function cancelWebhookId(messageId: string): string {
  return `${messageId}/cancelled`;
}

/** A chain's `reply_to` notice: `<chain id>/chain-ended/<when it ended>` (never a message's `…/ended/…`). */
export function chainEndedWebhookId(status: { chain_id: string; ended_at?: string; started_at: string }): string {
  return `${status.chain_id}/chain-ended/${status.ended_at ?? status.started_at}`;
}

/** `status` is the message's final status (messages/message.ts `MessageStatus`). */
export function endedWebhookId(status: { message_id: string; completed_at?: string; updated_at: string }): string {
  return `${status.message_id}/ended/${status.completed_at ?? status.updated_at}`;
}
