/**
 * `sendMessage` (Temporal-native callers): the intake of a message started directly, as a local activity of the
 * worker. It validates the input with the api's own schema, checks the named target as the api does (the agent and
 * capability exist, the capability's ACL admits the caller) and builds the run's input with the api's own builder,
 * so the message then runs exactly as one posted to `POST /v1/messages`.
 *
 * Refusals are non-retryable ApplicationFailures: the run fails at once and nothing is delivered.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { AgentQueries } from '../catalogue/agent-queries';
import { SEND_FAILURES } from '../messages/direct';
import { chooseTarget, isRefusal, type TargetRefusal } from '../messages/choose-target';
import type { MessageInput } from '../messages/message';
import { bodyHashOf, buildMessageInput, messageMemoOf, messageSummaryOf, refusalBeforeRouting, type IntakeConfig } from '../messages/message-input';
import type { MessageMemo } from '../messages/runs';
import type { Config } from '../platform/config';
import type { Router } from '../router/router';
import { hasScope, KEY_ID_PATTERN, TENANT_PATTERN, type Caller } from '../rules/api-key';
import type { ApiKeyStore } from '../store/api-keys';
import { newTraceId } from '../rules/ids';
import { sendMessageBody } from '../rules/message-schema';
import { sealInput, type SealKeys } from '../messages/seal';
import { sendLimitRefusal } from '../messages/send-limits';
import { endpointPolicy, type EndpointPolicy } from '../rules/endpoint-policy';

export interface PrepareMessageDeps {
  queries: Pick<AgentQueries, 'checkReach'>;
  config: IntakeConfig & Pick<Config, 'TEMPORAL_CALLERS_REQUIRE_KEY' | 'MAX_PAYLOAD_BYTES'> & Parameters<typeof endpointPolicy>[0];
  /** Where `reply_to` may point; from `config` when absent. */
  endpointPolicy?: EndpointPolicy;
  /** Chooses the target of intent-only messages; absent (the worker) → such inputs come back `needs_routing`. */
  router?: Pick<Router, 'route'>;
  /** Finds the caller of a `key_id`; absent → inputs with a `key_id` are refused. */
  keys?: Pick<ApiKeyStore, 'callerById' | 'callerByProof'>;
  /** Seals the input built (messages/seal.ts), as the api does. */
  sealKeys: SealKeys;
  now: () => number;
}

export interface PreparedMessage {
  kind: 'prepared';
  input: MessageInput;
  memo: MessageMemo;
  /** What Temporal UI would show for a run the api started; set as the run's current details. */
  summary: { staticSummary: string; staticDetails: string };
}

/** What a worker without the router answers for an intent-only input: the workflow asks the api's routing queue. */
export interface NeedsRouting {
  kind: 'needs_routing';
}

/**
 * Who a direct start acts as: no API key, only the `send` scope. Whoever can start workflows in the namespace can
 * send to the tenant's capabilities without an ACL (and those whose ACL admits `send`), never to one restricted
 * to key ids or to other scopes.
 */
export function namespaceCaller(tenant: string): Caller {
  return { tenant, key_id: 'temporal-namespace', scopes: ['send'] };
}

/** A catalogue refusal as the api's 404s and 403 say it. */
function refusalOf(refused: TargetRefusal, tenant: string, agentId: string, capability: string, keyId: string | undefined): ApplicationFailure {
  switch (refused.kind) {
    case 'unknown_agent':
      return refusal(SEND_FAILURES.unknownAgent, `no agent ${agentId} in tenant ${tenant}`);
    case 'unknown_capability':
      return refusal(SEND_FAILURES.unknownCapability, `agent ${agentId} has no capability ${capability}`);
    case 'forbidden':
      return refusal(
        SEND_FAILURES.forbidden,
        keyId ? `the ACL of ${capability} does not admit key ${keyId}` : `the ACL of ${capability} does not admit callers without a key_id (they hold only the send scope)`,
      );
  }
}

const refusal = (type: string, message: string, details?: unknown) =>
  ApplicationFailure.create({ type, message, nonRetryable: true, ...(details === undefined ? {} : { details: [details] }) });

