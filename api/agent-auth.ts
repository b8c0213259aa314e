/** How agents prove who they are: `Authorization: Bearer <agent secret>`. */
import type { Request } from 'express';
import type { AgentStore } from '../catalogue/agent-store';
import type { AgentDoc } from '../store/agents';
import { looksLikeApiKey } from '../rules/api-key';
import { ApiError } from './errors';

/** The token of an `Authorization: Bearer <token>` header value. */
export function parseBearer(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
}

export function bearerSecret(req: Request): string | undefined {
  return parseBearer(req.get('authorization'));
}

function requireBearer(req: Request): string {
  const secret = bearerSecret(req);
  if (!secret) throw new ApiError(401, 'unauthenticated', 'Send the agent secret as "Authorization: Bearer <secret>"');
  return secret;
}

/**
 * The agent owning the presented secret (receipts: the message says which agent it expects). `cached` reuses a
 * recent record (receipts; see AgentStore.findBySecret).
 */
export async function agentBySecret(
  req: Request,
  store: AgentStore,
  options: { cached?: boolean } = {},
): Promise<AgentDoc> {
  const agent = await store.findBySecret(requireBearer(req), options);
  if (!agent) throw new ApiError(401, 'invalid_secret', 'The agent secret is not valid');
  return agent;
}

/**
 * Agent `agentId`, when the presented secret is its own (checked in constant time against its hash; the previous
 * secret also works during its overlap window). Unknown → 404 with a hint to register. A caller's API key is never
 * an agent secret: it gets the same 404 as an unknown agent, and so does another tenant's agent secret, so neither
 * learns anything of other tenants' agents.
 * `cached` reuses a recent record (heartbeats only; see AgentStore.authenticate).
 */
export async function requireAgent(
  req: Request,
  store: AgentStore,
  agentId: string,
  options: { cached?: boolean } = {},
): Promise<AgentDoc> {
  const secret = requireBearer(req);
  const result = await store.authenticate(agentId, secret, options);
  if (result.kind === 'ok') return result.agent;
  if (
    result.kind === 'unknown_agent' ||
    looksLikeApiKey(secret) ||
    (await isOtherTenantsSecret(store, secret, result.tenant))
  ) {
    throw new ApiError(404, 'agent_not_found', `No agent ${agentId}`, { hint: 'register first with POST /v1/agents' });
  }
  throw new ApiError(401, 'invalid_secret', 'The agent secret is not valid for this agent');
}

/** Whether `secret` is a valid secret of an agent outside `tenant` (read only when authentication already failed). */
async function isOtherTenantsSecret(store: AgentStore, secret: string, tenant: string): Promise<boolean> {
  const owner = await store.findBySecret(secret);
  return owner !== null && owner.tenant !== tenant;
}
