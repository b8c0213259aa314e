/**
 * The `agentReach` Nexus service's handler, bound to one tenant (nexus/tenancy.ts: the task queue an operator's
 * endpoint targets says which). `sendMessage` is a workflow-run operation: it starts the gateway's `sendMessage`
 * workflow under the api's id, `msg:<tenant>:<message_id>`, on the gateway's task queue, and the operation completes
 * when that run does, with its final status.
 *
 * The input is checked as `POST /v1/messages` checks a request before any run starts. A repeat of the message id
 * is answered as a repeated POST is: another body → `conflict`; the same body, and the capability's ACL admits the
 * caller → the operation attaches to the open run (Temporal adds its completion callback) or gets the ended run's
 * final status at once. Cancelling an operation cancels the run only if that operation started it. Without a
 * `message_id`, the message id is made from the Nexus request id, which Temporal keeps for every retry of one
 * operation: one operation, one message.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { getClient, log, startWorkflow } from '@temporalio/nexus';
import * as nexus from 'nexus-rpc';
import type { AgentQueries } from '../../catalogue/agent-queries';
import {
  messageIdOf,
  SEND_FAILURES,
  SEND_MESSAGE_WORKFLOW,
  type SendMessageInput,
  type SendMessageWorkflow,
} from '../../temporal-callers/contract';
import {
  asInputRefusal,
  directCaller,
  parseDirectInput,
  type DirectCallerDeps,
  type InputRefusal,
} from '../../messages/direct-input';
import { refusalBeforeTarget } from '../../messages/intake-checks';
import type { MessageStatus } from '../../messages/message';
import { bodyHashOf } from '../../messages/message-input';
import type { MessageMemo } from '../../messages/runs';
import { messageWorkflowId } from '../../messages/temporal';
import type { Config } from '../../platform/config';
import type { EndpointPolicy } from '../../rules/endpoint-policy';
import type { SendMessageBody } from '../../messages/message-schema';
import { operationToken, runOfToken, type OperationRun } from './operation-token';
import { agentReachService } from '../../temporal-callers/nexus/service';
import { hasScope, recordedCaller, type Caller } from '../../rules/api-key';
import { TokenRefusal } from '../../identity/token-refusal';
import type { TokenVerifier } from '../../identity/token-verifier';
import { sealInput, type SealKeys } from '../../messages/seal';

export interface NexusHandlerDeps extends DirectCallerDeps {
  /** The one tenant this handler sends for. */
  tenant: string;
  /** The gateway's TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE, where message runs run. */
  namespace: string;
  messageTaskQueue: string;
  /** Checks the ACL of an existing message's capability before a repeat is answered. */
  queries: Pick<AgentQueries, 'checkReach'>;
  config: DirectCallerDeps['config'] & Pick<Config, 'MAX_PAYLOAD_BYTES' | 'CALLER_WEBHOOK_SECRET'>;
  /** The SSRF policy `reply_to` must pass, as on the api. */
  endpointPolicy: EndpointPolicy;
  now: () => number;
  /** Validates `access_token` (AUTH_OIDC_ISSUER); absent → operations carrying one are refused. */
  tokens?: TokenVerifier;
  /** Seals the input of a run started for a token caller, so `prepareMessage` knows the gateway vouched for it. */
  sealKeys?: SealKeys;
}

/** A checked request: the run's input and what a repeat is compared with. */
interface Message {
  tenant: string;
  /** Who sends, proven before anything else is read or started. */
  caller: Caller;
  workflowId: string;
  bodyHash: string;
  input: SendMessageInput & { message_id: string };
}

type StartResult = nexus.HandlerStartOperationResult<MessageStatus>;

/**
 * A refusal as an operation error (final: the caller's server does not retry it). Without `details`:
 * @temporalio/worker 1.13.2 cannot encode an operation error whose failure carries details (toProto3JSON throws
 * "don't know how to convert value" on the payload's metadata, and the Nexus task fails as a retryable internal
 * error until the operation times out).
 */
function operationFailed(failure: ApplicationFailure): nexus.OperationError {
  const cause = ApplicationFailure.create({
    type: failure.type ?? undefined,
    message: failure.message,
    nonRetryable: failure.nonRetryable ?? undefined,
  });
  return new nexus.OperationError('failed', failure.message, { cause });
}

const refused = (refusal: InputRefusal) =>
  operationFailed(ApplicationFailure.create({ type: refusal.type, message: refusal.message, nonRetryable: true }));

/** An answer that is not ready yet (the existing run is being prepared): the caller's server retries the start. */
const notYet = (message: string) => new nexus.HandlerError('UNAVAILABLE', message, { retryableOverride: true });

