/**
 * `mapChainStep`: maps a step of a chain whose templates (or `when`) read results the chain keeps by reference (a
 * run that continued as new keeps only small results: chains/run-state.ts). The results it needs are read from
 * their steps' message runs with the worker's Temporal client — each at most MAX_PAYLOAD_BYTES, as every result —
 * and only what the workflow needs goes back into its history: the built message (checked against the size cap
 * first) or whether `when` holds.
 *
 * Only for the chain run that scheduled it, and only results of that chain's own messages: a run of another type,
 * or another chain's, is refused (non-retryable) and nothing is read.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { StepAddress, StepCondition } from '../chains/chain';
import { conditionHolds } from '../chains/condition';
import { refsIn, sourceOf } from '../chains/pointer';
import { stepMessage, type ChainDocument, type StepMessage } from '../chains/step-message';
import { chainWorkflowId, RUN_CHAIN_WORKFLOW } from '../chains/temporal';
import type { MessageStatus } from '../messages/message';
import { messageWorkflowId } from '../messages/temporal';

export interface MapChainStepRequest {
  tenant: string;
  chain_id: string;
  /** The results the run keeps, and the chain's input. */
  document: ChainDocument;
  /** Step id → the message id of its result kept by reference. */
  referenced: Record<string, string>;
  /** The templates to build into a message… */
  address?: StepAddress;
  /** …or the condition to evaluate. */
  when?: StepCondition;
  /** MAX_PAYLOAD_BYTES. */
  max_bytes?: number;
}

export type MapChainStepResult = { message: StepMessage } | { when_holds: boolean };

/** The failure type when a result kept by reference cannot be read (its message run is gone). */
export const RESULT_UNAVAILABLE = 'result_unavailable';

export interface MapChainStepDeps {
  /** A processed message's result; by default from its run, through the worker's Temporal client. */
  readResult?: (tenant: string, messageId: string) => Promise<unknown>;
  /** The run that scheduled the activity; by default from the activity's info. */
  scheduledBy?: () => { workflow_id: string; workflow_type: string };
}

async function resultOfRun(tenant: string, messageId: string): Promise<unknown> {
  const { client } = Context.current();
  try {
    const status = (await client.workflow.getHandle(messageWorkflowId(tenant, messageId)).result()) as MessageStatus;
    return status.result;
  } catch (error) {
    throw ApplicationFailure.nonRetryable(
      `the result of message ${messageId} can no longer be read: ${(error as Error).message}`,
      RESULT_UNAVAILABLE,
    );
  }
}

function activityRun(): { workflow_id: string; workflow_type: string } {
  const { info } = Context.current();
  return { workflow_id: info.workflowExecution.workflowId, workflow_type: info.workflowType };
}

/** The steps whose referenced results the templates read. */
function neededSteps(request: MapChainStepRequest): string[] {
  const templates = [
    request.address?.input,
    request.address?.payload,
    request.when ? { $ref: request.when.$ref } : undefined,
  ];
  const steps = templates
    .flatMap((template) => refsIn(template).map(({ ref }) => sourceOf(ref)))
    .flatMap((source) => (source.kind === 'step' ? [source.step] : []));
  return [...new Set(steps)].filter((step) => request.referenced[step] !== undefined);
}

export function createMapChainStep(deps: MapChainStepDeps = {}) {
  return async function mapChainStep(request: MapChainStepRequest): Promise<MapChainStepResult> {
    const run = (deps.scheduledBy ?? activityRun)();
    if (
      run.workflow_type !== RUN_CHAIN_WORKFLOW ||
      run.workflow_id !== chainWorkflowId(request.tenant, request.chain_id)
    ) {
      throw ApplicationFailure.nonRetryable(
        `mapChainStep refused: scheduled by ${run.workflow_type} ${run.workflow_id}, not by the run of chain ${request.chain_id}`,
        'foreign_caller',
      );
    }
    const needed = neededSteps(request);
    const foreign = needed
      .map((step) => request.referenced[step]!)
      .find((messageId) => !messageId.startsWith(`${request.chain_id}:`));
    if (foreign)
      throw ApplicationFailure.nonRetryable(
        `mapChainStep refused: message ${foreign} is not of chain ${request.chain_id}`,
        'foreign_caller',
      );
    const read = deps.readResult ?? resultOfRun;
    const steps = { ...request.document.steps };
    for (const step of needed) steps[step] = { result: await read(request.tenant, request.referenced[step]!) };
    const document = { input: request.document.input, steps };
    if (request.when) return { when_holds: conditionHolds(document, request.when) };
    return { message: stepMessage(request.address ?? {}, document, request.max_bytes) };
  };
}
