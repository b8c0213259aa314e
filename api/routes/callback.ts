import { Router } from 'express';
import type { AgentStore } from '../../catalogue/agent-store';
import type { ApiMetrics } from '../../platform/metrics';
import { agentBySecret } from '../agent-auth';
import { ApiError } from '../errors';
import { requireStoredSize } from '../stored-size';
import type { MessageService } from '../../messages/message-service';
import { callbackBody } from '../../protocol/receipt';
import { parseInput } from '../validate';

/** `POST /v1/callback`: the agent's processed (or failed) receipt. Repeats change nothing and say so. */
export function callbackRoutes(deps: {
  agents: AgentStore;
  messages: MessageService;
  metrics: ApiMetrics;
  maxPayloadBytes: number;
}): Router {
  const router = Router();
  router.post('/v1/callback', async (req, res) => {
    const agent = await agentBySecret(req, deps.agents, { cached: true });
    const body = parseInput(callbackBody, req.body, 'body');
    requireStoredSize({ result: body.result, error: body.error }, deps.maxPayloadBytes);
    const result = await deps.messages.receipt(agent, body);
    deps.metrics.receipts.inc({
      result: result.kind === 'recorded' ? (result.outcome.applied ? 'applied' : 'duplicate') : 'refused',
    });
    switch (result.kind) {
      case 'unknown_message':
        throw new ApiError(404, 'message_not_found', `No message ${body.message_id}`);
      case 'not_your_message':
        throw new ApiError(403, 'not_your_message', 'This message was not delivered to the agent sending the receipt');
      case 'recorded':
        res.json({
          message_id: body.message_id,
          applied: result.outcome.applied,
          duplicate: !result.outcome.applied,
          state: result.outcome.state,
        });
    }
  });
  return router;
}
