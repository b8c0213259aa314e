/**
 * Temporal-native callers over Nexus: the Nexus service `agentReach` and its operation `sendMessage`, the same
 * operation as the `sendMessage` workflow, so that workflows in other namespaces can call it through a Nexus
 * endpoint. Names and types only (safe to import from workflows and from callers' workflow bundles); the handler is
 * in `handler.ts` beside it, on the message worker.
 */
import * as nexus from 'nexus-rpc';
import type { SendMessageInput } from '../contract';
import type { MessageStatus } from '../../messages/message';

/** The Nexus service's name, as a caller in another SDK names it. */
export const NEXUS_SERVICE = 'agentReach';

/**
 * The operation's input: the `sendMessage` workflow's, where `tenant` may be left out (the endpoint's tenant) and
 * `message_id` too (the Nexus request id makes one).
 */
export type NexusSendInput = Omit<SendMessageInput, 'tenant'> & { tenant?: string };

/** Input: see {@link NexusSendInput}. Output: the final status. */
export const agentReachService = nexus.service(NEXUS_SERVICE, {
  sendMessage: nexus.operation<NexusSendInput, MessageStatus>(),
});
