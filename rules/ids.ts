/** Identifiers and secrets. Uses node:crypto: never import from workflows. */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { byCodeUnits } from './text';

/** Message ids chosen by callers: 1–128 characters, letters, digits and `._:-`. */
export const MESSAGE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** Agent ids we issue: `agt_` and 24 hex digits. */
export const AGENT_ID_PATTERN = /^agt_[0-9a-f]{24}$/;

export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

export function newAgentId(): string {
  return `agt_${randomBytes(12).toString('hex')}`;
}

/** Id of an agent instance's documents (instances, circuits, sockets): `<agent_id>/<instance_id>`. */
export function instanceKey(agentId: string, instanceId: string): string {
  return `${agentId}/${instanceId}`;
}

/** W3C trace id: 32 lowercase hex digits, not all zero. */
export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

/** An agent secret, shown once at registration; 256 bits of randomness. */
export function newAgentSecret(): string {
  return `ars_${randomBytes(32).toString('base64url')}`;
}

/** Secrets are high-entropy random strings, so a plain SHA-256 is a safe stored form (no slow hash needed). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const actual = Buffer.from(hashSecret(secret), 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** JSON with object keys sorted, so equal values give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => byCodeUnits(a, b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
