/** The benchmark's caller workflows: one message as a child workflow (same namespace) or through Nexus (another). */
import { executeMessageChild, sendMessageViaNexus } from '../../temporal-callers/in-workflow';
import type { SendMessageInput } from '../../temporal-callers/contract';
import type { MessageStatus } from '../../messages/message';

export async function childCaller(input: SendMessageInput, gatewayTaskQueue: string): Promise<MessageStatus> {
  return executeMessageChild(input, { taskQueue: gatewayTaskQueue });
}

export async function nexusCaller(input: SendMessageInput, endpoint: string): Promise<MessageStatus> {
  return sendMessageViaNexus(endpoint, input);
}
