/**
 * A direct start's input (Temporal-native callers: a client or child start of `sendMessage`, the Nexus operation),
 * checked as `POST /v1/messages` checks a request: the api's body schema; plus what the api takes from the API key:
 * the tenant and the caller (the namespace caller with the `send` scope only, or the key named by `key_id`, proven
 * by `key_proof`). The checks that follow are every way's (messages/intake-checks.ts). One home for the worker's
 * `prepareMessage` and the Nexus handler.
 */
import type { Config } from '../platform/config';
import { hasScope, KEY_ID_PATTERN, namespaceCaller, TENANT_PATTERN, type Caller } from '../rules/api-key';

export { namespaceCaller } from '../rules/api-key';
import { provenBody } from '../rules/key-proof';
import type { IntakeCode, IntakeRefusal } from './intake-refusals';
import { sendMessageBody, type SendMessageBody } from './message-schema';
import type { ApiKeyStore } from '../store/api-keys';

export interface InputRefusal {
  type: IntakeCode;
  message: string;
  details?: unknown;
}

export interface DirectInput {
  tenant: string;
  keyId?: string;
  keyProof?: string;
  /** An OIDC access token (Nexus only). */
  accessToken?: string;
  /** A token caller the gateway's Nexus handler vouched for, under its seal (checked by `prepareMessage`). */
  sealed?: { caller: Caller; seal: unknown };
  body: SendMessageBody;
}

/** An intake refusal (messages/intake-refusals.ts) as a direct start's refusal: its code is the failure type. */
export function asInputRefusal(refusal: IntakeRefusal): InputRefusal {
  // The places named in the message too: the Nexus face cannot carry details.
  const places = Array.isArray(refusal.details)
    ? (refusal.details as { location?: string; message?: string }[]).filter((d) => d.location && d.message)
    : [];
  const message =
    places.length > 0
      ? places.map((d) => `${d.location!.replace(/^body\./, '')}: ${d.message}`).join('; ')
      : refusal.message;
  return { type: refusal.code, message, ...(refusal.details === undefined ? {} : { details: refusal.details }) };
}

const refused = (type: IntakeCode, message: string, details?: unknown): { refusal: InputRefusal } => ({
  refusal: { type, message, ...(details === undefined ? {} : { details }) },
});

/**
 * Parses the input with the api's schema. `boundTenant`: the tenant this way in sends for (a missing `tenant` is
 * that one, another is refused); absent: the input must name one.
 */
