/**
 * Everything the api does with messages, behind one small facade: intake, status, receipts, cancel, redrive and
 * list. Each is a module of its own in this folder; this wires them to one Temporal client and the config.
 */
import type { InputRequest } from '../protocol/turns';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Caller } from '../rules/api-key';
import type { AgentDoc } from '../store/agents';
import { cancelMessage, type CancelResult } from './cancel';
import { deliveryPolicy, MessageIntake, type IntakeDeps, type SendRequest, type SendResult } from './intake';
import {
  countMessages,
  listMessages,
  pageOfMessages,
  type MessageFilter,
  type MessagePage,
  type MessagePageFilter,
  type MessageSummary,
} from './list';
import type { MessageInput, MessageState, MessageStatus, ReplyInput } from './message';
import { replyToMessage, type ReplyResult } from './reply';
import { recordReceipt, type ReceiptBody, type ReceiptResult } from './receipts';
import { redriveMessage, type RedriveResult } from './redrive';
import { MessageRuns, type MessageMemo } from './runs';
import { a2aTaskChangedSignal } from './temporal';

export type MessageServiceDeps = { client: Client } & Omit<IntakeDeps, 'runs'>;

export class MessageService {
  private readonly runs: MessageRuns;
  private readonly intake: MessageIntake;

  constructor(private readonly deps: MessageServiceDeps) {
    this.runs = new MessageRuns(deps.client);
    this.intake = new MessageIntake({ ...deps, runs: this.runs });
  }

  /** Sends on behalf of `caller`, in its tenant; the target capability's ACL must admit it (now and at every attempt). */
  send(
    caller: Caller,
    body: SendRequest,
    traceId: string,
    endpoints: Parameters<MessageIntake['send']>[3],
  ): Promise<SendResult> {
    return this.intake.send(caller, body, traceId, endpoints);
  }

  /** The message's status, or undefined when there is no such message; StatusUnavailableError when no worker answers. */
  get(tenant: string, messageId: string): Promise<MessageStatus | undefined> {
    return this.runs.get(tenant, messageId);
  }

  /** What the message was started with (intent, params, payload), or undefined when there is no such message. */
  input(tenant: string, messageId: string): Promise<MessageInput | undefined> {
    return this.runs.input(tenant, messageId);
  }

  /** The final status when the message ends within `ms`, else undefined. */
  waitForEnd(tenant: string, messageId: string, ms: number): Promise<MessageStatus | undefined> {
    return this.runs.waitForEnd(tenant, messageId, ms);
  }

  /** The status when the message ends, or waits for the caller's input, within `ms`; else undefined. */
  waitForAnswer(tenant: string, messageId: string, ms: number): Promise<MessageStatus | undefined> {
    return this.runs.waitForEnd(tenant, messageId, ms, { orInput: true });
  }

  receipt(agent: AgentDoc, body: ReceiptBody): Promise<ReceiptResult> {
    return recordReceipt(this.runs, agent, body);
  }

  /**
   * Tells the run that its A2A agent's task changed (a push notification); false when no run of the message is going,
   * or when the message was not sent to `agentId` (read from the run's memo: no worker needed).
   */
  async a2aTaskChanged(tenant: string, messageId: string, agentId: string): Promise<boolean> {
    const run = await this.runs.describe(tenant, messageId);
    const memo = run?.memo as Partial<MessageMemo> | undefined;
    if (!run || run.status.name !== 'RUNNING' || memo?.target?.agent_id !== agentId) return false;
    try {
      await this.runs.handle(tenant, messageId, run.runId).signal(a2aTaskChangedSignal);
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  /** The caller's reply to a message waiting for input: its run delivers it as the next turn. */
  /** `question`: what the message waits for, when the caller has its status already (else it is read for params or answers). */
  async reply(tenant: string, messageId: string, reply: ReplyInput, question?: InputRequest): Promise<ReplyResult> {
    const read = reply.params !== undefined || reply.answers !== undefined;
    const asked = question ?? (read ? (await this.get(tenant, messageId))?.input_required : undefined);
    return replyToMessage(this.runs, tenant, messageId, reply, asked);
  }

  cancel(tenant: string, messageId: string, reason?: string): Promise<CancelResult> {
    return cancelMessage(this.runs, tenant, messageId, reason);
  }

  /** Redrives a dead letter as a send by `caller` (the target capability's ACL must admit it). */
  redrive(caller: Caller, messageId: string, deadline?: string): Promise<RedriveResult> {
    const { config, now, sealKeys, queries } = this.deps;
    return redriveMessage(
      {
        runs: this.runs,
        queries,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        policy: deliveryPolicy(config),
        sealKeys,
        ...(now ? { now } : {}),
      },
      caller,
      messageId,
      deadline,
    );
  }

  list(tenant: string, filter: MessageFilter): Promise<MessageSummary[]> {
    return listMessages(this.deps.client, tenant, filter);
  }

  /** The keys that MAC the page tokens callers are given for `page`'s cursors (util/page-token.ts): the seal keys. */
  get pageKeys(): readonly string[] {
    return this.deps.sealKeys.keys;
  }

  /** One page of the tenant's messages (ids in the visibility store's order), with the cursor to the next. */
  page(tenant: string, filter: MessagePageFilter, pageSize: number, pageToken?: Uint8Array): Promise<MessagePage> {
    return pageOfMessages(this.deps.client, tenant, filter, pageSize, pageToken);
  }

  /** How many messages, of every tenant, are in `state` (for the metrics). */
  count(state: MessageState): Promise<number> {
    return countMessages(this.deps.client, state);
  }
}
