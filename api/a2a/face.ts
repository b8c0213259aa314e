/**
 * The A2A face (docs/a2a.md): Agent-Reach answering A2A as an agent, with the official SDK's JSON-RPC transport
 * (`@a2a-js/sdk/server/express`, v1.0 and v0.3 method names) over our own handler (handler.ts).
 *
 * - `POST /a2a`: the gateway — skills are the capabilities the key may reach, intents are routed over the tenant.
 * - `POST /a2a/agents/:agent_id`: one agent — its own skill ids (an imported agent's are those of its card), intents
 *   routed among its capabilities only. This is the interface of every card `GET /v1/agents/:id/agent-card.json` gives.
 * - Cards: `/.well-known/agent-card.json` and `/a2a/.well-known/agent-card.json` (the gateway's: public without a
 *   key, the key's with one), `/a2a/agents/:agent_id/.well-known/agent-card.json` (with a key).
 *
 * Requests carry an API key as a bearer token (identifyCaller has read it): none is HTTP 401, a key without the
 * method's scope 403, an unknown agent 404 — each with a JSON-RPC error body. Bodies are parsed here, so a body that
 * is not JSON is a JSON-RPC parse error, not our REST error.
 */
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { A2A_FACE_PATH, REST_PATH } from '../../catalogue/a2a';
import { hasScope } from '../../rules/api-key';
import type { ErrorCode } from '../../rules/error-codes';
import { callerOf, requireCaller } from '../caller-auth';
import { resourceMetadataUrl } from '../oauth-resource';
import { ApiError } from '../errors';
import { agentIdParams } from '../schemas';
import { parseInput } from '../validate';
import { publicAgentCard, publicGatewayCard, servedCard } from './cards';
import { KeyUser, ReachA2aHandler, type A2aDeps } from './handler';
import { jsonRpcHandler, restHandler } from './sdk';

/** Methods that send or cancel (the `send` scope); every other method reads (`read`). Both spec versions' names. */
const SEND_METHODS = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'CancelTask',
  'CreateTaskPushNotificationConfig',
  'DeleteTaskPushNotificationConfig',
  'message/send',
  'message/stream',
  'tasks/cancel',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/delete',
]);

/** A JSON-RPC error answered at the HTTP level, with our error code in an ErrorInfo detail. */
function rpcError(
  res: Response,
  httpStatus: number,
  rpcCode: number,
  code: ErrorCode,
  message: string,
  id: unknown = null,
): void {
  res.status(httpStatus).json({
    jsonrpc: '2.0',
    id: isRpcId(id) ? id : null,
    error: {
      code: rpcCode,
      message,
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: code.toUpperCase(),
          domain: 'agent-reach',
          metadata: { code },
        },
      ],
    },
  });
}

/** Why a call is refused before the handler: HTTP status, our code, a message. */
interface Refusal {
  status: number;
  code: ErrorCode;
  message: string;
}

/** The google.rpc.Status names of the HTTP statuses the face refuses with (HTTP+JSON binding, spec §11.6). */
const REST_STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
};

/** An HTTP+JSON error, in the SDK's form, with our error code in an ErrorInfo detail. */
function restError(res: Response, httpStatus: number, code: string, message: string): void {
  res.status(httpStatus).json({
    error: {
      code: httpStatus,
      status: REST_STATUS_NAMES[httpStatus] ?? 'UNKNOWN',
      message,
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: code.toUpperCase(),
          domain: 'agent-reach',
          metadata: { code },
        },
      ],
    },
  });
}

/**
 * The HTTP statuses of the spec's error table (§5.4) where the SDK (1.3) answers 400 instead: its REST errors carry
 * the A2A error's reason, which names the status.
 */
const SPEC_REST_STATUSES: Record<string, number> = {
  TASK_NOT_CANCELABLE: 409,
  CONTENT_TYPE_NOT_SUPPORTED: 415,
  INVALID_AGENT_RESPONSE: 502,
};

const specRestStatuses: RequestHandler = (_req, res, next) => {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const error = (body as { error?: { code?: unknown; details?: { reason?: unknown }[] } } | undefined)?.error;
    const reason = error?.details?.[0]?.reason;
    const status = typeof reason === 'string' ? SPEC_REST_STATUSES[reason] : undefined;
    if (!status || res.statusCode < 400) return json(body);
    res.status(status);
    return json({ ...(body as object), error: { ...error, code: status } });
  };
  next();
};

const restBodyErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  const type = (error as { type?: string })?.type;
  if (type === 'entity.parse.failed') return restError(res, 400, 'invalid_json', 'The body is not valid JSON');
  if (type === 'entity.too.large') return restError(res, 413, 'payload_too_large', 'The request body is too large');
  next(error);
};

const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;

/** A JSON-RPC id the answer may echo: a string, an integer or null. */
function isRpcId(id: unknown): id is string | number | null {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

/**
 * What makes a body a JSON-RPC 2.0 request (an object with `jsonrpc: "2.0"`, a string `method` and, when present, an
 * id that is a string, an integer or null), or why it is not. The SDK's v1.0 transport answers these -32602; JSON-RPC
 * and A2A say -32600 (Invalid Request), so the face checks them before the SDK sees the body.
 */
export function envelopeProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'The body must be one JSON-RPC request object (batches are not accepted)';
  const request = body as Record<string, unknown>;
  if (request.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('id' in request && !isRpcId(request.id)) return '"id" must be a string, an integer or null';
  if (typeof request.method !== 'string' || request.method === '') return '"method" must be a non-empty string';
  return undefined;
}

/** Only `POST` to the mount itself goes on to the SDK; anything else leaves this router (404 or 405 later). */
const onlyPostHere: RequestHandler = (req, _res, next) =>
  next(req.method === 'POST' && req.path === '/' ? undefined : 'router');

/** A body that is JSON but no JSON-RPC request: Invalid Request (-32600), HTTP 200 as every JSON-RPC error. */
const envelope: RequestHandler = (req, res, next) => {
  const problem = envelopeProblem(req.body);
  if (problem)
    return rpcError(
      res,
      200,
      INVALID_REQUEST,
      'invalid_request',
      `Invalid Request: ${problem}`,
      (req.body as { id?: unknown } | null)?.id,
    );
  next();
};

/** A JSON-RPC body that is not JSON, or too large, in JSON-RPC's error form. */
const bodyErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  const type = (error as { type?: string })?.type;
  if (type === 'entity.parse.failed')
    return rpcError(res, 200, PARSE_ERROR, 'invalid_json', 'Parse error: the body is not valid JSON');
  if (type === 'entity.too.large')
    return rpcError(res, 413, INVALID_REQUEST, 'payload_too_large', 'The request body is too large');
  next(error);
};

/**
 * The key (401), its scope for the call (403) and, at an agent's face, the agent (404): the caller as the handler
 * sees it, or why not (each binding answers that in its own error form).
 */
async function callerFor(
  deps: A2aDeps,
  req: Request,
  res: Response,
  scope: 'send' | 'read',
): Promise<KeyUser | Refusal> {
  const caller = callerOf(res);
  if (!caller) {
    // Where an issuer is configured, the challenge says where to learn which one (RFC 9728), as on /mcp.
    res.set(
      'www-authenticate',
      deps.config.AUTH_OIDC_ISSUER?.length
        ? `Bearer resource_metadata="${resourceMetadataUrl(deps.config, 'gateway')}"`
        : 'Bearer',
    );
    return { status: 401, code: 'unauthenticated', message: 'Send an API key as "Authorization: Bearer rk_…"' };
  }
  if (!hasScope(caller, scope))
    return { status: 403, code: 'insufficient_scope', message: `This API key lacks the "${scope}" scope` };
  const agentId = (req.params as { agent_id?: string }).agent_id;
  if (agentId === undefined) return new KeyUser(caller);
  const agent = agentIdParams.safeParse({ agent_id: agentId }).success
    ? (await deps.catalogue.queries.get(caller.tenant, agentId))?.agent
    : undefined;
  return agent ? new KeyUser(caller, agent) : { status: 404, code: 'agent_not_found', message: `No agent ${agentId}` };
}

/** JSON-RPC: the scope is the method's. */
function authorizeRpc(deps: A2aDeps): RequestHandler {
  return async (req, res, next) => {
    const method = (req.body as { method?: unknown } | undefined)?.method;
    const scope = typeof method === 'string' && SEND_METHODS.has(method) ? 'send' : 'read';
    const user = await callerFor(deps, req, res, scope);
    if (!(user instanceof KeyUser))
      return rpcError(
        res,
        user.status,
        INVALID_REQUEST,
        user.code,
        user.message,
        (req.body as { id?: unknown } | undefined)?.id,
      );
    res.locals.a2aUser = user;
    next();
  };
}

