/**
 * Temporal-native callers over Nexus: the Nexus service `agentReach` and its operation `sendMessage`, the same
 * operation as the `sendMessage` workflow, so that workflows in other namespaces can call it through a Nexus
 * endpoint. Names and types only (safe to import from workflows and from callers' workflow bundles); the handler is
 * in `nexus/handler.ts`, on the message worker.
 */
import * as nexus from 'nexus-rpc';
import type { SendMessageInput } from '../messages/direct';
import type { MessageStatus } from '../messages/message';

/** The Nexus service's name, as a caller in another SDK names it. */
export const NEXUS_SERVICE = 'agentReach';

/** Input: the `sendMessage` workflow's (`message_id` may be left out: the Nexus request id makes one). Output: the final status. */
export const agentReachService = nexus.service(NEXUS_SERVICE, {
  sendMessage: nexus.operation<SendMessageInput, MessageStatus>(),
});
