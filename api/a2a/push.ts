/**
 * `POST /a2a/push/:agent_id/:message_id`: where A2A agents post push notifications about the task of a message
 * delivered to them (docs/a2a.md, "Following a task"). The token of that message (`X-A2A-Notification-Token`,
 * rules/a2a-push.ts) is the credential; no API key. What the notification says is not taken as the outcome: it wakes
 * the run, which reads the task with GetTask at once, so a forged or stale notification changes nothing.
 *
 * The token is an HMAC under the agent's own signing secret, so an agent could mint one for any message id: the run
 * is woken only when the message is under way and was sent to that very agent (its run's target), else 404 as for
 * no message. Each wake-up is an event in the run's history, so they are limited per message (PUSHES_PER_MESSAGE),
 * and requests per client address before the token is checked (api/client-limit.ts).
 */
import { Router } from 'express';
import type { Catalogue } from '../../catalogue/catalogue';
import type { MessageService } from '../../messages/message-service';
import { PUSH_TOKEN_HEADER, pushTokenMatches } from '../../rules/a2a-push';
import { RateLimiter, type RateLimit } from '../../util/rate-limiter';
import { refuseWhenSpent, type ClientLimit } from '../client-limit';
import { ApiError } from '../errors';
import { pushParams } from '../schemas';
import { parseInput } from '../validate';

/**
 * Wake-ups one message's run may get from pushes: 10 at once, then one per 5 s (a run ends at 10,000 signals; this
 * takes over 13 hours to reach). More are answered 429: the run reads its task on its own schedule anyway.
 */
export const PUSHES_PER_MESSAGE: RateLimit = { perSecond: 0.2, burst: 10 };

export function a2aPushRoutes(deps: {
  catalogue: Pick<Catalogue, 'queries'>;
  messages: Pick<MessageService, 'a2aTaskChanged'>;
  clients: ClientLimit;
  now?: () => number;
}): Router {
  const router = Router();
  const perMessage = new RateLimiter(PUSHES_PER_MESSAGE, deps.now);
  router.post('/a2a/push/:agent_id/:message_id', deps.clients.chargeEvery(), async (req, res) => {
    const { agent_id, message_id } = parseInput(pushParams, req.params, 'params');
    const agent = await deps.catalogue.queries.agentRecord(agent_id);
    const secrets = agent ? await deps.catalogue.queries.signingSecrets(agent_id) : [];
    if (!agent || !pushTokenMatches(req.get(PUSH_TOKEN_HEADER), secrets, agent_id, message_id)) {
      throw new ApiError(
        401,
        'invalid_push_token',
        `${PUSH_TOKEN_HEADER} is not the token given with message ${message_id}`,
      );
    }
    refuseWhenSpent(res, perMessage.take(`${agent.tenant}\n${message_id}`), `for message ${message_id}`);
    if (!(await deps.messages.a2aTaskChanged(agent.tenant, message_id, agent_id))) {
      throw new ApiError(404, 'message_not_found', `No message ${message_id} sent to agent ${agent_id} is under way`);
    }
    res.status(200).json({ received: true });
  });
  return router;
}
