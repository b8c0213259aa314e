/**
 * Who may reach a capability. A capability without `acl` is open to every caller of its tenant; with one, a
 * caller needs one of its `scopes`, or to be one of its `key_ids` (an API key caller), or one of its `subjects` or in
 * one of its `groups` (a token caller: its `sub` claim and groups claim). `admin` holds only the built-in scopes, so a
 * custom scope (e.g. `refunds`) admits no one else: an admin who needs to reach it gives a key that scope. Pure: the router and message intake both call it.
 */
import { hasScope, type PartialCaller } from './api-key';

function shownCaller(caller: PartialCaller): string {
  return caller.subject
    ? `subject ${caller.subject.sub} (groups [${caller.subject.groups.join(', ')}])`
    : `key ${caller.key_id ?? '(none)'}`;
}

export interface CapabilityAcl {
  /** Any one of these scopes admits the caller. */
  scopes?: string[];
  /** These API keys are admitted. */
  key_ids?: string[];
  /** Token callers with these subjects (`sub` claim) are admitted. */
  subjects?: string[];
  /** Token callers in any one of these groups (AUTH_OIDC_GROUPS_CLAIM) are admitted. */
  groups?: string[];
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
  if (caller.tenant !== capability.tenant)
    return { allowed: false, reason: 'the capability belongs to another tenant' };
  const acl = capability.acl;
  if (!acl) return { allowed: true };
  if (caller.key_id && acl.key_ids?.includes(caller.key_id)) return { allowed: true };
  const subject = caller.subject;
  if (subject && acl.subjects?.includes(subject.sub)) return { allowed: true };
  if (subject && acl.groups?.some((group) => subject.groups.includes(group))) return { allowed: true };
  const scopes = caller.scopes ?? [];
  if (acl.scopes?.some((scope) => hasScope({ scopes }, scope))) return { allowed: true };
  const needs = [
    ...(acl.scopes ?? []).map((s) => `scope "${s}"`),
    ...(acl.key_ids?.length ? [`one of ${acl.key_ids.length} listed keys`] : []),
    ...(acl.subjects?.length ? [`one of ${acl.subjects.length} listed subjects`] : []),
    ...(acl.groups?.length ? [`group ${acl.groups.map((g) => `"${g}"`).join(' or ')}`] : []),
  ];
  return {
    allowed: false,
    reason: `${shownCaller(caller)} has scopes [${scopes.join(', ')}]; the capability needs ${needs.join(' or ') || 'an explicit grant'}`,
  };
}
