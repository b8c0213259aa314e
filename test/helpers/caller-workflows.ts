/** A caller's own workflow, on its own task queue, that sends a message through Agent-Reach as a child workflow. */
import { executeMessageChild } from '../../client/workflow';
import type { SendMessageInput } from '../../messages/direct';

export async function callerWorkflow(input: SendMessageInput, gatewayTaskQueue: string): Promise<{ state: string; result: unknown; message_id: string }> {
  const status = await executeMessageChild(input, { taskQueue: gatewayTaskQueue });
  return { state: status.state, result: status.result, message_id: status.message_id };
}
