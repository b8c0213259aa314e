/**
 * The checks each gateway activity makes of the run that scheduled it, before it reads, sends, signs or records
 * anything (activities/run-provenance.ts says why and how the run is known). A refusal is a non-retryable
 * `foreign_caller` failure: nothing happened.
 *
 * - `local`: activities the gateway runs only as local activities of its own workflows (lean delivery, settlement,
 *   A2A task reads, a chain's check).
 * - `messageRun`: activities acting for one message (classic runs' regular activities, WebSocket delivery on the
 *   replica holding the socket, rerouting on the api): a local call, or a gateway run of a message type or of
 *   `sendMessage` on the gateway's queue, for this very message; a message run's input must carry the gateway's seal
 *   made for it (messages/seal.ts; `sendMessage` builds and seals its input itself, in its first activity).
 */
import type { MessageInput } from '../messages/message';
import { checkSeal, type SealKeys } from '../messages/seal';
import { MESSAGE_WORKFLOW_TYPES, messageWorkflowId } from '../messages/temporal';
import { SEND_MESSAGE_WORKFLOW } from '../temporal-callers/contract';
import { foreignCaller, type RunProvenance, type StartedRun } from './run-provenance';
import { ApplicationFailure } from '@temporalio/common';
import { chainCaller, type ChainCallerDeps } from '../chains/chain-caller';
import type { RunChainInput } from '../chains/temporal';

/** The types of run that act for one message. */
export const MESSAGE_RUN_TYPES: readonly string[] = [...MESSAGE_WORKFLOW_TYPES, SEND_MESSAGE_WORKFLOW];

/** Which message an activity acts for, when its request says. */
export type MessageNamed = Pick<MessageInput, 'tenant' | 'message_id'>;

export interface CallerChecks {
  local(activity: string): void;
  messageRun(activity: string, message?: MessageNamed): Promise<void>;
  /** A chain about to run: the caller its steps will be sent as is known and may send (chains/chain-caller.ts). */
  chainCaller(input: RunChainInput, deps: Omit<ChainCallerDeps, 'sealKeys'> | undefined): Promise<void>;
}

/** Whether a message run started by Temporal as `run` carries the gateway's seal (or predates sealing). */
export function sealOfRun(run: StartedRun, sealKeys: SealKeys): { ok: true } | { ok: false; reason: string } {
  if (!MESSAGE_WORKFLOW_TYPES.includes(run.type)) return { ok: true };
  return checkSeal(run.input as MessageInput, sealKeys, { workflowId: run.workflow_id, startedAt: run.started_at });
}

export function callerChecks(provenance: RunProvenance, sealKeys: SealKeys): CallerChecks {
  return {
    local: (activity) => provenance.requireLocal(activity),
    async messageRun(activity, message) {
      if (provenance.isLocal()) return;
      const run = await provenance.schedulingRun(activity, MESSAGE_RUN_TYPES);
      if (message && run.workflow_id !== messageWorkflowId(message.tenant, message.message_id)) {
        throw foreignCaller(activity, `the run ${run.workflow_id} is not message ${message.message_id}'s`);
      }
      const seal = sealOfRun(run, sealKeys);
      if (!seal.ok) throw foreignCaller(activity, `the run was not started by the gateway (${seal.reason})`);
    },
    async chainCaller(input, deps) {
      if (!deps) throw ApplicationFailure.nonRetryable('this worker does not run chains', 'not_configured');
      const run = await provenance.currentRun();
      const found = await chainCaller({ ...deps, sealKeys }, input, {
        workflowId: run.workflow_id,
        startedAt: run.started_at,
      });
      if ('refusal' in found) throw ApplicationFailure.nonRetryable(found.refusal.message, found.refusal.type);
    },
  };
}

/** `run` once `check` has passed with the same arguments. */
export function checked<F extends (...args: any[]) => Promise<unknown>>(
  check: (...args: Parameters<F>) => void | Promise<void>,
  run: F,
): F {
  return (async (...args: Parameters<F>) => {
    await check(...args);
    return run(...args);
  }) as F;
}
