/**
 * What one run of a chain hands the next when it continues as new (docs/chains.md, "Limits"): the status (results
 * over the inline cap by reference), which steps completed in which order, what stopped the chain, a pending cancel,
 * and the limits it applies. The next run rebuilds the document its pointers read from it: small results as they
 * are, large ones as references read from their messages when a step needs them. Pure: safe in workflows.
 */
import type { ChainStatus, StepError } from './chain';
import type { ChainDocument } from './step-message';

/** The limits a chain's run applies while its steps run (from the worker's config, through `prepareChain`). */
export interface ChainRunLimits {
  /** MAX_PAYLOAD_BYTES: a step's mapped message must fit it. */
  max_message_bytes: number;
  /** CHAIN_HISTORY_MAX_BYTES: past it, the run continues as new once no step is running. */
  max_history_bytes: number;
}

/** What stopped a chain: the failed step, its error, whether the chain compensates. */
export interface ChainStop {
  step: string;
  error: StepError;
  compensate: boolean;
}

export interface ChainResume {
  status: ChainStatus;
  completed_in_order: string[];
  stop?: ChainStop;
  cancel_request?: { reason?: string };
  limits: ChainRunLimits;
}

/** The document of a resumed run, and the steps whose results it reads from their messages (step id → message id). */
export function resumedDocument(
  input: unknown,
  status: ChainStatus,
): { document: ChainDocument; referenced: Map<string, string> } {
  const document: ChainDocument = { input, steps: {} };
  const referenced = new Map<string, string>();
  for (const step of status.steps) {
    if (step.state !== 'completed') continue;
    if (step.result_ref) referenced.set(step.id, step.result_ref.message_id);
    else document.steps[step.id] = { result: step.result };
  }
  return { document, referenced };
}

/** Whether a run's history is past its budget (or Temporal suggests continuing as new). */
export function historyFull(
  limits: ChainRunLimits | undefined,
  info: { historySize: number; continueAsNewSuggested: boolean },
): boolean {
  return limits !== undefined && (info.historySize > limits.max_history_bytes || info.continueAsNewSuggested);
}
