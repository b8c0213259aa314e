/** The benchmark's caller workflows: one message as a child workflow (same namespace) or through Nexus (another). */
import { executeMessageChild, sendMessageViaNexus } from '../../client/workflow';
import type { SendMessageInput } from '../../messages/direct';

export async function childCaller(input: SendMessageInput, gatewayTaskQueue: string): Promise<string> {
  return (await executeMessageChild(input, { taskQueue: gatewayTaskQueue })).state;
}

export async function nexusCaller(input: SendMessageInput, endpoint: string): Promise<string> {
  return (await sendMessageViaNexus(endpoint, input)).state;
}
