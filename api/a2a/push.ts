/**
 * `POST /a2a/push/:agent_id/:message_id`: where A2A agents post push notifications about the task of a message
 * delivered to them (docs/a2a.md, "Following a task"). The token of that message (`X-A2A-Notification-Token`,
 * rules/a2a-push.ts) is the credential; no API key. What the notification says is not taken as the outcome: it wakes
 * the run, which reads the task with GetTask at once, so a forged or stale notification changes nothing.
 */
import { Router } from 'express';
import type { Catalogue } from '../../catalogue/catalogue';
import type { MessageService } from '../../messages/message-service';
import { PUSH_TOKEN_HEADER, pushTokenMatches } from '../../rules/a2a-push';
import { ApiError } from '../errors';
import { pushParams } from '../schemas';
import { parseInput } from '../validate';

export function a2aPushRoutes(deps: { catalogue: Pick<Catalogue, 'queries'>; messages: Pick<MessageService, 'a2aTaskChanged'> }): Router {
  const router = Router();
  router.post('/a2a/push/:agent_id/:message_id', async (req, res) => {
    const { agent_id, message_id } = parseInput(pushParams, req.params, 'params');
    const agent = await deps.catalogue.queries.agentRecord(agent_id);
    const secrets = agent ? await deps.catalogue.queries.signingSecrets(agent_id) : [];
    if (!agent || !pushTokenMatches(req.get(PUSH_TOKEN_HEADER), secrets, agent_id, message_id)) {
      throw new ApiError(401, 'invalid_push_token', `${PUSH_TOKEN_HEADER} is not the token given with message ${message_id}`);
    }
    if (!(await deps.messages.a2aTaskChanged(agent.tenant, message_id))) {
      throw new ApiError(404, 'message_not_found', `No message ${message_id} is under way`);
    }
    res.status(200).json({ received: true });
  });
  return router;
}
