/**
 * Chains as the api serves them: start one (once per chain id: a repeat of the same body answers with the chain,
 * another body under the same id is a conflict), read its status, cancel it. The body is checked in full first
 * (chains/check-chain.ts), so a refused chain starts nothing. Returns tagged results; routes map them to HTTP.
 */
import { randomUUID } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import type { AgentQueries } from '../catalogue/agent-queries';
import { chainLimits, type Config } from '../platform/config';
import { recordedCaller, type Caller } from '../rules/api-key';
import { sealInput, type SealKeys } from '../messages/seal';
import { checkEndpoint, type EndpointPolicy, type Lookup } from '../rules/endpoint-policy';
import { canonicalJson, sha256Hex } from '../rules/ids';
import { withAggregate, type ChainAggregate, type SummaryAsk } from './aggregate';
import type { ChainState, ChainStatus, StepStatus } from './chain';
import { sentOf } from './chain-sent';
import { inlineResultCap, keptResult } from './result-refs';
import { MessageRuns } from '../messages/runs';
import { isTerminal } from '../messages/message';
import { checkChain, type ChainRefusal } from './check-chain';
import type { ChainBodyInput } from './chain-schema';
import { plannedSteps } from './plan';
import {
  cancelChainUpdate,
  chainStatusQuery,
  chainWorkflowId,
  compensationMessageId,
  RUN_CHAIN_WORKFLOW,
  stepMessageId,
  type ChainMemo,
  type RunChainInput,
} from './temporal';
import { chainListQuery, pageOfChainIds } from './list';
import { ConcurrencyLimit } from '../util/concurrency-limit';
import { cursorOfToken, pageTokenOf } from '../util/page-token';

export type StartChainResult =
  | { kind: 'accepted'; status: ChainStatus }
  | { kind: 'duplicate'; status: ChainStatus & ChainAggregate }
  | { kind: 'conflict'; chain_id: string }
  | { kind: 'refused'; refusal: ChainRefusal };

/** A page of the tenant's chains, and the cursor to the next when there may be more; or a cursor this list never gave. */
export type ChainListResult = { kind: 'page'; items: ChainStatus[]; next_cursor?: string } | { kind: 'invalid_cursor' };

export interface ChainListFilter {
  state?: ChainState;
  limit: number;
  cursor?: string;
}

/** Chains' statuses one list page reads at once. */
const LIST_READS_AT_ONCE = 8;

export type CancelChainResult =
  { kind: 'cancelled' } | { kind: 'already_ended'; state: ChainState } | { kind: 'unknown_chain' };

/** Tries of a cancel while the chain's run continues as new under it. */
const CANCEL_ATTEMPTS = 3;

/** Thrown when a running chain's status cannot be read because no worker answers the query. */
export class ChainStatusUnavailableError extends Error {}

export function newChainId(): string {
  return `chn_${randomUUID().replaceAll('-', '')}`;
}

/** The body's hash, kept in the run's memo: equal bodies (key order aside) are the same chain. */
export function chainBodyHash(body: ChainBodyInput & { chain_id: string }): string {
  return sha256Hex(canonicalJson(body));
}

/** Every message id a chain may send: each step's and each compensation's. */
export function chainMessageIds(body: Pick<ChainBodyInput, 'steps'>, chainId: string): string[] {
  return body.steps.flatMap((s) => [
    stepMessageId(chainId, s.id),
    ...(s.compensate ? [compensationMessageId(chainId, s.id)] : []),
  ]);
}

/** The summary a chain's run asked for, from its memo. */
function summaryAskOf(description: WorkflowExecutionDescription): SummaryAsk | undefined {
  const summary = (description.memo as Partial<ChainMemo> | undefined)?.summary;
  return typeof summary?.request === 'string' ? { request: summary.request } : undefined;
}