/**
 * The final status of a run that has ended; a run that failed fails the operation with the same failure (one that
 * was cancelled, terminated or timed out too: rethrown as is, it would be retried until the operation times out).
 */
async function endedRun(workflowId: string): Promise<MessageStatus> {
  try {
    return await getClient().workflow.getHandle<SendMessageWorkflow>(workflowId).result();
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const { cause } = error;
    if (cause instanceof CancelledFailure) throw new nexus.OperationError('canceled', cause.message);
    throw operationFailed(
      cause instanceof ApplicationFailure
        ? cause
        : ApplicationFailure.create({
            type: cause?.name,
            message: cause?.message ?? error.message,
            nonRetryable: true,
          }),
    );
  }
}

async function describe(workflowId: string): Promise<WorkflowExecutionDescription | undefined> {
  try {
    return await getClient().workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** The request checked as the api checks a POST, or refused before anything starts. */
async function messageOf(
  deps: NexusHandlerDeps,
  request: unknown,
  requestId: string | undefined,
): Promise<Message & { body: SendMessageBody }> {
  const parsed = parseDirectInput(request, deps.tenant);
  if ('refusal' in parsed) throw refused(parsed.refusal);
  const { tenant, keyId, keyProof, accessToken, sealed, body } = parsed.input;
  if (sealed)
    throw refused({
      type: SEND_FAILURES.invalidInput,
      message: 'invalid input: caller and seal are set by the gateway only',
    });
  const messageId = body.message_id ?? (requestId ? `nexus_${requestId.replaceAll('-', '')}` : undefined);
  if (!messageId)
    throw refused({
      type: SEND_FAILURES.invalidInput,
      message: 'invalid input: message_id: required (this request has no Nexus request id to make one from)',
    });
  if (accessToken !== undefined) return tokenMessage(deps, tenant, messageId, body, accessToken);
  // The credential first: an operation without a valid one (or with another tenant's) reads and starts nothing.
  const found = await directCaller(deps, tenant, messageId, body, keyId, keyProof);
  if ('refusal' in found) throw refused(found.refusal);
  return {
    tenant,
    caller: found.caller,
    body,
    workflowId: messageWorkflowId(tenant, messageId),
    bodyHash: bodyHashOf(body),
    input: {
      ...body,
      tenant,
      message_id: messageId,
      ...(keyId === undefined ? {} : { key_id: keyId }),
      ...(keyProof === undefined ? {} : { key_proof: keyProof }),
    },
  };
}

/**
 * A message whose caller is an access token: checked first (signature, issuer, audience, expiry, tenant, `send`),
 * then dropped — the run's input carries the token's subject under the gateway's seal, never the token.
 */
async function tokenMessage(
  deps: NexusHandlerDeps,
  tenant: string,
  messageId: string,
  body: SendMessageBody,
  token: string,
): Promise<Message & { body: SendMessageBody }> {
  if (!deps.tokens || !deps.sealKeys)
    throw refused({
      type: SEND_FAILURES.invalidAccessToken,
      message: 'this deployment takes no access tokens (AUTH_OIDC_ISSUER is not set): send key_id and key_proof',
    });
  let caller: Caller;
  try {
    caller = await deps.tokens.verify(token, { forMcp: false });
  } catch (error) {
    if (!(error instanceof TokenRefusal)) throw error;
    throw refused({ type: SEND_FAILURES.invalidAccessToken, message: `${error.code}: ${error.message}` });
  }
  if (caller.tenant !== tenant)
    throw refused({
      type: 'tenant_mismatch',
      message: `the access token is of tenant ${caller.tenant}; this endpoint sends for tenant ${tenant} only`,
    });
  if (!hasScope(caller, 'send'))
    throw refused({
      type: SEND_FAILURES.insufficientScope,
      message: `the access token of ${caller.subject?.sub} lacks the send scope`,
    });
  const unsealed: SendMessageInput & { message_id: string } = {
    ...body,
    tenant,
    message_id: messageId,
    caller: recordedCaller(caller),
  };
  const input = sealInput(unsealed, deps.sealKeys.keys[0]!, new Date(deps.now()));
  return { tenant, caller, body, workflowId: messageWorkflowId(tenant, messageId), bodyHash: bodyHashOf(body), input };
}

/** Starts the run, or (`USE_EXISTING`) attaches this operation's completion callback to the open run. */
async function startRun(
  deps: NexusHandlerDeps,
  ctx: nexus.StartOperationContext,
  message: Message,
  attach: boolean,
): Promise<StartResult> {
  await startWorkflow<SendMessageWorkflow>(ctx, SEND_MESSAGE_WORKFLOW, {
    workflowId: message.workflowId,
    taskQueue: deps.messageTaskQueue,
    args: [message.input],
    // A repeat is told from a conflict from the start, before the run has prepared its input.
    memo: { body_hash: message.bodyHash },
    workflowIdConflictPolicy: attach ? 'USE_EXISTING' : 'FAIL',
    // The message id is the idempotency key for ever, as on the api: never a second run under the same id.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });
  const run: OperationRun = { workflowId: message.workflowId, attached: attach };
  return nexus.HandlerStartOperationResult.async(operationToken(deps.namespace, run));
}

/** `forbidden` unless the existing message's capability admits this caller, as on the api. */
async function requireReach(deps: NexusHandlerDeps, message: Message, target: MessageMemo['target']): Promise<void> {
  const check = await deps.queries.checkReach(message.tenant, target.agent_id, target.capability, message.caller);
  if (check.kind === 'forbidden')
    throw refused({
      type: SEND_FAILURES.forbidden,
      message: `the ACL of ${target.capability} does not admit this caller`,
    });
}

/**
 * The answer to a message id already taken, as a repeated POST gets it: `conflict` for another body; else, once
 * the ACL admits the caller, the open run (attached) or the ended run's outcome. Undefined when there is no run.
 */
async function repeatOf(
  deps: NexusHandlerDeps,
  ctx: nexus.StartOperationContext,
  message: Message,
): Promise<StartResult | undefined> {
  const description = await describe(message.workflowId);
  if (!description) return undefined;
  const memo = description.memo as Partial<MessageMemo> | undefined;
  const open = description.status.name === 'RUNNING';
  if (open && memo?.body_hash === undefined)
    throw notYet(`message ${message.input.message_id} is being started; its body is not known yet`);
  if (memo?.body_hash !== message.bodyHash) {
    throw refused({
      type: SEND_FAILURES.conflict,
      message: `message ${message.input.message_id} was already sent with a different body`,
    });
  }
  // The target is known once the run has prepared its input (milliseconds); a run that ended before has none.
  if (memo.target?.capability) await requireReach(deps, message, memo.target);
  else if (open) throw notYet(`message ${message.input.message_id} is being prepared; its target is not known yet`);
  if (open) {
    try {
      return await startRun(deps, ctx, message, true);
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      // It ended since: answered below.
    }
  }
  return nexus.HandlerStartOperationResult.sync(await endedRun(message.workflowId));
}

/** A sendMessage operation: the message checked, then its run started, or a repeat answered as the api answers it. */
async function startOperation(
  deps: NexusHandlerDeps,
  ctx: nexus.StartOperationContext,
  request: unknown,
): Promise<StartResult> {
  const message = await messageOf(deps, request, ctx.requestId);
  const refusal = await refusalBeforeTarget(message.body, {
    config: deps.config,
    endpointPolicy: deps.endpointPolicy,
    now: new Date(deps.now()),
  });
  // As on the api: a repeat of an accepted message is answered with it even once its deadline has passed.
  if (refusal) return (await repeatOf(deps, ctx, message)) ?? Promise.reject(refused(asInputRefusal(refusal)));
  try {
    return await startRun(deps, ctx, message, false);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const repeat = await repeatOf(deps, ctx, message);
    if (repeat) return repeat;
    throw notYet(`message ${message.input.message_id} was taken and is gone (past the idempotency window)`);
  }
}

/** Cancels the run if this operation started it; an attached operation leaves the other caller's run alone. */
async function cancelOperation(deps: NexusHandlerDeps, token: string): Promise<void> {
  let run: OperationRun;
  try {
    run = runOfToken(token);
  } catch (error) {
    throw new nexus.HandlerError('BAD_REQUEST', `not an operation token of this service: ${(error as Error).message}`);
  }
  if (messageIdOf(run.workflowId, deps.tenant) === undefined)
    throw new nexus.HandlerError('NOT_FOUND', `no operation of tenant ${deps.tenant} has that token`);
  if (run.attached) {
    log.info('cancel of an attached operation: the run is left to the caller that started it', {
      workflowId: run.workflowId,
    });
    return;
  }
  await getClient().workflow.getHandle(run.workflowId).cancel();
}

export function agentReachServiceHandler(deps: NexusHandlerDeps) {
  return nexus.serviceHandler(agentReachService, {
    sendMessage: {
      async start(ctx, request): Promise<StartResult> {
        return startOperation(deps, ctx, request);
      },
      getInfo() {
        throw new nexus.HandlerError('NOT_IMPLEMENTED', 'Method not implemented');
      },
      getResult() {
        throw new nexus.HandlerError('NOT_IMPLEMENTED', 'Method not implemented');
      },
      async cancel(_ctx, token) {
        await cancelOperation(deps, token);
      },
    },
  });
}