/** HTTP+JSON: every call that is not a read (GET, or POST `…:subscribe`) sends. */
function authorizeRest(deps: A2aDeps): RequestHandler {
  return async (req, res, next) => {
    const reads = req.method === 'GET' || (req.method === 'POST' && req.path.endsWith(':subscribe'));
    const user = await callerFor(deps, req, res, reads ? 'read' : 'send');
    if (!(user instanceof KeyUser)) return restError(res, user.status, user.code, user.message);
    res.locals.a2aUser = user;
    next();
  };
}

/** The gateway's card at both of its paths, and an agent's card. */
function addCardRoutes(router: Router, deps: A2aDeps, handler: ReachA2aHandler): void {
  const gatewayCardRoute: RequestHandler = async (_req, res) => {
    const caller = callerOf(res);
    res.json(
      caller
        ? await handler.cardFor(new KeyUser(caller))
        : await servedCard(publicGatewayCard(deps.config.PUBLIC_URL), deps.config, deps.tokens),
    );
  };
  router.get('/.well-known/agent-card.json', gatewayCardRoute);
  router.get(`${A2A_FACE_PATH}/.well-known/agent-card.json`, gatewayCardRoute);

  /** An agent's card: without a key its public card, with one (scope `read`, the agent's tenant) the key's card. */
  router.get(`${A2A_FACE_PATH}/agents/:agent_id/.well-known/agent-card.json`, async (req, res) => {
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    if (!callerOf(res)) {
      const agent = await deps.catalogue.queries.agentRecord(agent_id);
      if (!agent) throw new ApiError(404, 'agent_not_found', `No agent ${agent_id}`);
      res.json(await servedCard(publicAgentCard(agent, deps.config.PUBLIC_URL), deps.config, deps.tokens));
      return;
    }
    const caller = requireCaller(res, 'read');
    const found = await deps.catalogue.queries.get(caller.tenant, agent_id);
    if (!found) throw new ApiError(404, 'agent_not_found', `No agent ${agent_id}`);
    res.json(await handler.cardFor(new KeyUser(caller, found.agent)));
  });
}

/** The HTTP+JSON binding under `<face>/rest` (the SDK's router, v1.0 paths and v0.3's `/v1/…`), bodies up to our limit. */
function addRestRoutes(router: Router, deps: A2aDeps, rest: RequestHandler): void {
  const restJson = express.json({
    limit: deps.config.MAX_BODY_BYTES,
    strict: false,
    type: ['application/json', 'application/a2a+json'],
  });
  const authorize = authorizeRest(deps);
  router.use(
    `${A2A_FACE_PATH}/agents/:agent_id${REST_PATH}`,
    restJson,
    restBodyErrors,
    authorize,
    specRestStatuses,
    rest,
  );
  router.use(`${A2A_FACE_PATH}${REST_PATH}`, restJson, restBodyErrors, authorize, specRestStatuses, rest);
}

/** JSON-RPC at the gateway's face and at each agent's. */
function addRpcRoutes(router: Router, deps: A2aDeps, rpc: RequestHandler): void {
  // Not strict: any JSON value is parsed, so valid JSON that is no request object is -32600, not a parse error.
  const json = express.json({ limit: deps.config.MAX_BODY_BYTES, strict: false });
  const authorize = authorizeRpc(deps);
  router.use(`${A2A_FACE_PATH}/agents/:agent_id`, onlyPostHere, json, envelope, authorize, rpc);
  router.use(A2A_FACE_PATH, onlyPostHere, json, envelope, authorize, rpc);
}

export function a2aFaceRoutes(deps: A2aDeps): Router {
  const handler = new ReachA2aHandler(deps);
  const userBuilder = async (req: Request) => (req.res as Response).locals.a2aUser as KeyUser;
  const rpc = jsonRpcHandler({ requestHandler: handler, userBuilder, legacyCompat: { enabled: true } });
  const rest = restHandler({ requestHandler: handler, userBuilder, legacyCompat: { enabled: true } });
  const router = Router();
  addCardRoutes(router, deps, handler);
  addRestRoutes(router, deps, rest);
  addRpcRoutes(router, deps, rpc);
  router.use(bodyErrors);
  return router;
}
