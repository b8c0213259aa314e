/**
 * A plan's `plan_id`: the proof that a chain body is a plan the gateway made, runnable, for this key, in the last
 * PLAN_TTL_MS — so that a confirmation that comes back with the body (the MCP tool's second call) runs what was
 * shown and nothing else. `pln_<expiry, base 36>_<HMAC-SHA256 of tenant, key, expiry and the body's canonical JSON>`,
 * keyed by a key derived from the deployment's first seal key: every api replica checks it, no plan is stored.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SealKeys } from '../messages/seal';
import { callerIdOf, type Caller } from '../rules/api-key';
import { canonicalJson } from '../rules/ids';

/** How long a plan may be confirmed after it was shown. */
export const PLAN_TTL_MS = 10 * 60_000;

const PLAN_ID = /^pln_([0-9a-z]{1,12})_([0-9a-f]{64})$/;

export type PlanIdCheck = { ok: true } | { ok: false; why: 'malformed' | 'expired' | 'not_this_plan' };

function mac(key: Buffer, caller: Caller, expires: number, chain: unknown): string {
  return createHmac('sha256', key)
    .update(`${caller.tenant}\0${callerIdOf(caller)}\0${expires}\0${canonicalJson(chain)}`)
    .digest('hex');
}

function keyOf(sealKeys: Pick<SealKeys, 'keys'>): Buffer {
  return createHmac('sha256', sealKeys.keys[0]!).update('agent-reach plan_id').digest();
}

export function planId(sealKeys: Pick<SealKeys, 'keys'>, caller: Caller, chain: unknown, now = Date.now()): string {
  const expires = now + PLAN_TTL_MS;
  return `pln_${expires.toString(36)}_${mac(keyOf(sealKeys), caller, expires, chain)}`;
}

/** Whether `id` is this key's plan id for exactly this chain body, still valid. */
export function checkPlanId(
  sealKeys: Pick<SealKeys, 'keys'>,
  caller: Caller,
  chain: unknown,
  id: string,
  now = Date.now(),
): PlanIdCheck {
  const parts = PLAN_ID.exec(id);
  if (!parts) return { ok: false, why: 'malformed' };
  const expires = parseInt(parts[1]!, 36);
  const expected = Buffer.from(mac(keyOf(sealKeys), caller, expires, chain), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(parts[2]!, 'hex'))) return { ok: false, why: 'not_this_plan' };
  return expires < now ? { ok: false, why: 'expired' } : { ok: true };
}
