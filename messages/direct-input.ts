/**
 * A direct start's input (Temporal-native callers: a client or child start of `sendMessage`, the Nexus operation),
 * checked as `POST /v1/messages` checks a request: the api's body schema, the stored-size cap and the `reply_to`
 * endpoint policy; plus what the api takes from the API key: the tenant and the caller (`key_id`, or the namespace
 * caller with the `send` scope only).
 */
import { namespaceCaller } from '../activities/prepare-message';
import type { Config } from '../platform/config';
import { hasScope, KEY_ID_PATTERN, TENANT_PATTERN, type Caller } from '../rules/api-key';
import { checkEndpoint, type EndpointPolicy, type Lookup } from '../rules/endpoint-policy';
import { sendMessageBody, type SendMessageBody } from '../rules/message-schema';
import { storedBytes, storedFields } from '../rules/stored-size';
import type { ApiKeyStore } from '../store/api-keys';
import { SEND_FAILURES } from './direct';

/** Refusals of a direct start's input beyond `SEND_FAILURES` (the api's 413, 422 `endpoint_not_allowed`). */
export const INPUT_FAILURES = {
  /** The input names a tenant other than the one this way in is bound to (a tenant's Nexus endpoint). */
  tenantMismatch: 'tenant_mismatch',
  /** payload, intent and params together are over MAX_PAYLOAD_BYTES as JSON. */
  payloadTooLarge: 'payload_too_large',
  /** `reply_to.url` points where the gateway may not connect (ENDPOINT_* settings). */
  endpointNotAllowed: 'endpoint_not_allowed',
} as const;

export interface InputRefusal {
  type: string;
  message: string;
}

export interface DirectInput {
  tenant: string;
  keyId?: string;
  body: SendMessageBody;
}

const refused = (type: string, message: string): { refusal: InputRefusal } => ({ refusal: { type, message } });

/**
 * Parses the input with the api's schema. `boundTenant`: the tenant this way in sends for (a missing `tenant` is
 * that one, another is refused); absent: the input must name one.
 */
export function parseDirectInput(request: unknown, maxStoredBytes: number, boundTenant?: string): { input: DirectInput } | { refusal: InputRefusal } {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return refused(SEND_FAILURES.invalidInput, 'invalid input: an object is required');
  const { tenant = boundTenant, key_id: keyId, ...rest } = request as Record<string, unknown>;
  if (boundTenant !== undefined && tenant !== boundTenant) {
    return refused(INPUT_FAILURES.tenantMismatch, `this way in sends for tenant ${boundTenant} only; leave tenant out or name ${boundTenant}`);
  }
  const issues: string[] = [];
  if (keyId !== undefined && (typeof keyId !== 'string' || !KEY_ID_PATTERN.test(keyId))) issues.push('key_id: a key id is 12 hex digits');
  if (typeof tenant !== 'string' || !TENANT_PATTERN.test(tenant)) issues.push('tenant: a tenant is 1–63 of a–z 0–9 _ - starting with a letter or digit');
  const parsed = sendMessageBody.safeParse(rest);
  if (!parsed.success) for (const issue of parsed.error.issues) issues.push(`${issue.path.join('.') || '(input)'}: ${issue.message}`);
  if (issues.length > 0 || !parsed.success) return refused(SEND_FAILURES.invalidInput, `invalid input: ${issues.join('; ')}`);
  const bytes = storedBytes(storedFields(parsed.data));
  if (bytes > maxStoredBytes) return refused(INPUT_FAILURES.payloadTooLarge, `payload, intent and params take ${bytes} bytes; at most ${maxStoredBytes} are stored`);
  return { input: { tenant: tenant as string, ...(keyId === undefined ? {} : { keyId: keyId as string }), body: parsed.data } };
}

/** `endpoint_not_allowed` when `reply_to` points where the gateway may not connect. */
export async function replyToRefusal(body: SendMessageBody, policy: EndpointPolicy, lookup?: Lookup): Promise<InputRefusal | undefined> {
  if (!body.reply_to) return undefined;
  const verdict = await checkEndpoint(body.reply_to.url, policy, lookup);
  return verdict.allowed ? undefined : { type: INPUT_FAILURES.endpointNotAllowed, message: `reply_to.url: ${verdict.reason}` };
}

export interface DirectCallerDeps {
  config: Pick<Config, 'TEMPORAL_CALLERS_REQUIRE_KEY'>;
  /** Finds the caller of a `key_id`; absent → inputs with a `key_id` are refused. */
  keys?: Pick<ApiKeyStore, 'callerById'>;
}

/** The namespace caller, or the key's caller: of this tenant, not revoked, with the `send` scope. */
export async function directCaller(deps: DirectCallerDeps, tenant: string, keyId: string | undefined): Promise<{ caller: Caller } | { refusal: InputRefusal }> {
  if (!keyId) {
    if (deps.config.TEMPORAL_CALLERS_REQUIRE_KEY) return refused(SEND_FAILURES.keyRequired, 'this deployment requires a key_id (an API key id with the send scope) on direct starts');
    return { caller: namespaceCaller(tenant) };
  }
  const caller = await deps.keys?.callerById(keyId);
  if (!caller || caller.tenant !== tenant) return refused(SEND_FAILURES.unknownKey, `no API key ${keyId} in tenant ${tenant} (or it was revoked)`);
  if (!hasScope(caller, 'send')) return refused(SEND_FAILURES.forbidden, `key ${keyId} lacks the send scope`);
  return { caller };
}
