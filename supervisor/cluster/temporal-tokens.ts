/**
 * Tokens for cluster mode's Temporal (docs/cluster.md, "The wall"): JWTs in the form Temporal's default claim mapper
 * reads — `sub`, `aud`, and a `permissions` claim of `<namespace>:<role>` entries, where the namespace
 * `temporal-system` stands for the whole cluster — signed with the cluster's key (token-key.ts).
 */
import { SignJWT } from 'jose';
import { TOKEN_ALGORITHM, type TokenKey } from './token-key';

/** The audience Temporal requires (deploy/temporal/cluster.yaml's default `TEMPORAL_JWT_AUDIENCE`). */
export const TEMPORAL_AUDIENCE = 'agent-reach-temporal';
/** The claim Temporal reads permissions from (cluster.yaml's `permissionsClaimName`). */
export const PERMISSIONS_CLAIM = 'permissions';
/** Permissions on this namespace apply to every namespace and to the cluster's own APIs (namespaces, Nexus endpoints). */
export const SYSTEM_NAMESPACE = 'temporal-system';

/** Temporal's roles, each also accepted with an -er ending (`writer`). */
const ROLES: Record<string, TemporalRole> = {
  read: 'read',
  reader: 'read',
  write: 'write',
  writer: 'write',
  worker: 'worker',
  admin: 'admin',
};
export type TemporalRole = 'read' | 'write' | 'worker' | 'admin';

/** Temporal namespace names; no `:`, which separates a permission's namespace from its role. */
const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

export function temporalRole(text: string): TemporalRole {
  const role = ROLES[text.toLowerCase()];
  if (!role) throw new Error(`unknown role ${JSON.stringify(text)}: one of read, write, worker, admin`);
  return role;
}

/** The permission entry giving `role` on `namespace`. */
export function permission(namespace: string, role: TemporalRole): string {
  if (!NAMESPACE_PATTERN.test(namespace))
    throw new Error(`not a namespace name: ${JSON.stringify(namespace)} (letters, digits, . _ -)`);
  return `${namespace}:${role}`;
}

export const SYSTEM_ADMIN = permission(SYSTEM_NAMESPACE, 'admin');

export interface TokenRequest {
  /** Who holds it (`sub`; Temporal requires one). */
  subject: string;
  permissions: string[];
  ttlSeconds: number;
}

export async function mintTemporalToken(key: TokenKey, request: TokenRequest): Promise<string> {
  if (!request.subject) throw new Error('a token needs a subject');
  if (!Number.isInteger(request.ttlSeconds) || request.ttlSeconds <= 0)
    throw new Error('a token lives a positive whole number of seconds');
  return new SignJWT({ [PERMISSIONS_CLAIM]: request.permissions })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: key.publicJwk.kid, typ: 'JWT' })
    .setSubject(request.subject)
    .setAudience(TEMPORAL_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${request.ttlSeconds}s`)
    .sign(key.privateKey);
}
