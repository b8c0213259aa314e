import { Router } from 'express';
import type { Config } from '../../platform/config';
import type { ApiMetrics } from '../../platform/metrics';
import type { Logger } from 'pino';
import type { MessageStatus } from '../../messages/message';
import { messageWorkflowId } from '../../messages/temporal';
import { callerIdOf, hasScope, type Caller } from '../../rules/api-key';
import { requireCaller } from '../caller-auth';
import type { EndpointGuard } from '../endpoint-check';
import { ApiError } from '../errors';
import { intakeRefusal, intakeStatus, type IntakeRefusal } from '../../messages/intake-refusals';
import type { SendRequest, SendResult } from '../../messages/intake';
import type { MessageService } from '../../messages/message-service';
import {
  cancelBody,
  listMessagesQuery,
  messageIdParams,
  redriveBody,
  replyBody,
  sendMessageBody,
  sendMessageQuery,
} from '../schemas';
import { requireStoredSize } from '../stored-size';
import { traceIdOf } from '../trace';
import { parseInput } from '../validate';

export function messageLinks(config: Config, tenant: string, messageId: string) {
  const workflowId = encodeURIComponent(messageWorkflowId(tenant, messageId));
  return {
    self: `${config.PUBLIC_URL}/v1/messages/${encodeURIComponent(messageId)}`,
    ...(config.TEMPORAL_UI_URL
      ? {
          temporal_ui: `${config.TEMPORAL_UI_URL.replace(/\/$/, '')}/namespaces/${config.TEMPORAL_NAMESPACE}/workflows/${workflowId}`,
        }
      : {}),
  };
}

/** Maps each send outcome to its HTTP answer, in one place (the MCP face maps its refusals through it too). */
/** An intake refusal as the api answers it: its one code, with the HTTP status of the table. */
function intakeError(refusal: IntakeRefusal): ApiError {
  return new ApiError(intakeStatus(refusal.code), refusal.code, refusal.message, refusal.details);
}

export function sendAnswer(
  result: SendResult,
  withLinks: (s: MessageStatus) => object,
  caller: Caller,
): { status: number; body: object } {
  switch (result.kind) {
    case 'accepted':
      return { status: 202, body: withLinks(result.status) };
    case 'duplicate':
      return { status: 200, body: withLinks(result.status) };
    case 'conflict':
    case 'unknown_agent':
    case 'unknown_capability':
      throw intakeError(intakeRefusal(result));
    case 'refused':
      throw intakeError(result.refusal);
    case 'forbidden': {
      // Why (which scope or key would do) is for the tenant's admins only.
      const refusal = intakeRefusal(result);
      throw new ApiError(
        intakeStatus(refusal.code),
        refusal.code,
        refusal.message,
        hasScope(caller, 'admin') ? { reason: result.reason } : undefined,
      );
    }
    case 'rejected': {
      // Recorded as a rejected message (GET shows it); the caller learns at once, with the router's reasons.
      const reason = result.status.reason!;
      throw new ApiError(422, reason.code, reason.message, {
        message_id: result.status.message_id,
        state: result.status.state,
        ...(reason.missing ? { missing: reason.missing } : {}),
        routing: result.explanation,
      });
    }
  }
}

/**
 * Intake as every caller face does it (`POST /v1/messages`, the MCP and A2A faces): the send, through the checks of
 * every way in (messages/intake-checks.ts), and its metrics and log line. The body is already validated; the caller
 * holds the `send` scope.
 */
export async function acceptMessage(
  deps: { messages: MessageService; config: Config; metrics: ApiMetrics; logger: Logger; endpoints: EndpointGuard },
  caller: Caller,
  body: SendRequest,
  traceId: string,
): Promise<SendResult> {
  const result = await deps.messages.send(caller, body, traceId, deps.endpoints);
  if (result.kind === 'accepted' || result.kind === 'rejected') {
    const routing = result.status.routing;
    if (routing)
      deps.metrics.routingDecisions.inc({
        outcome: result.kind === 'rejected' ? result.status.reason!.code : 'routed',
        stage: routing.decided_by,
        dry_run: 'false',
      });
  }
  deps.metrics.messagesSent.inc({
    result: ['accepted', 'duplicate', 'conflict'].includes(result.kind) ? result.kind : 'refused',
  });
  if (result.kind === 'accepted' || result.kind === 'duplicate') {
    const { message_id, trace_id } = result.status;
    const { agent_id, capability } = result.status.target;
    const eager = result.kind === 'accepted' && result.eagerly_started ? { eagerly_started: true } : {};
    deps.logger.info(
      {
        message_id,
        trace_id,
        caller: callerIdOf(caller),
        agent_id,
        capability,
        routed: Boolean(result.status.routing),
        result: result.kind,
        ...eager,
      },
      'message sent',
    );
  }
  return result;
}

interface MessageRoutesDeps {
  messages: MessageService;
  config: Config;
  metrics: ApiMetrics;
  logger: Logger;
  endpoints: EndpointGuard;
}

/** A message's status with its links. */
function withLinksOf(config: Config) {
  return (status: MessageStatus) => ({ ...status, links: messageLinks(config, status.tenant, status.message_id) });
}

