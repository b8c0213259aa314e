/**
 * The `agentReach` Nexus service on the message worker (`nexusServices`). `sendMessage` is a workflow-run
 * operation: it starts the gateway's `sendMessage` workflow under the api's id, `msg:<tenant>:<message_id>`, on the
 * worker's own task queue, and the operation completes when that run does, with its final status.
 *
 * A repeat is one run. While the run is open, a repeat start attaches to it (Temporal adds the repeat's completion
 * callback), so every caller gets the result; once the run has ended, a repeat gets its final status (or the
 * failure it ended with) at once. Without a `message_id`, the message id is made from the Nexus request id, which
 * Temporal keeps for every retry of one operation: one operation, one message.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { getClient, startWorkflow, WorkflowRunOperationHandler } from '@temporalio/nexus';
import * as nexus from 'nexus-rpc';
import { SEND_FAILURES, SEND_MESSAGE_WORKFLOW, type SendMessageInput, type SendMessageWorkflow } from '../messages/direct';
import type { MessageStatus } from '../messages/message';
import { messageWorkflowId } from '../messages/temporal';
import { TENANT_PATTERN } from '../rules/api-key';
import { agentReachService } from './service';

type Message = SendMessageInput & { message_id: string };

/**
 * A refusal as an operation error. Without `details`: @temporalio/worker 1.13.2 cannot encode an operation error
 * whose failure carries details (toProto3JSON throws "don't know how to convert value" on the payload's metadata,
 * and the Nexus task fails as a retryable internal error until the operation times out).
 */
function operationFailed(failure: ApplicationFailure): nexus.OperationError {
  const cause = ApplicationFailure.create({ type: failure.type ?? undefined, message: failure.message, nonRetryable: failure.nonRetryable ?? undefined });
  return new nexus.OperationError('failed', failure.message, { cause });
}

/** The fields the workflow id is made of; everything else is checked by the run itself, as for any direct start. */
function messageOf(request: unknown, requestId: string | undefined): Message {
  const invalid = (path: string, message: string) =>
    operationFailed(ApplicationFailure.create({ type: SEND_FAILURES.invalidInput, message: `invalid input: ${path}: ${message}`, nonRetryable: true }));
  if (typeof request !== 'object' || request === null || Array.isArray(request)) throw invalid('(input)', 'an object is required');
  const input = request as SendMessageInput;
  if (typeof input.tenant !== 'string' || !TENANT_PATTERN.test(input.tenant)) throw invalid('tenant', 'a tenant is 1–63 of a–z 0–9 _ - starting with a letter or digit');
  if (input.message_id !== undefined && typeof input.message_id !== 'string') throw invalid('message_id', 'a string is required');
  const messageId = input.message_id ?? (requestId ? `nexus_${requestId.replaceAll('-', '')}` : undefined);
  if (!messageId) throw invalid('message_id', 'required (this request has no Nexus request id to make one from)');
  return { ...input, message_id: messageId };
}

/**
 * The final status of a run that has ended; a run that failed fails the operation with the same failure (one that
 * was cancelled, terminated or timed out too: rethrown as is, it would be retried until the operation times out).
 */
async function endedRun(message: Message): Promise<MessageStatus> {
  try {
    return await getClient().workflow.getHandle<SendMessageWorkflow>(messageWorkflowId(message.tenant, message.message_id)).result();
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const { cause } = error;
    if (cause instanceof CancelledFailure) throw new nexus.OperationError('canceled', cause.message);
    throw operationFailed(cause instanceof ApplicationFailure ? cause : ApplicationFailure.create({ type: cause?.name, message: cause?.message ?? error.message, nonRetryable: true }));
  }
}

export function agentReachServiceHandler() {
  const run = new WorkflowRunOperationHandler<Message, MessageStatus>((ctx, message) =>
    startWorkflow<SendMessageWorkflow>(ctx, SEND_MESSAGE_WORKFLOW, {
      workflowId: messageWorkflowId(message.tenant, message.message_id),
      args: [message],
      // Open: attach to the run. Ended: refused (the message id is the idempotency key for ever, as on the api).
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    }),
  );
  return nexus.serviceHandler(agentReachService, {
    sendMessage: {
      async start(ctx, request) {
        const message = messageOf(request, ctx.requestId);
        try {
          return await run.start(ctx, message);
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          return nexus.HandlerStartOperationResult.sync(await endedRun(message));
        }
      },
      getInfo: (ctx, token) => run.getInfo(ctx, token),
      getResult: (ctx, token) => run.getResult(ctx, token),
      cancel: (ctx, token) => run.cancel(ctx, token),
    },
  });
}
