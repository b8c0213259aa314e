/**
 * API keys of callers: their format, scopes, and who a key says the caller is. Uses node:crypto: never import
 * from workflows.
 *
 * A key reads `rk_<key id>_<secret>`: the key id (12 hex digits) finds the stored record, the secret (256 random
 * bits) is checked against its SHA-256 in constant time. High-entropy secrets make a plain hash safe to store.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { hashSecret, secretMatches } from './ids';

/** Scopes with a meaning to the api; keys may also carry other scopes, which capability ACLs can name. */
export const BUILT_IN_SCOPES = {
  /** read agents, messages, traces and events */
  read: 'read',
  /** send, cancel and redrive messages */
  send: 'send',
  /** register agents and import A2A cards */
  register: 'register',
  /** everything above, plus managing the tenant's keys */
  admin: 'admin',
} as const;
export type BuiltInScope = keyof typeof BUILT_IN_SCOPES;

/**
 * Reading `/metrics` (figures of every tenant, unlabelled): an operator's scope, not implied by `admin`, so a
 * tenant's admin learns nothing about other tenants.
 */
export const METRICS_SCOPE = 'metrics';

/** Tenant names: lowercase letters, digits, `_` and `-`. */
export const TENANT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const SCOPE_PATTERN = /^[a-z][a-z0-9_.:-]{0,63}$/;
export const scopeSchema = z.string().regex(SCOPE_PATTERN, 'a scope is 1–64 of a–z 0–9 _ . : - starting with a letter');
export const KEY_ID_PATTERN = /^[0-9a-f]{12}$/;
const KEY_PATTERN = /^rk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

/** Who a token caller is, as its issuer says (identity/token-caller.ts): the `sub` claim and the groups claim. */
export interface TokenSubject {
  issuer: string;
  sub: string;
  groups: string[];
}

/**
 * Who is calling: an identity of either kind — an API key (`key_id`) or the subject of an OIDC access token
 * (`subject`), never both — with its tenant and scopes.
 */
export interface Caller {
  tenant: string;
  /** The API key's id, for a caller with an API key. */
  key_id?: string;
  /** The token's subject, for a caller with an OIDC access token. */
  subject?: TokenSubject;
  scopes: string[];
}

/**
 * A caller as far as it is known: always its tenant; its identity and scopes when it came with a credential. The
 * router and the ACL take it (benchmarks and tests route by tenant alone).
 */
export type PartialCaller = Pick<Caller, 'tenant'> & Partial<Pick<Caller, 'key_id' | 'subject' | 'scopes'>>;

/**
 * The caller's identity as one string, for ownership (MCP sessions), records and logs: `key:<key id>` or
 * `sub:<issuer>#<sub>`; `(none)` for a caller known by its tenant alone.
 */
/** The caller as a run's input records it: its tenant, identity and scopes, nothing else. */
export function recordedCaller(caller: Caller): Caller {
  return {
    tenant: caller.tenant,
    ...(caller.key_id ? { key_id: caller.key_id } : {}),
    ...(caller.subject ? { subject: caller.subject } : {}),
    scopes: caller.scopes,
  };
}

export function callerIdOf(caller: PartialCaller): string {
  if (caller.key_id) return `key:${caller.key_id}`;
  if (caller.subject) return `sub:${caller.subject.issuer}#${caller.subject.sub}`;
  return '(none)';
}

/**
 * Who a direct start acts as without a key: only the `send` scope. Whoever can start workflows in the namespace can
 * send to the tenant's capabilities without an ACL (and those whose ACL admits `send`), never to one restricted to
 * key ids or to other scopes.
 */
export function namespaceCaller(tenant: string): Caller {
  return { tenant, key_id: 'temporal-namespace', scopes: ['send'] };
}

/** `admin` holds every built-in scope; a custom scope must be held as such. */
export function hasScope(caller: { scopes: readonly string[] }, scope: string): boolean {
  if (caller.scopes.includes(scope)) return true;
  return scope in BUILT_IN_SCOPES && caller.scopes.includes('admin');
}

/** Whether a bearer token has the shape of an API key (rather than an agent secret). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith('rk_');
}

export function parseApiKey(key: string): { keyId: string; secret: string } | undefined {
  const match = KEY_PATTERN.exec(key);
  return match ? { keyId: match[1]!, secret: match[2]! } : undefined;
}

/** A new key; shown once, stored as its id and the hash of its secret. */
export function newApiKey(): { keyId: string; key: string; secret: string; secretHash: string } {
  const keyId = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { keyId, key: `rk_${keyId}_${secret}`, secret, secretHash: hashSecret(secret) };
}

/**
 * The earlier key proof (keys created before rules/key-proof.ts): an HMAC of the tenant and the message id under the
 * SHA-256 of the key's secret, which the gateway stores. It binds no body, and the stored hash can make it: accepted
 * only for keys without a proof public key, until they are rotated. Undefined when `key` is not an API key.
 */
export function legacyKeyProof(key: string, tenant: string, messageId: string): string | undefined {
  const parsed = parseApiKey(key);
  return parsed && proofUnder(hashSecret(parsed.secret), tenant, messageId);
}

function proofUnder(secretHash: string, tenant: string, messageId: string): string {
  return createHmac('sha256', secretHash).update(`agent-reach key proof\n${tenant}\n${messageId}`).digest('base64url');
}

/** Whether `proof` is the earlier proof for this tenant and message id of the key whose secret hashes to `secretHash`. */
export function legacyProofMatches(proof: string, secretHash: string, tenant: string, messageId: string): boolean {
  const expected = Buffer.from(proofUnder(secretHash, tenant, messageId));
  const given = Buffer.from(proof);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export function apiKeySecretMatches(secret: string, storedHash: string): boolean {
  return secretMatches(secret, storedHash);
}
