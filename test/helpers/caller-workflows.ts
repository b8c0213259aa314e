/** A caller's own workflows, on their own task queues, that send a message through Agent-Reach. */
import { createNexusClient } from '@temporalio/workflow';
import { executeMessageChild, sendMessageViaNexus } from '../../temporal-callers/in-workflow';
import type { SendMessageInput } from '../../temporal-callers/contract';
import { agentReachService } from '../../temporal-callers/nexus/service';

/** As a child workflow, in the gateway's namespace. */
export async function callerWorkflow(
  input: SendMessageInput,
  gatewayTaskQueue: string,
): Promise<{ state: string; result: unknown; message_id: string }> {
  const status = await executeMessageChild(input, { taskQueue: gatewayTaskQueue });
  return { state: status.state, result: status.result, message_id: status.message_id };
}

/** A caller's workflow in another namespace: the same message through the gateway's Nexus endpoint. */
export async function nexusCallerWorkflow(
  input: SendMessageInput,
  endpoint: string,
): Promise<{ state: string; result: unknown; message_id: string; trace_id: string }> {
  const status = await sendMessageViaNexus(endpoint, input);
  return { state: status.state, result: status.result, message_id: status.message_id, trace_id: status.trace_id };
}

/** As a caller with only the service's names would (another SDK): no helper, no message id. */
export async function bareNexusCallerWorkflow(
  input: Omit<SendMessageInput, 'message_id'>,
  endpoint: string,
): Promise<{ state: string; message_id: string }> {
  const status = await createNexusClient({ endpoint, service: agentReachService }).executeOperation(
    'sendMessage',
    input,
  );
  return { state: status.state, message_id: status.message_id };
}
