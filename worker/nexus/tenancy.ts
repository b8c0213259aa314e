/**
 * Which tenant a Nexus operation sends for. A Nexus request carries no endpoint name, and its headers and links are
 * the caller's word, so the tenant is bound by what only operators control: the task queue an endpoint targets.
 * Each tenant of NEXUS_TENANTS has its own task queue, `<TEMPORAL_TASK_QUEUE>-nexus-<tenant>`, served by a
 * Nexus-only worker whose handler sends for that tenant alone; an endpoint targeting TEMPORAL_TASK_QUEUE itself
 * sends for NEXUS_DEFAULT_TENANT alone.
 */
import type { Config } from '../../platform/config';

export type NexusTenancyConfig = Pick<Config, 'NEXUS_TENANTS' | 'NEXUS_DEFAULT_TENANT' | 'DEFAULT_TENANT'>;

/** The tenant of the endpoint on the gateway's own task queue. */
export function defaultNexusTenant(config: NexusTenancyConfig): string {
  return config.NEXUS_DEFAULT_TENANT ?? config.DEFAULT_TENANT;
}
