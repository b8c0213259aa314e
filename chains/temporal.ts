/**
 * What the api, the worker and the chain workflow share about Temporal: the workflow type, ids, the status query
 * and the cancel update. Safe to import from workflows (no I/O).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { Caller } from '../rules/api-key';
import type { ErrorCode } from '../rules/error-codes';
import type { ChainBody, ChainState, ChainStatus } from './chain';
import type { ChainRunLimits } from './run-state';

/** The chain workflow's type, for the api and for Temporal-native callers. */
export const RUN_CHAIN_WORKFLOW = 'runChain';

/** Workflow id of a chain (platform/temporal-names.ts owns every name the gateway gives in Temporal). */
export { chainWorkflowId } from '../platform/temporal-names';

/**
 * A step's message id: `<chain_id>:<step_id>`. Chain ids and step ids hold no `:`, so the ids of two chains' steps
 * never meet, and they are valid message ids (at most 64 + 1 + 32 characters).
 */
export function stepMessageId(chainId: string, stepId: string): string {
  return `${chainId}:${stepId}`;
}

/** The message id of a step's compensation: `<chain_id>:<step_id>:compensate`. */
export function compensationMessageId(chainId: string, stepId: string): string {
  return `${chainId}:${stepId}:compensate`;
}

/**
 * The input of `runChain`: the body of `POST /v1/chains` with its chain id, plus the tenant and who sends
 * (chains/chain-caller.ts): the caller the api authenticated, under the gateway's seal; or, from a Temporal-native
 * caller, an API key id and the proof that it sends this chain body. Each step is checked as a message from that
 * caller; no proof that could send another message is kept in the run's history.
 */
export interface RunChainInput extends ChainBody {
  tenant: string;
  chain_id: string;
  key_id?: string;
  /** `signProof(apiKey, {kind: 'chain', …})` of this chain body (temporal-callers/chain-client.ts `chainAsKey`). */
  key_proof?: string;
  /** Chains started before chain proofs: an id-only proof per message id. Honoured for those runs, never made now. */
  key_proofs?: Record<string, string>;
  /** The caller the api authenticated (chains it starts), under `seal`. */
  caller?: Caller;
  /** The gateway's seal on this input (messages/seal.ts), made for this chain's workflow id. */
  seal?: { at: string; mac: string };
  /**
   * The limits the run applies (the api's MAX_PAYLOAD_BYTES and CHAIN_HISTORY_MAX_BYTES), under `seal`: a chain the
   * api sealed with them is not checked again by `prepareChain` (runs since DIRECT_STEPS).
   */
  limits?: ChainRunLimits;
  /** First retry delay of the `reply_to` notification (the api's CALLER_WEBHOOK_RETRY_INITIAL_MS). @default 5000 */
  reply_retry_initial_ms?: number;
}

/** What every chain run carries in its memo: the body's hash (a repeat of the same body is a duplicate). */
export interface ChainMemo {
  body_hash: string;
  /** The body's `summary` ask, so that a read adds the summary without the run's history (chains/aggregate.ts). */
  summary?: { request: string };
}

export const chainStatusQuery = defineQuery<ChainStatus>('chainStatus');

/** Cancels the chain unless it already ended: running steps' messages are cancelled, no new step starts. */
export const cancelChainUpdate = defineUpdate<{ cancelled: boolean; state: ChainState }, [{ reason?: string }]>(
  'cancelChain',
);

/** Types of the non-retryable failures `runChain` ends with when it runs nothing. */
export const CHAIN_FAILURES = {
  /** The body (or the resume state) does not pass the schema: the api's and sendMessage's code for the same refusal. */
  invalidChain: 'invalid_request',
  workflowIdMismatch: 'workflow_id_mismatch',
} as const satisfies Record<string, ErrorCode>;