export function createPrepareMessage(deps: Partial<PrepareMessageDeps>) {
  /**
   * The namespace caller, or the key's caller: of this tenant, not revoked, with the `send` scope. A `key_proof`
   * (rules/api-key.ts) proves the sender holds the key; TEMPORAL_CALLERS_REQUIRE_KEY requires one.
   */
  const callerOf = async (tenant: string, messageId: string, keyId: string | undefined, proof: string | undefined): Promise<Caller> => {
    const requireKey = deps.config?.TEMPORAL_CALLERS_REQUIRE_KEY;
    if (!keyId || (requireKey && !proof)) {
      if (requireKey) throw refusal(SEND_FAILURES.keyRequired, 'this deployment requires a key_id and its key_proof (an API key with the send scope) on direct starts');
      return namespaceCaller(tenant);
    }
    const caller = proof ? await deps.keys?.callerByProof(keyId, proof, tenant, messageId) : await deps.keys?.callerById(keyId);
    if (proof && !caller) throw refusal(SEND_FAILURES.invalidKeyProof, `key_proof is not the proof of key ${keyId} for message ${messageId} in tenant ${tenant} (or the key was revoked)`);
    if (!caller || caller.tenant !== tenant) throw refusal(SEND_FAILURES.unknownKey, `no API key ${keyId} in tenant ${tenant} (or it was revoked)`);
    if (!hasScope(caller, 'send')) throw refusal(SEND_FAILURES.forbidden, `key ${keyId} lacks the send scope`);
    return caller;
  };
  return async function prepareMessage(request: unknown): Promise<PreparedMessage | NeedsRouting> {
    if (!deps.queries || !deps.config || !deps.now || !deps.sealKeys) throw refusal('not_configured', 'this worker does not take direct sendMessage starts');
    if (typeof request !== 'object' || request === null || Array.isArray(request)) throw refusal(SEND_FAILURES.invalidInput, 'invalid input: an object is required');
    const { tenant, key_id: keyId, key_proof: keyProof, ...rest } = request as Record<string, unknown>;
    const issues: { path: string; message: string }[] = [];
    if (keyProof !== undefined && (typeof keyProof !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(keyProof))) issues.push({ path: 'key_proof', message: 'a key proof is 43 base64url characters' });
    if (keyProof !== undefined && keyId === undefined) issues.push({ path: 'key_proof', message: 'key_proof needs the key_id it proves' });
    if (keyId !== undefined && (typeof keyId !== 'string' || !KEY_ID_PATTERN.test(keyId))) issues.push({ path: 'key_id', message: 'a key id is 12 hex digits' });
    if (typeof tenant !== 'string' || !TENANT_PATTERN.test(tenant)) issues.push({ path: 'tenant', message: 'a tenant is 1–63 of a–z 0–9 _ - starting with a letter or digit' });
    const parsed = sendMessageBody.safeParse(rest);
    if (!parsed.success) for (const issue of parsed.error.issues) issues.push({ path: issue.path.join('.') || '(input)', message: issue.message });
    if (issues.length > 0 || !parsed.success) {
      throw refusal(SEND_FAILURES.invalidInput, `invalid input: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
    }
    const body = parsed.data;
    const tenantName = tenant as string;
    if (!body.message_id) throw refusal(SEND_FAILURES.invalidInput, 'invalid input: message_id: required');
    const now = new Date(deps.now());
    const early = refusalBeforeRouting(body, deps.config, now);
    if (early) throw refusal(early.kind, early.kind === 'reply_to_unavailable' ? 'reply_to needs CALLER_WEBHOOK_SECRET, which this deployment has not set' : `deadline: ${early.kind.replaceAll('_', ' ')}`);
    const limited = await sendLimitRefusal(body, { maxPayloadBytes: deps.config.MAX_PAYLOAD_BYTES, endpointPolicy: deps.endpointPolicy ?? endpointPolicy(deps.config) });
    if (limited) throw refusal(limited.code === 'payload_too_large' ? SEND_FAILURES.payloadTooLarge : SEND_FAILURES.endpointNotAllowed, limited.message, limited.details);
    const caller = await callerOf(tenantName, body.message_id, keyId as string | undefined, keyProof as string | undefined);
    // Routing needs the router, which lives in the api: the workflow asks the api's routing queue instead.
    if (!body.target?.capability && !deps.router) return { kind: 'needs_routing' };
    const chosen = await chooseTarget({ queries: deps.queries, ...(deps.router ? { router: deps.router } : {}) }, caller, body);
    if (isRefusal(chosen)) throw refusalOf(chosen, tenantName, body.target?.agent_id ?? '', body.target?.capability ?? '', keyId as string | undefined);
    const built = buildMessageInput({
      tenant: tenantName,
      messageId: body.message_id,
      traceId: newTraceId(),
      body,
      chosen,
      caller,
      acceptedAt: now.toISOString(),
      config: deps.config,
    });
    const input = sealInput(built, deps.sealKeys.keys[0]!, now);
    return { kind: 'prepared', input, memo: messageMemoOf(input, bodyHashOf(body)), summary: messageSummaryOf(input) };
  };
}
