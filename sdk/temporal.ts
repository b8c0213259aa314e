/**
 * Temporal-native callers (not needed by agents, so not in `index.ts`): send a message from a `@temporalio/client`
 * Client, or a chain of them. From workflow code, import `../client/workflow` instead (it uses only `@temporalio/workflow`).
 */
export { executeMessage, sendMessage, type SendMessageInput, type SendMessageOptions, type StartedMessage } from '../client/temporal';
export { chainAsKey, executeChain, startChain, type ChainRequest, type ChainStatus, type StartedChain } from '../client/chain';
