/**
 * A simulated agent behind Agent-Reach, built with our SDK (signature check, de-duplication by message id in a
 * file that survives a restart, 202 then a receipt via /v1/callback). Its handler does the hop's work, then sends
 * the next hop through the gateway as a child message (same trace, `parent_message_id`, a message id derived from
 * the logical key so a resend is idempotent).
 *
 * A `lose_receipt` fault is applied where the receipt travels: this process's fetch drops every /v1/callback for
 * that message, so the gateway never hears back and must redeliver after the ack timeout.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { ReachAgent, type AgentCard, type Delivery } from '../../sdk';
import { sendHop } from '../lib/gateway';
import { appendEvent } from '../lib/ledger';
import { CAPABILITY, hopMessageId, nextRole, type Role } from '../lib/pipeline';
import type { AgentConfig } from './config';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Makes this process's fetch lose the receipts of the given message ids, as a lossy network would. */
function loseReceiptsOf(lost: Set<string>): void {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    if (String(input).endsWith('/v1/callback') && typeof init?.body === 'string') {
      const { message_id } = JSON.parse(init.body) as { message_id: string };
      if (lost.has(message_id)) return Promise.reject(new TypeError('fetch failed: receipt lost by the fault layer'));
    }
    return realFetch(input, init);
  };
}

function keyOf(messageId: string, role: Role): string {
  return messageId.slice(0, -(role.length + 1));
}

export async function startReachAgent(config: AgentConfig, ledger: string) {
  const { role } = config;
  const capability: AgentCard['capabilities'][number] & { max_attempts?: number; max_delivery_ms?: number } = {
    name: CAPABILITY[role],
    ...(config.ackTimeoutMs ? { ack_timeout_ms: config.ackTimeoutMs } : {}),
    ...(config.maxAttempts ? { max_attempts: config.maxAttempts } : {}),
    ...(config.maxDeliveryMs ? { max_delivery_ms: config.maxDeliveryMs } : {}),
  };
  const agent = new ReachAgent({
    gateway: config.gateway!,
    endpoint: `http://127.0.0.1:${config.port}/`,
    identityFile: join(config.dir, `${role}.identity.json`),
    inlineMs: 0, // the seed's protocol: answer 202, then send the receipt
    card: { name: config.name, capabilities: [capability] },
    // Registration needs a key with the register scope (the agent's own secret afterwards).
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
  });
  await agent.register();
  agent.startHeartbeats();
  const lostReceipts = new Set<string>();
  loseReceiptsOf(lostReceipts);
  const next = nextRole(role);

  const sdkHandler = agent.httpHandler(async (delivery: Delivery) => {
    const { key } = delivery.payload as { key: string };
    await sleep(config.workMs);
    appendEvent(ledger, { type: 'effect', role, key, at: Date.now() });
    if (next) {
      const status = await sendHop({
        gateway: config.gateway!,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        messageId: hopMessageId(key, next),
        agentId: config.nextAgentId!,
        capability: CAPABILITY[next],
        payload: { key },
        parentMessageId: delivery.message_id,
        traceId: delivery.trace_id,
      });
      if (status === undefined || status >= 300)
        throw Object.assign(new Error(`next hop not accepted (${status})`), { retryable: true });
    }
    return { role };
  });

  const handler = (req: IncomingMessage, res: ServerResponse, loseReceipt: boolean) => {
    const messageId = String(req.headers['idempotency-key'] ?? '');
    if (messageId)
      appendEvent(ledger, { type: 'delivery', role, key: keyOf(messageId, role), id: messageId, at: Date.now() });
    if (loseReceipt && messageId) lostReceipts.add(messageId);
    sdkHandler(req, res);
  };
  return { agentId: agent.identity!.agent_id, handler };
}
