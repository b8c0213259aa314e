/**
 * What one message of a chain (a step or a compensation) came to, as the chain's status records it, from the
 * message's final status. Pure: used by `runChain` and by the activities that await a step's message.
 */
import type { SentMessage } from './chain';
import type { MessageStatus } from '../messages/message';

/** A message's end as the chain records it; `started_at`/`ended_at` when the one who saw it knows them. */
export type ChainSent = Omit<SentMessage, 'message_id'>;

export function sentOf(ended: MessageStatus): ChainSent {
  const target = ended.agent ? { agent_id: ended.agent.agent_id, capability: ended.agent.capability } : ended.target;
  if (ended.state === 'processed') return { state: 'completed', result: ended.result, target };
  const reason = ended.reason ?? {
    code: ended.state,
    message: ended.error?.message ?? `the message ended ${ended.state}`,
  };
  return {
    state: ended.state === 'cancelled' ? 'cancelled' : 'failed',
    error: { code: reason.code, message: reason.message },
    target,
  };
}