export interface ChainServiceDeps {
  client: Client;
  queries: Pick<AgentQueries, 'get' | 'checkReach'>;
  config: Pick<
    Config,
    | 'TEMPORAL_TASK_QUEUE'
    | 'MAX_CHAIN_STEPS'
    | 'MAX_CHAIN_DEPTH'
    | 'MAX_CHAIN_BYTES'
    | 'MAX_PAYLOAD_BYTES'
    | 'CHAIN_HISTORY_MAX_BYTES'
    | 'CALLER_WEBHOOK_SECRET'
    | 'CALLER_WEBHOOK_RETRY_INITIAL_MS'
  >;
  /** Where `reply_to` may point. */
  endpointPolicy: EndpointPolicy;
  lookup?: Lookup;
  /** Seals the chain's input with the caller the api authenticated (chains/chain-caller.ts). */
  sealKeys: SealKeys;
}

export class ChainService {
  private readonly listReads = new ConcurrencyLimit(LIST_READS_AT_ONCE);

  constructor(private readonly deps: ChainServiceDeps) {}

  /** What `start` would refuse the chain for, without starting it (the planner shows it beside a plan). */
  async check(
    caller: Caller,
    value: unknown,
  ): Promise<{ ok: true; body: ChainBodyInput } | { ok: false; refusal: ChainRefusal }> {
    const checked = await checkChain(
      { queries: this.deps.queries, limits: chainLimits(this.deps.config) },
      caller.tenant,
      value,
      caller,
    );
    if (!checked.ok) return { ok: false, refusal: checked.refusal };
    const replyRefusal = checked.body.reply_to && (await this.replyToRefusal(checked.body.reply_to.url));
    return replyRefusal ? { ok: false, refusal: replyRefusal } : { ok: true, body: checked.body };
  }

