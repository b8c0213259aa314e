/**
 * A message's runs in Temporal, read by the api: the latest run, its status (queried while it runs, its result once
 * it ended), and waiting for it to end.
 */
import {
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import type { MessageInput, MessageStatus, MessageTarget } from './message';
import { endedStatus, startingStatus } from './status';
import { messageWorkflowId, SA_STATE, statusQuery } from './temporal';

/** What every message run carries in its memo, readable without a worker. */
export interface MessageMemo {
  body_hash: string;
  trace_id: string;
  target: MessageTarget;
  accepted_at: string;
  /** The caller's session, when it named one (runs started before it was kept have none). */
  session_id?: string;
}

/** Thrown when a running message's status cannot be read because no worker answers the query. */
export class StatusUnavailableError extends Error {
  constructor(
    readonly messageId: string,
    options?: ErrorOptions,
  ) {
    super(`status of ${messageId} is unavailable: no worker answered`, options);
    this.name = 'StatusUnavailableError';
  }
}

export class MessageRuns {
  constructor(readonly client: Client) {}

  /** The message's latest run, or the run `runId`. */
  handle(tenant: string, messageId: string, runId?: string): WorkflowHandle {
    return this.client.workflow.getHandle(messageWorkflowId(tenant, messageId), runId);
  }

  /** The latest run of the message, or undefined when there is none. */
  async describe(tenant: string, messageId: string): Promise<WorkflowExecutionDescription | undefined> {
    try {
      return await this.handle(tenant, messageId).describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  async get(tenant: string, messageId: string): Promise<MessageStatus | undefined> {
    const description = await this.describe(tenant, messageId);
    return description && this.statusOf(tenant, messageId, description);
  }

  /** The status of a run: queried while it runs, its result once completed. */
  async statusOf(tenant: string, messageId: string, description: WorkflowExecutionDescription): Promise<MessageStatus> {
    const status = await this.runStatus(tenant, messageId, description);
    const sessionId = (description.memo as Partial<MessageMemo> | undefined)?.session_id;
    return typeof sessionId === 'string' ? { ...status, session_id: sessionId } : status;
  }

  private async runStatus(
    tenant: string,
    messageId: string,
    description: WorkflowExecutionDescription,
  ): Promise<MessageStatus> {
    const handle = this.handle(tenant, messageId, description.runId);
    switch (description.status.name) {
      case 'RUNNING':
        try {
          return await handle.query(statusQuery);
        } catch (error) {
          throw new StatusUnavailableError(messageId, { cause: error });
        }
      case 'COMPLETED':
        return (await handle.result()) as MessageStatus;
      default:
        return abnormalEnd(tenant, messageId, description);
    }
  }

  /** What the message's latest run was started with (its first history event), or undefined when there is none. */
  async input(tenant: string, messageId: string): Promise<MessageInput | undefined> {
    const { client } = this;
    try {
      const history = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId: messageWorkflowId(tenant, messageId) },
        maximumPageSize: 1,
      });
      const payload = history.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      return payload
        ? (client.options.loadedDataConverter.payloadConverter.fromPayload(payload) as MessageInput)
        : undefined;
    } catch (error) {
      if ((error as { code?: number }).code === 5) return undefined; // gRPC NOT_FOUND
      throw error;
    }
  }

  /**
   * Waits up to `ms` for the message to end (or, with `orInput`, to wait for the caller's input); returns its status
   * then, or undefined if it is still in flight. Polls the run's description (no worker needed; a run waiting for
   * input shows it in its search attributes), backing off from 25 ms to 250 ms.
   */
  async waitForEnd(
    tenant: string,
    messageId: string,
    ms: number,
    options: { orInput?: boolean } = {},
  ): Promise<MessageStatus | undefined> {
    const deadline = Date.now() + ms;
    for (let pause = 25; ; pause = Math.min(250, pause * 2)) {
      const description = await this.describe(tenant, messageId);
      if (description && description.status.name !== 'RUNNING') return this.statusOf(tenant, messageId, description);
      if (description && options.orInput && description.typedSearchAttributes.get(SA_STATE) === 'input_required') {
        const status = await this.statusOf(tenant, messageId, description);
        if (status.state === 'input_required') return status;
      }
      if (Date.now() + pause > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** A run that ended without returning a status: terminated, cancelled or timed out by an operator or Temporal. */
function abnormalEnd(tenant: string, messageId: string, description: WorkflowExecutionDescription): MessageStatus {
  const memo = description.memo as Partial<MessageMemo> | undefined;
  const closed = (description.closeTime ?? new Date()).toISOString();
  const state =
    description.status.name === 'CANCELLED'
      ? 'cancelled'
      : description.status.name === 'TIMED_OUT'
        ? 'expired'
        : 'failed';
  const started = startingStatus(
    {
      message_id: messageId,
      trace_id: memo?.trace_id ?? '',
      tenant,
      target: memo?.target ?? { agent_id: '', capability: '' },
      accepted_at: memo?.accepted_at ?? description.startTime.toISOString(),
    },
    closed,
  );
  return endedStatus(
    started,
    state,
    { code: 'terminated', message: `the workflow run ended as ${description.status.name}` },
    closed,
  );
}
