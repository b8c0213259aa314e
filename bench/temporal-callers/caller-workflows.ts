/** The benchmark's caller workflows: one message as a child workflow (same namespace) or through Nexus (another). */
import { executeMessageChild, sendMessageViaNexus } from '../../client/workflow';
import type { SendMessageInput } from '../../messages/direct';
import type { MessageStatus } from '../../messages/message';

export async function childCaller(input: SendMessageInput, gatewayTaskQueue: string): Promise<MessageStatus> {
  return executeMessageChild(input, { taskQueue: gatewayTaskQueue });
}

export async function nexusCaller(input: SendMessageInput, endpoint: string): Promise<MessageStatus> {
  return sendMessageViaNexus(endpoint, input);
}
