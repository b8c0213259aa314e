/** An agent's receipt for a message it was delivered: handed to the run, which applies the first one only. */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { AgentDoc } from '../store/agents';
import type { ReceiptInput, ReceiptOutcome } from './message';
import type { MessageRuns } from './runs';
import { receiptUpdate } from './temporal';

/** What the agent posts (validated by the api): the receipt, and which message it is for. */
export type ReceiptBody = Omit<ReceiptInput, 'agent_id'> & { message_id: string };

export type ReceiptResult =
  { kind: 'recorded'; outcome: ReceiptOutcome } | { kind: 'unknown_message' } | { kind: 'not_your_message' };

/**
 * Hands the receipt to the run. (The instance's circuit hears of it from the run itself when the message ends:
 * see activities/settle-message.ts.)
 */
export function recordReceipt(runs: MessageRuns, agent: AgentDoc, body: ReceiptBody): Promise<ReceiptResult> {
  return applyReceipt(runs, agent, body);
}

async function applyReceipt(runs: MessageRuns, agent: AgentDoc, body: ReceiptBody): Promise<ReceiptResult> {
  try {
    const outcome = await runs.handle(agent.tenant, body.message_id).executeUpdate(receiptUpdate, {
      args: [
        {
          agent_id: agent._id,
          status: body.status,
          ...(body.result === undefined ? {} : { result: body.result }),
          ...(body.error ? { error: body.error } : {}),
          ...(body.input ? { input: body.input } : {}),
          ...(body.turn === undefined ? {} : { turn: body.turn }),
        },
      ],
    });
    return { kind: 'recorded', outcome };
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) return { kind: 'not_your_message' };
    return receiptForEndedRun(runs, agent, body.message_id, error);
  }
}

/** The update could not reach a running workflow: the message is unknown, or over and the receipt changes nothing. */
async function receiptForEndedRun(
  runs: MessageRuns,
  agent: AgentDoc,
  messageId: string,
  cause: unknown,
): Promise<ReceiptResult> {
  const description = await runs.describe(agent.tenant, messageId);
  if (!description) return { kind: 'unknown_message' };
  if (description.status.name === 'RUNNING') throw cause;
  const status = await runs.statusOf(agent.tenant, messageId, description);
  if (status.agent?.agent_id !== agent._id) return { kind: 'not_your_message' };
  return { kind: 'recorded', outcome: { applied: false, state: status.state } };
}
