import { z } from 'zod';
import { TENANT_PATTERN } from '../../rules/api-key';
import { commaList, flag } from './fields';

/**
 * Temporal-native callers and Nexus: messages started from a Temporal namespace (a `sendMessage` start or a Nexus
 * operation) rather than over HTTP, and the keys that seal message runs' inputs.
 */
export const temporalCallersShape = {
  /**
   * Temporal-native callers: refuse `sendMessage` starts that carry no `key_id` (an API key of the tenant with the
   * `send` scope, whose scopes and ACL grants are then enforced). Off: such starts act with the `send` scope only.
   * Cluster mode and docker-compose.yml turn it on: any namespace of the cluster may call a Nexus endpoint. @default false
   */
  TEMPORAL_CALLERS_REQUIRE_KEY: flag.default(false),
  /**
   * Keys that seal message runs' inputs (comma-separated base64url, ≥ 32 characters each; the first seals, all are
   * accepted, so a key can be rotated by putting the new one first). Unset: a key generated once and kept in the
   * database (`gateway_secrets`), shared by every api and worker. Namespace clients never see it: a run of the
   * internal message workflow types (`leanMessageWorkflow`, `messageWorkflow`) whose input the gateway did not seal
   * delivers and notifies nothing. Optional.
   */
  MESSAGE_SEAL_KEYS: z
    .string()
    .regex(/^[A-Za-z0-9_-]{32,}(,[A-Za-z0-9_-]{32,})*$/, 'comma-separated base64url keys of at least 32 characters')
    .optional(),
  /**
   * Nexus: tenants with their own Nexus endpoint, comma-separated, e.g. `acme,globex`. The message worker serves each
   * on task queue `<TEMPORAL_TASK_QUEUE>-nexus-<tenant>` (a Nexus-only worker); an endpoint targeting that queue sends
   * for that tenant alone (an input naming another is refused `tenant_mismatch`). At most 200. @default none
   */
  NEXUS_TENANTS: commaList
    .transform((list) => [...new Set(list)])
    .refine((list) => list.every((t) => TENANT_PATTERN.test(t)), 'must be comma-separated tenant names (a–z 0–9 _ -)')
    .refine((list) => list.length <= 200, 'at most 200 tenants')
    .default([]),
  /**
   * Nexus: the one tenant an endpoint targeting TEMPORAL_TASK_QUEUE itself sends for (an input naming another is
   * refused `tenant_mismatch`). @default DEFAULT_TENANT
   */
  NEXUS_DEFAULT_TENANT: z.string().regex(TENANT_PATTERN).optional(),
};
