/**
 * The gateway's seal on a message run's input. Only the gateway (the api's intake and redrive, the worker's
 * `prepareMessage` for direct `sendMessage` starts) builds a message run's input, and it seals what it built
 * with a key that namespace clients do not have. The worker checks the seal before every delivery and before a
 * `reply_to` notification, so a run of the internal workflow type started by anyone else delivers and notifies
 * nothing (docs/security.md, "Temporal ways in").
 *
 * What a seal proves: the input is one the gateway built, byte for byte (canonical JSON), for this workflow id.
 * A copy of a sealed input could be started again under the same workflow id once its run has ended; the seal's
 * time bounds that to `SEAL_MAX_SKEW_MS` around the moment it was sealed (the run's start time comes from Temporal).
 *
 * Uses node:crypto: never import from workflows.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { MessageInput } from './message';
import { messageWorkflowId } from './temporal';
import { canonicalJson } from '../rules/ids';

/** How far a run's start may lie from the moment its input was sealed (prepare retries, clock skew). */
export const SEAL_MAX_SKEW_MS = 5 * 60_000;

/** A run input the gateway may seal: a message run's, a chain's. */
export interface Sealable {
  seal?: { at: string; mac: string } | undefined;
}

function macOf(input: Sealable, sealedAt: string, key: string): string {
  const { seal: _ignored, ...sealed } = input;
  return createHmac('sha256', key)
    .update(`${sealedAt}\n${canonicalJson(sealed)}`)
    .digest('base64url');
}

/** The input with the gateway's seal, made now. */
export function sealInput<T extends Sealable>(input: T, key: string, now: Date): T {
  const at = now.toISOString();
  return { ...input, seal: { at, mac: macOf(input, at, key) } };
}

/** The keys of a deployment (the first seals, all are accepted) and since when it seals (ISO time). */
export interface SealKeys {
  keys: readonly string[];
  since: string;
}

/** Where a sealed input is being run: the workflow id (activity info) and the run's start (workflow info). */
export interface RunOfInput {
  workflowId: string;
  startedAt: string;
}

export type SealVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Whether `input` carries a seal of this gateway, made for this run. A run started before the deployment sealed
 * (an earlier version of the gateway started it) needs none. `sealedFor`: the workflow id the input belongs to (a
 * message's by default).
 */
export function checkSeal(input: MessageInput, keys: SealKeys, run: RunOfInput): SealVerdict {
  return checkSealOf(input, keys, run, messageWorkflowId(input?.tenant, input?.message_id));
}

/** Whether `input` (of any run the gateway seals) carries a seal of this gateway, made for the run `sealedFor`. */
export function checkSealOf(
  input: Sealable,
  { keys, since }: SealKeys,
  run: RunOfInput,
  sealedFor: string,
): SealVerdict {
  const seal = input?.seal;
  if (!seal && Date.parse(run.startedAt) < Date.parse(since)) return { ok: true };
  if (!seal || typeof seal.at !== 'string' || typeof seal.mac !== 'string')
    return { ok: false, reason: 'the input carries no gateway seal' };
  const given = Buffer.from(seal.mac);
  const matches = keys.some((key) => {
    const expected = Buffer.from(macOf(input, seal.at, key));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!matches) return { ok: false, reason: 'the gateway seal does not match the input' };
  if (run.workflowId !== sealedFor)
    return { ok: false, reason: `the input was sealed for ${sealedFor}, not ${run.workflowId}` };
  const skew = Math.abs(Date.parse(run.startedAt) - Date.parse(seal.at));
  if (!(skew <= SEAL_MAX_SKEW_MS))
    return {
      ok: false,
      reason: `the run started ${Math.round(skew / 1000)} s away from its seal (at most ${SEAL_MAX_SKEW_MS / 1000} s)`,
    };
  return { ok: true };
}
