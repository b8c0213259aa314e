/**
 * Temporal-native callers (not needed by agents, so not in `index.ts`): send a message from a `@temporalio/client`
 * Client. From workflow code, import `../client/workflow` instead (it uses only `@temporalio/workflow`).
 */
export { executeMessage, sendMessage, type SendMessageInput, type SendMessageOptions, type StartedMessage } from '../client/temporal';