  /** Checks and starts the chain for `caller`, as whom each step is sent. */
  async start(caller: Caller, value: unknown): Promise<StartChainResult> {
    const tenant = caller.tenant;
    const checked = await this.check(caller, value);
    if (!checked.ok) return { kind: 'refused', refusal: checked.refusal };
    const chainId = checked.body.chain_id ?? newChainId();
    const body = { ...checked.body, chain_id: chainId };
    const memo: ChainMemo = { body_hash: chainBodyHash(body), ...(body.summary ? { summary: body.summary } : {}) };
    const unsealed: RunChainInput = {
      ...body,
      tenant,
      caller: recordedCaller({ ...caller, tenant }),
      ...(body.reply_to ? { reply_retry_initial_ms: this.deps.config.CALLER_WEBHOOK_RETRY_INITIAL_MS } : {}),
      ...this.sealedLimits(),
    };
    const input = sealInput(unsealed, this.deps.sealKeys.keys[0]!, new Date());
    try {
      await this.deps.client.workflow.start(RUN_CHAIN_WORKFLOW, {
        workflowId: chainWorkflowId(tenant, chainId),
        taskQueue: this.deps.config.TEMPORAL_TASK_QUEUE,
        args: [input],
        memo: { ...memo },
        staticSummary: `chain ${chainId}: ${body.steps.length} steps`,
        // The chain id is the idempotency key for ever, as a message id.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const description = await this.describe(tenant, chainId);
      if ((description?.memo as Partial<ChainMemo> | undefined)?.body_hash !== memo.body_hash)
        return { kind: 'conflict', chain_id: chainId };
      return {
        kind: 'duplicate',
        status: withAggregate(await this.statusOf(tenant, chainId, description!), summaryAskOf(description!)),
      };
    }
    const started_at = new Date().toISOString();
    const steps = plannedSteps(body).map((s) => ({
      id: s.id,
      after: s.after,
      message_id: stepMessageId(chainId, s.id),
      state: 'pending' as const,
    }));
    return { kind: 'accepted', status: { chain_id: chainId, tenant, state: 'running', steps, started_at } };
  }

  /** The chain's status with its aggregate (chains/aggregate.ts). */
  async get(tenant: string, chainId: string): Promise<(ChainStatus & ChainAggregate) | undefined> {
    const description = await this.describe(tenant, chainId);
    return description && withAggregate(await this.statusOf(tenant, chainId, description), summaryAskOf(description));
  }

  /** The status (with its aggregate) once the chain ended, within `ms`; else undefined. Polled, as messages are. */
  async waitForEnd(
    tenant: string,
    chainId: string,
    ms: number,
    signal?: AbortSignal,
  ): Promise<(ChainStatus & ChainAggregate) | undefined> {
    const deadline = Date.now() + ms;
    for (let pause = 25; ; pause = Math.min(250, pause * 2)) {
      const description = await this.describe(tenant, chainId);
      if (description && description.status.name !== 'RUNNING')
        return withAggregate(await this.statusOf(tenant, chainId, description), summaryAskOf(description));
      if (Date.now() + pause > deadline || signal?.aborted) return undefined;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /**
   * A page of the tenant's chains, running first, then by when they ended, newest first. Each listed chain's status is
   * read (its state is in its run, not in visibility), so a page filtered by state may hold fewer than `limit` chains
   * while a `next_cursor` still leads on. ChainStatusUnavailableError when a running chain's worker does not answer.
   */
  async list(tenant: string, filter: ChainListFilter): Promise<ChainListResult> {
    const query = chainListQuery(tenant, filter.state);
    // The cursor is MACed with the seal keys: one the caller made up never reaches Temporal.
    const keys = this.deps.sealKeys.keys;
    const cursor = cursorOfToken(filter.cursor ?? '', query, keys);
    if (cursor === 'invalid') return { kind: 'invalid_cursor' };
    const page = await pageOfChainIds(this.deps.client, tenant, query, filter.limit, cursor);
    const statuses = await Promise.all(page.chain_ids.map((id) => this.listReads.run(() => this.get(tenant, id))));
    const items = statuses.filter(
      (s): s is ChainStatus & ChainAggregate => s !== undefined && (!filter.state || s.state === filter.state),
    );
    const next = pageTokenOf(page.next_page_token, query, keys[0]);
    return { kind: 'page', items, ...(next ? { next_cursor: next } : {}) };
  }

  async cancel(tenant: string, chainId: string, reason?: string): Promise<CancelChainResult> {
    // A chain's run that continues as new while the update is in flight leaves it unanswered: the next run takes it
    // again (the cancel is idempotent).
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await this.deps.client.workflow
          .getHandle(chainWorkflowId(tenant, chainId))
          .executeUpdate(cancelChainUpdate, { args: [reason ? { reason } : {}] });
        return outcome.cancelled ? { kind: 'cancelled' } : { kind: 'already_ended', state: outcome.state };
      } catch (error) {
        const description = await this.describe(tenant, chainId);
        if (!description) return { kind: 'unknown_chain' };
        if (description.status.name === 'RUNNING' && attempt < CANCEL_ATTEMPTS) continue;
        if (description.status.name === 'RUNNING') throw error;
        return { kind: 'already_ended', state: (await this.statusOf(tenant, chainId, description)).state };
      }
    }
  }

  /** The limits the chain's run applies, sealed into its input: the run need not ask the worker's `prepareChain`. */
  private sealedLimits(): Pick<RunChainInput, 'limits'> {
    const { MAX_PAYLOAD_BYTES, CHAIN_HISTORY_MAX_BYTES } = this.deps.config;
    return MAX_PAYLOAD_BYTES && CHAIN_HISTORY_MAX_BYTES
      ? { limits: { max_message_bytes: MAX_PAYLOAD_BYTES, max_history_bytes: CHAIN_HISTORY_MAX_BYTES } }
      : {};
  }

  /** As for messages: `reply_to` needs the signing secret, and an address the endpoint policy allows. */
  private async replyToRefusal(url: string): Promise<ChainRefusal | undefined> {
    if (!this.deps.config.CALLER_WEBHOOK_SECRET)
      return {
        code: 'reply_to_unavailable',
        message: 'reply_to needs CALLER_WEBHOOK_SECRET to be configured on the gateway',
      };
    const verdict = await checkEndpoint(url, this.deps.endpointPolicy, this.deps.lookup);
    return verdict.allowed ? undefined : { code: 'endpoint_not_allowed', message: `reply_to: ${verdict.reason}` };
  }

  private async describe(tenant: string, chainId: string): Promise<WorkflowExecutionDescription | undefined> {
    try {
      return await this.deps.client.workflow.getHandle(chainWorkflowId(tenant, chainId)).describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * The steps of a chain whose run ended abnormally, each unfinished one as its message says: a run that waited for
   * its steps in a local activity (DIRECT_STEPS) records what its last workflow task saw only when that task ends,
   * and an operator's terminate may come first. Bounded: at most MAX_CHAIN_STEPS messages are read.
   */
  private async endedSteps(tenant: string, chainId: string, known: StepStatus[]): Promise<StepStatus[]> {
    const steps = known.length > 0 ? known : await this.plannedStatus(tenant, chainId);
    const runs = new MessageRuns(this.deps.client);
    const cap = inlineResultCap(steps.length);
    return Promise.all(
      steps.map(async (step) => {
        if (step.state !== 'pending' && step.state !== 'running') return step;
        const message = await runs.get(tenant, step.message_id).catch(() => undefined);
        if (!message) return step;
        if (!isTerminal(message.state)) return { ...step, state: 'running' as const };
        const { result, ...sent } = sentOf(message);
        return { ...step, ...sent, ...keptResult(step.message_id, result, cap) };
      }),
    );
  }

  /** The chain's steps as its input plans them, all pending (its first history event: one page of one event). */
  private async plannedStatus(tenant: string, chainId: string): Promise<StepStatus[]> {
    const { client } = this.deps;
    const history = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: chainWorkflowId(tenant, chainId) },
      maximumPageSize: 1,
    });
    const payload = history.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = payload
      ? (client.options.loadedDataConverter.payloadConverter.fromPayload(payload) as RunChainInput)
      : undefined;
    if (!input?.steps) return [];
    return plannedSteps(input).map((s) => ({
      id: s.id,
      after: s.after,
      message_id: stepMessageId(chainId, s.id),
      state: 'pending' as const,
    }));
  }

  /** Queried while it runs, its result once completed; a run that failed or was ended by an operator, from its description. */
  private async statusOf(
    tenant: string,
    chainId: string,
    description: WorkflowExecutionDescription,
  ): Promise<ChainStatus> {
    const handle = this.deps.client.workflow.getHandle(chainWorkflowId(tenant, chainId), description.runId);
    switch (description.status.name) {
      case 'RUNNING':
        try {
          return await handle.query(chainStatusQuery);
        } catch (error) {
          throw new ChainStatusUnavailableError(`status of chain ${chainId} is unavailable: no worker answered`, {
            cause: error,
          });
        }
      case 'COMPLETED':
        return (await handle.result()) as ChainStatus;
      default: {
        const failure = await handle.result().then(
          () => undefined,
          (error: Error) => (error.cause as Error | undefined)?.message ?? error.message,
        );
        const state: ChainState = description.status.name === 'CANCELLED' ? 'cancelled' : 'failed';
        const ended = (description.closeTime ?? new Date()).toISOString();
        // The steps as the run last knew them (a query replays its history), when a worker answers.
        const last = await handle.query(chainStatusQuery).catch(() => undefined);
        const started = last?.started_at ?? description.startTime.toISOString();
        const steps = await this.endedSteps(tenant, chainId, last?.steps ?? []);
        return {
          chain_id: chainId,
          tenant,
          state,
          steps,
          started_at: started,
          ended_at: ended,
          error: { code: 'terminated', message: failure ?? `the chain's run ended as ${description.status.name}` },
        };
      }
    }
  }
}
