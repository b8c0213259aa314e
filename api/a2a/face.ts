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
import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { A2A_FACE_PATH } from '../../catalogue/a2a';
import { hasScope } from '../../rules/api-key';
import { callerOf, requireCaller } from '../caller-auth';
import { resourceMetadataUrl, withConfiguredSchemes } from '../oauth-resource';
import { ApiError } from '../errors';
import { agentIdParams } from '../schemas';
import { parseInput } from '../validate';
import { publicAgentCard, publicGatewayCard } from './cards';
import { KeyUser, ReachA2aHandler, type A2aDeps } from './handler';
import { jsonRpcHandler } from './sdk';

/** Methods that send or cancel (the `send` scope); every other method reads (`read`). Both spec versions' names. */
const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'CancelTask', 'message/send', 'message/stream', 'tasks/cancel']);

/** A JSON-RPC error answered at the HTTP level, with our error code in an ErrorInfo detail. */
function rpcError(res: Response, httpStatus: number, rpcCode: number, code: string, message: string, id: unknown = null): void {
  res.status(httpStatus).json({
    jsonrpc: '2.0',
    id: isRpcId(id) ? id : null,
    error: { code: rpcCode, message, data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code.toUpperCase(), domain: 'agent-reach', metadata: { code } }] },
  });
}

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
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'The body must be one JSON-RPC request object (batches are not accepted)';
  const request = body as Record<string, unknown>;
  if (request.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('id' in request && !isRpcId(request.id)) return '"id" must be a string, an integer or null';
  if (typeof request.method !== 'string' || request.method === '') return '"method" must be a non-empty string';
  return undefined;
}

export function a2aFaceRoutes(deps: A2aDeps): Router {
  const handler = new ReachA2aHandler(deps);
  const rpc = jsonRpcHandler({
    requestHandler: handler,
    userBuilder: async (req) => (req.res as Response).locals.a2aUser as KeyUser,
    legacyCompat: { enabled: true },
  });
  const router = Router();

  const gatewayCardRoute: RequestHandler = async (_req, res) => {
    const caller = callerOf(res);
    res.json(caller ? await handler.cardFor(new KeyUser(caller)) : await withConfiguredSchemes(publicGatewayCard(deps.config.PUBLIC_URL), deps.config, deps.tokens));
  };
  router.get('/.well-known/agent-card.json', gatewayCardRoute);
  router.get(`${A2A_FACE_PATH}/.well-known/agent-card.json`, gatewayCardRoute);

  /** An agent's card: without a key its public card, with one (scope `read`, the agent's tenant) the key's card. */
  router.get(`${A2A_FACE_PATH}/agents/:agent_id/.well-known/agent-card.json`, async (req, res) => {
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    if (!callerOf(res)) {
      const agent = await deps.catalogue.queries.agentRecord(agent_id);
      if (!agent) throw new ApiError(404, 'agent_not_found', `No agent ${agent_id}`);
      res.json(publicAgentCard(agent, deps.config.PUBLIC_URL));
      return;
    }
    const caller = requireCaller(res, 'read');
    const found = await deps.catalogue.queries.get(caller.tenant, agent_id);
    if (!found) throw new ApiError(404, 'agent_not_found', `No agent ${agent_id}`);
    res.json(await handler.cardFor(new KeyUser(caller, found.agent)));
  });

  /** Only `POST` to the mount itself goes on to the SDK; anything else leaves this router (404 or 405 later). */
  const onlyPostHere: RequestHandler = (req, _res, next) => next(req.method === 'POST' && req.path === '/' ? undefined : 'router');

  /** A body that is JSON but no JSON-RPC request: Invalid Request (-32600), HTTP 200 as every JSON-RPC error. */
  const envelope: RequestHandler = (req, res, next) => {
    const problem = envelopeProblem(req.body);
    if (problem) return rpcError(res, 200, INVALID_REQUEST, 'invalid_request', `Invalid Request: ${problem}`, (req.body as { id?: unknown } | null)?.id);
    next();
  };

  /** The key (401), its scope for the method (403) and, at an agent's face, the agent (404). */
  const authorize: RequestHandler = async (req, res, next) => {
    const id = (req.body as { id?: unknown } | undefined)?.id;
    const caller = callerOf(res);
    if (!caller) {
      // Where an issuer is configured, the challenge says where to learn which one (RFC 9728), as on /mcp.
      res.set('www-authenticate', deps.config.AUTH_OIDC_ISSUER?.length ? `Bearer resource_metadata="${resourceMetadataUrl(deps.config, 'gateway')}"` : 'Bearer');
      return rpcError(res, 401, INVALID_REQUEST, 'unauthenticated', 'Send an API key as "Authorization: Bearer rk_…"', id);
    }
    const method = (req.body as { method?: unknown } | undefined)?.method;
    const scope = typeof method === 'string' && SEND_METHODS.has(method) ? 'send' : 'read';
    if (!hasScope(caller, scope)) return rpcError(res, 403, INVALID_REQUEST, 'insufficient_scope', `This API key lacks the "${scope}" scope`, id);
    const agentId = (req.params as { agent_id?: string }).agent_id;
    let agent;
    if (agentId !== undefined) {
      agent = agentIdParams.safeParse({ agent_id: agentId }).success ? (await deps.catalogue.queries.get(caller.tenant, agentId))?.agent : undefined;
      if (!agent) return rpcError(res, 404, INVALID_REQUEST, 'agent_not_found', `No agent ${agentId}`, id);
    }
    res.locals.a2aUser = new KeyUser(caller, agent);
    next();
  };

  // Not strict: any JSON value is parsed, so valid JSON that is no request object is -32600, not a parse error.
  const json = express.json({ limit: deps.config.MAX_BODY_BYTES, strict: false });
  router.use(`${A2A_FACE_PATH}/agents/:agent_id`, onlyPostHere, json, envelope, authorize, rpc);
  router.use(A2A_FACE_PATH, onlyPostHere, json, envelope, authorize, rpc);

  const bodyErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
    const type = (error as { type?: string })?.type;
    if (type === 'entity.parse.failed') return rpcError(res, 200, PARSE_ERROR, 'invalid_json', 'Parse error: the body is not valid JSON');
    if (type === 'entity.too.large') return rpcError(res, 413, INVALID_REQUEST, 'payload_too_large', 'The request body is too large');
    next(error);
  };
  router.use(bodyErrors);
  return router;
}
