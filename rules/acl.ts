/**
 * Who may reach a capability. A capability without `acl` is open to every caller of its tenant; with one, a
 * caller needs one of its `scopes` or to be one of its `key_ids`. `admin` holds only the built-in scopes, so a
 * custom scope (e.g. `refunds`) admits no one else: an admin who needs to reach it gives a key that scope. Pure: the router and message intake both call it.
 */
import { hasScope, type PartialCaller } from './api-key';

export interface CapabilityAcl {
  /** Any one of these scopes admits the caller. */
  scopes?: string[];
  /** These API keys are admitted. */
  key_ids?: string[];
}

export interface Reachable {
  /** The tenant of the agent offering the capability. */
  tenant: string;
  acl?: CapabilityAcl;
}

export interface AclVerdict {
  allowed: boolean;
  /** Why not, for admins' eyes only (it names what would admit the caller). */
  reason?: string;
}

/**
 * Whether `caller` may reach the capability. A caller known without a key (no `key_id`, no `scopes`) reaches only
 * capabilities without an ACL — the shape the router's `AclCheck` hook passes.
 */
export function canReach(caller: PartialCaller, capability: Reachable): AclVerdict {
  if (caller.tenant !== capability.tenant) return { allowed: false, reason: 'the capability belongs to another tenant' };
  const acl = capability.acl;
  if (!acl) return { allowed: true };
  if (caller.key_id && acl.key_ids?.includes(caller.key_id)) return { allowed: true };
  const scopes = caller.scopes ?? [];
  if (acl.scopes?.some((scope) => hasScope({ scopes }, scope))) return { allowed: true };
  const needs = [...(acl.scopes ?? []).map((s) => `scope "${s}"`), ...(acl.key_ids?.length ? [`one of ${acl.key_ids.length} listed keys`] : [])];
  return { allowed: false, reason: `key ${caller.key_id ?? '(none)'} has scopes [${scopes.join(', ')}]; the capability needs ${needs.join(' or ') || 'an explicit grant'}` };
}