/** `POST /v1/messages`: send, and with `wait` hold the request until the message ends. */
function addSendRoute(router: Router, deps: MessageRoutesDeps): void {
  const withLinks = withLinksOf(deps.config);
  router.post('/v1/messages', async (req, res) => {
    const caller = requireCaller(res, 'send');
    const tenant = caller.tenant;
    const { wait } = parseInput(sendMessageQuery, req.query, 'query');
    const body = parseInput(sendMessageBody, req.body, 'body');
    const result = await acceptMessage(deps, caller, body, traceIdOf(req));
    const answer = sendAnswer(result, withLinks, caller);
    if (result.kind === 'accepted') res.location(`/v1/messages/${encodeURIComponent(result.status.message_id)}`);
    // Sync mode: hold the request until the message ends (200 with its final status) or the wait runs out (202).
    if (wait && (result.kind === 'accepted' || result.kind === 'duplicate')) {
      const ended = await deps.messages.waitForEnd(tenant, result.status.message_id, wait);
      if (ended) {
        res.status(200).json(withLinks(ended));
        return;
      }
      if (result.kind === 'duplicate') {
        res.status(202).json(withLinks((await deps.messages.get(tenant, result.status.message_id)) ?? result.status));
        return;
      }
    }
    res.status(answer.status).json(answer.body);
  });
}

/** `POST /v1/messages/:message_id/cancel`. */
function addCancelRoute(router: Router, deps: MessageRoutesDeps): void {
  router.post('/v1/messages/:message_id/cancel', async (req, res) => {
    const { tenant } = requireCaller(res, 'send');
    const { message_id } = parseInput(messageIdParams, req.params, 'params');
    const body = parseInput(cancelBody, req.body, 'body');
    const result = await deps.messages.cancel(tenant, message_id, body?.reason);
    switch (result.kind) {
      case 'unknown_message':
        throw new ApiError(404, 'message_not_found', `No message ${message_id}`);
      case 'already_ended':
        throw new ApiError(409, 'already_ended', `Message ${message_id} already ended as ${result.state}`, {
          state: result.state,
        });
      case 'cancelled':
        res.json({ message_id, cancelled: true, state: 'cancelled' });
    }
  });
}

/** `POST /v1/messages/:message_id/reply`: the caller answers the agent's question. */
function addReplyRoute(router: Router, deps: MessageRoutesDeps): void {
  const withLinks = withLinksOf(deps.config);
  router.post('/v1/messages/:message_id/reply', async (req, res) => {
    const { tenant } = requireCaller(res, 'send');
    const { message_id } = parseInput(messageIdParams, req.params, 'params');
    const body = parseInput(replyBody, req.body, 'body');
    requireStoredSize(
      { params: body.params, payload: body.payload, answers: body.answers },
      deps.config.MAX_PAYLOAD_BYTES,
    );
    const result = await deps.messages.reply(tenant, message_id, body);
    switch (result.kind) {
      case 'unknown_message':
        throw new ApiError(404, 'message_not_found', `No message ${message_id}`);
      case 'not_waiting':
        throw new ApiError(
          409,
          'not_waiting_for_input',
          `Message ${message_id} is ${result.state}, not waiting for input`,
          { state: result.state },
        );
      case 'invalid':
        throw new ApiError(
          400,
          'invalid_request',
          'The reply does not fit the questions of the agent (their keys, or their schemas)',
          result.issues,
        );
      case 'replied': {
        const status = await deps.messages.get(tenant, message_id);
        if (!status) throw new ApiError(404, 'message_not_found', `No message ${message_id}`);
        res.status(202).json(withLinks(status));
      }
    }
  });
}

/** `POST /v1/messages/:message_id/redrive`: a failed or expired message sent again. */
function addRedriveRoute(router: Router, deps: MessageRoutesDeps): void {
  const withLinks = withLinksOf(deps.config);
  router.post('/v1/messages/:message_id/redrive', async (req, res) => {
    const caller = requireCaller(res, 'send');
    const { message_id } = parseInput(messageIdParams, req.params, 'params');
    const body = parseInput(redriveBody, req.body, 'body');
    if (body?.deadline && Date.parse(body.deadline) <= Date.now())
      throw new ApiError(422, 'deadline_passed', 'The deadline is already past');
    const result = await deps.messages.redrive(caller, message_id, body?.deadline);
    switch (result.kind) {
      case 'unknown_message':
        throw new ApiError(404, 'message_not_found', `No message ${message_id}`);
      case 'refused':
        // Answered as a send to the same target (sendAnswer throws for every refusal): 403 capability_forbidden, 404, 422.
        sendAnswer(result.refusal, withLinks, caller);
        return;
      case 'not_redrivable':
        throw new ApiError(
          409,
          'not_redrivable',
          `Only failed or expired messages can be redriven; ${message_id} is ${result.state}`,
          {
            state: result.state,
          },
        );
      case 'redriven':
        res.status(202).json(withLinks(result.status));
    }
  });
}

/** The tenant's messages, and one message's status. */
function addReadRoutes(router: Router, deps: MessageRoutesDeps): void {
  const withLinks = withLinksOf(deps.config);
  router.get('/v1/messages', async (req, res) => {
    const { tenant } = requireCaller(res, 'read');
    const filter = parseInput(listMessagesQuery, req.query, 'query');
    res.json({ items: await deps.messages.list(tenant, filter) });
  });

  router.get('/v1/messages/:message_id', async (req, res) => {
    const { tenant } = requireCaller(res, 'read');
    const { message_id } = parseInput(messageIdParams, req.params, 'params');
    const status = await deps.messages.get(tenant, message_id);
    if (!status) throw new ApiError(404, 'message_not_found', `No message ${message_id}`);
    res.json(withLinks(status));
  });
}

export function messageRoutes(deps: MessageRoutesDeps): Router {
  const router = Router();
  addSendRoute(router, deps);
  addCancelRoute(router, deps);
  addReplyRoute(router, deps);
  addRedriveRoute(router, deps);
  addReadRoutes(router, deps);
  return router;
}
