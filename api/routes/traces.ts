import { Router } from 'express';
import type { Config } from '../../platform/config';
import { requireCaller } from '../caller-auth';
import { ApiError } from '../errors';
import type { MessageService } from '../../messages/message-service';
import { traceParams } from '../schemas';
import { parseInput } from '../validate';
import { messageLinks } from './messages';

/** `GET /v1/traces/:trace_id`: every message of a trace (one per hop), oldest first, linked by parent_message_id. */
export function traceRoutes(deps: { messages: MessageService; config: Config }): Router {
  const router = Router();
  router.get('/v1/traces/:trace_id', async (req, res) => {
    const { tenant } = requireCaller(res, 'read');
    const { trace_id } = parseInput(traceParams, req.params, 'params');
    const runs = await deps.messages.list(tenant, { trace_id, limit: 500 });
    if (runs.length === 0) throw new ApiError(404, 'trace_not_found', `No message carries trace ${trace_id}`);
    const statuses = await Promise.all(
      runs.map((run) => deps.messages.get(tenant, run.message_id).catch(() => undefined)),
    );
    const hops = statuses
      .filter((s) => s !== undefined)
      .sort((a, b) => a.accepted_at.localeCompare(b.accepted_at))
      .map((s) => ({
        message_id: s.message_id,
        ...(s.parent_message_id ? { parent_message_id: s.parent_message_id } : {}),
        state: s.state,
        ...(s.reason ? { reason: s.reason } : {}),
        agent_id: s.agent?.agent_id ?? s.target.agent_id,
        capability: s.target.capability,
        attempts: s.attempts.length,
        accepted_at: s.accepted_at,
        ...(s.completed_at
          ? { completed_at: s.completed_at, duration_ms: Date.parse(s.completed_at) - Date.parse(s.accepted_at) }
          : {}),
        links: messageLinks(deps.config, tenant, s.message_id),
      }));
    res.json({ trace_id, messages: hops });
  });
  return router;
}