export function parseDirectInput(
  request: unknown,
  boundTenant?: string,
): { input: DirectInput } | { refusal: InputRefusal } {
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    return refused('invalid_request', 'invalid input: an object is required');
  const {
    tenant = boundTenant,
    key_id: keyId,
    key_proof: keyProof,
    access_token: accessToken,
    caller: sealedCaller,
    seal,
    ...rest
  } = request as Record<string, unknown>;
  if (boundTenant !== undefined && tenant !== boundTenant) {
    return refused(
      'tenant_mismatch',
      `this way in sends for tenant ${boundTenant} only; leave tenant out or name ${boundTenant}`,
    );
  }
  const issues: { path: string; message: string }[] = [];
  if (keyId !== undefined && (typeof keyId !== 'string' || !KEY_ID_PATTERN.test(keyId)))
    issues.push({ path: 'key_id', message: 'a key id is 12 hex digits' });
  if (
    keyProof !== undefined &&
    (typeof keyProof !== 'string' || !/^([A-Za-z0-9_-]{43}|[A-Za-z0-9_-]{86})$/.test(keyProof))
  ) {
    issues.push({
      path: 'key_proof',
      message: 'a key proof is 86 base64url characters (43 for keys created before proofs bound the body)',
    });
  }
  if (keyProof !== undefined && keyId === undefined)
    issues.push({ path: 'key_proof', message: 'key_proof needs the key_id it proves' });
  if (
    accessToken !== undefined &&
    (typeof accessToken !== 'string' ||
      !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(accessToken) ||
      accessToken.length > 16_384)
  ) {
    issues.push({ path: 'access_token', message: 'an access token is a JWT (three base64url parts)' });
  }
  if (accessToken !== undefined && keyId !== undefined)
    issues.push({ path: 'access_token', message: 'send either access_token or key_id, not both' });
  if (
    (sealedCaller === undefined) !== (seal === undefined) ||
    (sealedCaller !== undefined && (typeof sealedCaller !== 'object' || sealedCaller === null))
  ) {
    issues.push({ path: 'caller', message: 'caller and seal are set by the gateway only' });
  }
  if (typeof tenant !== 'string' || !TENANT_PATTERN.test(tenant))
    issues.push({ path: 'tenant', message: 'a tenant is 1–63 of a–z 0–9 _ - starting with a letter or digit' });
  const parsed = sendMessageBody.safeParse(rest);
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      issues.push({ path: issue.path.join('.') || '(input)', message: issue.message });
  if (issues.length > 0 || !parsed.success) {
    // The api's details: each field where it is in the body.
    const details = issues.map((i) => ({
      location: i.path === '(input)' ? 'body' : `body.${i.path}`,
      message: i.message,
    }));
    return refused(
      'invalid_request',
      `invalid input: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      details,
    );
  }
  return {
    input: {
      tenant: tenant as string,
      ...(keyId === undefined ? {} : { keyId: keyId as string }),
      ...(keyProof === undefined ? {} : { keyProof: keyProof as string }),
      ...(accessToken === undefined ? {} : { accessToken: accessToken as string }),
      ...(sealedCaller === undefined ? {} : { sealed: { caller: sealedCaller as Caller, seal } }),
      body: parsed.data,
    },
  };
}

export interface DirectCallerDeps {
  config: Pick<Config, 'TEMPORAL_CALLERS_REQUIRE_KEY'>;
  /** Finds the caller of a `key_id`; absent → inputs with a `key_id` are refused. */
  keys?: Pick<ApiKeyStore, 'callerById' | 'callerByProof'>;
}

/** What a direct start sends, as a key proof covers it: its tenant, its message id and its body. */
export function messageSubject(tenant: string, messageId: string, body: SendMessageBody) {
  return {
    kind: 'message' as const,
    tenant,
    id: messageId,
    body: provenBody('message', body as Record<string, unknown>),
  };
}

/**
 * The namespace caller, or the key's caller: of this tenant, not revoked, with the `send` scope. A `key_proof`
 * (rules/key-proof.ts) proves the sender holds the key and sends this body under this message id;
 * TEMPORAL_CALLERS_REQUIRE_KEY requires one. `legacy`: an earlier, id-only proof was accepted (a key to rotate).
 */
export async function directCaller(
  deps: DirectCallerDeps,
  tenant: string,
  messageId: string,
  body: SendMessageBody,
  keyId?: string,
  keyProof?: string,
): Promise<{ caller: Caller; legacy?: boolean } | { refusal: InputRefusal }> {
  const requireKey = deps.config.TEMPORAL_CALLERS_REQUIRE_KEY;
  if (!keyId || (requireKey && !keyProof)) {
    if (requireKey)
      return refused(
        'key_required',
        'this deployment requires a key_id and its key_proof (an API key with the send scope) on direct starts',
      );
    return { caller: namespaceCaller(tenant) };
  }
  const proven = keyProof
    ? await deps.keys?.callerByProof(keyId, keyProof, messageSubject(tenant, messageId, body))
    : undefined;
  if (keyProof && !proven) {
    return refused(
      'invalid_key_proof',
      `key_proof is not the proof of key ${keyId} for this body of message ${messageId} in tenant ${tenant} (or the key was revoked)`,
    );
  }
  const caller = proven?.caller ?? (await deps.keys?.callerById(keyId));
  if (!caller || caller.tenant !== tenant)
    return refused('unknown_key', `no API key ${keyId} in tenant ${tenant} (or it was revoked)`);
  if (!hasScope(caller, 'send')) return refused('insufficient_scope', `key ${keyId} lacks the send scope`);
  return { caller, ...(proven?.legacy ? { legacy: true } : {}) };
}
