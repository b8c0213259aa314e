import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { TENANT_PATTERN } from '../../rules/api-key';
import { parseConfigKeys } from '../../rules/config-keys';
import { commaList, flag } from './fields';

/** A comma-separated list of CIDR ranges, e.g. `10.1.0.0/16,fd12::/16`. */
const cidrList = commaList
  .refine((list) => list.every((c) => isValidCidr(c)), 'must be comma-separated CIDR ranges such as 10.0.0.0/8')
  .default([]);

function isValidCidr(text: string): boolean {
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Security: API keys and tenants, how long a replica trusts a checked credential, rate limits, and the addresses the
 * gateway may call.
 */
export const securityShape = {
  /** Tenant of the development key embedded mode makes, and of `API_KEYS` entries that name none. @default default */
  DEFAULT_TENANT: z.string().regex(TENANT_PATTERN).default('default'),
  /**
   * API keys accepted from the configuration (bootstrap), comma-separated `tenant:scope+scope:key`, e.g.
   * `acme:admin:rk_…,acme:send+read:rk_…`. `npm run new-key -- acme admin` prints a fresh key and its entry; only the
   * keys' hashes are kept in memory. They cannot be revoked through the api.
   * Optional (embedded mode makes a development admin key once in DATA_DIR and prints it); without any key only health,
   * `/openapi.json`, `/docs` and the dashboard page answer.
   */
  API_KEYS: z.string().optional(),
  /** How long an api replica trusts a looked-up API key (a revocation reaches other replicas that much later), in ms. @default 5000 */
  API_KEY_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  /** How long an api replica trusts a cached agent record when authenticating heartbeats, in ms. @default 5000 */
  AGENT_AUTH_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  /** How long the previous agent secret keeps working after a rotation, in ms. @default 3600000 (1 h) */
  SECRET_ROTATION_OVERLAP_MS: z.coerce.number().int().min(0).default(3_600_000),
  /** Requests per second a tenant may make to this api replica (token bucket refill rate; 0 = no limit); over it, 429 with `Retry-After`. @default 100 */
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(100),
  /** Bucket size: requests a tenant may make at once after being idle. @default 200 */
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
  /**
   * Requests per second one client address may make before authenticating: each request to a route open to anyone
   * (the A2A push receiver) and each one answered 401 (a bad API key, agent secret or push token) takes a token; an
   * address out of tokens is answered 429 before any credential is looked up (0 = no limit). @default 20
   */
  UNAUTHENTICATED_RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(20),
  /** Bucket size of that limit: such requests an address may make at once. @default 200 */
  UNAUTHENTICATED_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
  /** Agent endpoints, card URLs and reply_to URLs may be on loopback addresses (127.0.0.0/8, ::1). @default false (embedded mode and tests: true) */
  ENDPOINT_ALLOW_LOOPBACK: flag.default(false),
  /** …on private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7). @default false (embedded mode and docker-compose: true) */
  ENDPOINT_ALLOW_PRIVATE: flag.default(false),
  /** Ranges always allowed for endpoints (checked after ENDPOINT_DENY_CIDRS, before the built-in rules). @default none */
  ENDPOINT_ALLOW_CIDRS: cidrList,
  /** Ranges always refused for endpoints. @default none */
  ENDPOINT_DENY_CIDRS: cidrList,
};

type SecurityEnv = z.infer<z.ZodObject<typeof securityShape>>;

/** API_KEYS entries parse (each `tenant:scope+scope:key`); the problem is the variable's. */
export function checkConfigKeys(env: SecurityEnv, ctx: z.RefinementCtx): void {
  if (!env.API_KEYS) return;
  const parsed = parseConfigKeys(env.API_KEYS);
  if ('problem' in parsed) ctx.addIssue({ code: 'custom', path: ['API_KEYS'], message: parsed.problem });
}
