/**
 * The A2A operations of the gateway's face, on the api's own services (the MCP face's twin): `SendMessage` goes
 * through the shared intake (`acceptMessage`: size limit, ACL, routing, idempotency by message id, metrics), tasks
 * are messages read with the message service, `CancelTask` cancels the message. The official SDK's JSON-RPC
 * transport (face.ts) calls these; every refusal is an A2A error, never an internal one.
 */
import type { Logger } from 'pino';
import { agentFacePath, exportA2aCard } from '../../catalogue/a2a';
import type { TokenVerifier } from '../../identity/token-verifier';
import type { Catalogue } from '../../catalogue/catalogue';
import { messagePageQuery } from '../../messages/list';
import { isTerminal, type MessageStatus } from '../../messages/message';
import type { MessageService } from '../../messages/message-service';
import { StatusUnavailableError } from '../../messages/runs';
import type { Config } from '../../platform/config';
import type { ApiMetrics } from '../../platform/metrics';
import { ConcurrencyLimit } from '../../util/concurrency-limit';
import { canReach } from '../../rules/acl';
import { callerIdOf, type Caller } from '../../rules/api-key';
import { newTraceId } from '../../rules/ids';
import { messageId as messageIdSchema } from '../../messages/message-schema';
import type { AgentDoc, CapabilityDoc } from '../../store/agents';
import { requireScope } from '../caller-auth';
import { requireAllowedEndpoints, type EndpointGuard } from '../endpoint-check';
import { ApiError } from '../errors';
import { acceptMessage, sendAnswer } from '../routes/messages';
import { replyBody, sendMessageBody } from '../schemas';
import { requireStoredSize } from '../stored-size';
import { parseInput } from '../validate';
import { gatewayCard, publicGatewayCard, pushConfigsOffered, servedCard } from './cards';
import { a2aConfigOf, pushConfigFieldsOf } from './push-configs';
import type { PushConfigStore } from '../../store/a2a-push-configs';
import {
  A2AError,
  AgentCard,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  Task,
  TaskArtifactUpdateEvent,
  TaskNotCancelableError,
  TaskStatusUpdateEvent,
  TaskNotFoundError,
  UnsupportedOperationError,
  type A2ARequestHandler,
  type AgentCardType,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type ListTaskPushNotificationConfigsRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type ServerCallContext,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type TaskPushNotificationConfig,
  type TaskType,
  type User,
} from './sdk';
import { cursorOf, historyLengthOf, listingOf, pageTokenOf } from './list-tasks';
import { answersOf, PLAN_AND_RUN_SKILL_ID, replyBodyOf, sendBodyOf, traceIdOfContext } from './send';
import { isPlanTaskId, planMessageOf, type A2aPlanTasks } from './plan-tasks';
import { artifactsOf, contextIdOf, historyOf, TASK_STATE_OF, taskOf, taskStatusOf } from './task';

export interface A2aDeps {
  config: Config;
  catalogue: Catalogue;
  messages: MessageService;
  metrics: ApiMetrics;
  logger: Logger;
  /** The endpoint policy intake applies (as on `POST /v1/messages`). */
  endpoints: EndpointGuard;
  /** Validates access tokens; its issuers' metadata gives the cards' OAuth2 flows. */
  tokens?: TokenVerifier;
  /** The callers' push notification configs (absent: not offered). */
  pushConfigs?: PushConfigStore;
  /** The `plan_and_run` skill's tasks (absent: the skill is not served). */
  plans?: A2aPlanTasks;
}

/** Who calls (their API key) and at which face: the gateway's, or one agent's. */
export class KeyUser implements User {
  constructor(
    readonly caller: Caller,
    readonly agent?: AgentDoc,
  ) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return callerIdOf(this.caller);
  }
}

function keyUserOf(context: ServerCallContext): KeyUser {
  const user = context.user;
  // The face authenticates every request before the SDK sees it (face.ts); anything else is a wiring mistake.
  if (!(user instanceof KeyUser)) throw new Error('A2A request without a key user');
  return user;
}

/** Our refusals as A2A errors: the caller's mistakes are invalid params, carrying our error code and details. */
export function a2aErrorOf(error: unknown, logger: Logger): Error {
  if (error instanceof A2AError) return error;
  if (error instanceof ApiError && error.status < 500) {
    const metadata: Record<string, string> = { code: error.code };
    if (error.details !== undefined) metadata.details = JSON.stringify(error.details);
    return new RequestMalformedError({ message: error.message, metadata });
  }
  if (error instanceof StatusUnavailableError)
    return new Error('The message is in flight but no worker answers; retry shortly');
  logger.error({ err: error }, 'A2A request failed');
  return new Error('An unexpected error occurred; it has been logged');
}

function stream(payload: NonNullable<StreamResponse['payload']>): StreamResponse {
  return { payload };
}

/** A reply's A2A message id is kept in the task's history up to this long (longer ones are not kept). */
const MAX_KEPT_A2A_ID_CHARS = 256;

/** Tasks one ListTasks page reads at once. */
const LIST_READS_AT_ONCE = 8;

export class ReachA2aHandler implements A2ARequestHandler {
  private readonly reads = new ConcurrencyLimit(LIST_READS_AT_ONCE);

  constructor(private readonly deps: A2aDeps) {}

  /** What the SDK checks protocol versions against: the public card (v1.0 and v0.3 at the same URL). */
  async getAgentCard(): Promise<AgentCardType> {
    return AgentCard.fromJSON(
      await servedCard(publicGatewayCard(this.deps.config.PUBLIC_URL), this.deps.config, this.deps.tokens),
    );
  }

  /** The card of the calling key at this face (docs/a2a.md). */
  async getAuthenticatedExtendedAgentCard(_params: unknown, context: ServerCallContext): Promise<AgentCardType> {
    return AgentCard.fromJSON(await this.cardFor(keyUserOf(context)));
  }

  async cardFor({ caller, agent }: KeyUser): Promise<object> {
    const { config, catalogue, logger } = this.deps;
    if (agent) {
      const reachable = (c: CapabilityDoc) => canReach(caller, { tenant: agent.tenant, acl: c.acl }).allowed;
      return servedCard(
        exportA2aCard(agent, `${config.PUBLIC_URL}${agentFacePath(agent._id)}`, '1.0', reachable),
        config,
        this.deps.tokens,
      );
    }
    await catalogue.index.ensureCurrent(logger);
    return servedCard(
      gatewayCard(
        config.PUBLIC_URL,
        catalogue.index.agents(caller.tenant).map((a) => a.agent),
        caller,
      ),
      config,
      this.deps.tokens,
    );
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<TaskType> {
    const user = keyUserOf(context);
    const historyLength = historyLengthOf(params.configuration?.historyLength, 'configuration.historyLength');
    return this.guard(async () => {
      const planned = await this.planAnswer(
        user,
        params,
        params.configuration?.returnImmediately ? 0 : this.deps.config.A2A_SEND_WAIT_MS,
      );
      if (planned) return planned;
      const status = await this.accept(user, params);
      if (params.configuration?.returnImmediately || isTerminal(status.state) || status.state === 'input_required')
        return this.taskWith(status, historyLength);
      const answered = await this.deps.messages.waitForAnswer(
        status.tenant,
        status.message_id,
        this.deps.config.A2A_SEND_WAIT_MS,
      );
      return this.taskWith(answered ?? (await this.current(status)), historyLength);
    });
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const user = keyUserOf(context);
    const historyLength = historyLengthOf(params.configuration?.historyLength, 'configuration.historyLength');
    // A plan task is answered as it stands (waiting for the caller, or its chain just started): read on with GetTask.
    const planned = await this.guard(() => this.planAnswer(user, params, 0));
    if (planned) {
      yield stream({ $case: 'task', value: planned });
      return;
    }
    const status = await this.guard(() => this.accept(user, params));
    yield stream({ $case: 'task', value: await this.guard(() => this.taskWith(status, historyLength)) });
    yield* this.follow(status);
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<TaskType> {
    const historyLength = historyLengthOf(params.historyLength, 'historyLength');
    const user = keyUserOf(context);
    const plans = this.plansFor(user, params.id);
    if (plans) return this.guard(async () => Task.fromJSON(await plans.get(user.caller, params.id)));
    return this.guard(async () => this.taskWith(await this.task(user, params.id, 'read'), historyLength));
  }

  /**
   * A page of the key's tasks (at an agent's face, that agent's), in the visibility store's order: running messages
   * first, then the ended ones by when they ended, newest first. Each task is read as GetTask reads it.
   */
  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const { caller, agent } = keyUserOf(context);
    const { token, ...listing } = listingOf(params, caller.tenant, agent?._id);
    const query = messagePageQuery(caller.tenant, listing.filter);
    const cursor = cursorOf(token, query, this.deps.messages.pageKeys);
    return this.guard(async () => {
      requireScope(caller, 'read');
      if (listing.none) return { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 };
      const page = await this.deps.messages
        .page(caller.tenant, listing.filter, listing.pageSize, cursor)
        .catch((error: unknown) => {
          if ((error as { code?: number }).code === 3)
            throw new RequestMalformedError({
              message: 'pageToken is not valid any more; list again from the first page',
              metadata: { location: 'pageToken' },
            });
          throw error;
        });
      const statuses = await Promise.all(
        page.message_ids.map((id) =>
          this.reads.run(() => this.deps.messages.get(caller.tenant, id).catch(() => undefined)),
        ),
      );
      const shown = statuses.filter(
        (s): s is MessageStatus =>
          s !== undefined &&
          (!listing.state || TASK_STATE_OF[s.state] === listing.state) &&
          (!listing.contextId || contextIdOf(s) === listing.contextId),
      );
      const tasks = await Promise.all(
        shown.map((s) => this.taskWith(s, listing.historyLength, listing.includeArtifacts)),
      );
      return {
        tasks,
        nextPageToken: pageTokenOf(page.next_page_token, query, this.deps.messages.pageKeys[0]),
        pageSize: tasks.length,
        totalSize: page.total,
      };
    });
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<TaskType> {
    const user = keyUserOf(context);
    const plans = this.plansFor(user, params.id);
    if (plans) return this.guard(async () => Task.fromJSON(await plans.cancel(user.caller, params.id)));
    return this.guard(async () => {
      const status = await this.task(user, params.id, 'send');
      const reason = typeof params.metadata?.reason === 'string' ? params.metadata.reason.slice(0, 1000) : undefined;
      const result = await this.deps.messages.cancel(
        status.tenant,
        status.message_id,
        reason || 'cancelled through the A2A face',
      );
      if (result.kind === 'unknown_message') throw new TaskNotFoundError(`No task ${params.id}`);
      if (result.kind === 'already_ended')
        throw new TaskNotCancelableError({
          message: `Task ${params.id} already ended (${result.state})`,
          metadata: { state: result.state },
        });
      return Task.fromJSON(taskOf(await this.current(status)));
    });
  }

  /** The task, then its changes until it ends; a task that already ended has nothing to stream (spec §3.1.6). */
  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const status = await this.guard(() => this.task(keyUserOf(context), params.id, 'read'));
    if (isTerminal(status.state))
      throw new UnsupportedOperationError(
        `Task ${params.id} has ended (${TASK_STATE_OF[status.state]}): read it with GetTask`,
      );
    yield stream({ $case: 'task', value: await this.guard(() => this.taskWith(status, undefined)) });
    yield* this.follow(status);
  }

  /** Stores the caller's webhook for the task (the key's, scope `send`), within the endpoint policy (spec §3.1.7). */
  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    const user = keyUserOf(context);
    const store = this.pushStore();
    return this.guard(async () => {
      const status = await this.task(user, params.taskId, 'send');
      const fields = pushConfigFieldsOf(params);
      await requireAllowedEndpoints(this.deps.endpoints, [{ location: 'url', url: fields.url }]);
      const created = await store.create({ tenant: status.tenant, task_id: status.message_id, ...fields });
      if (created.kind === 'too_many') {
        throw new RequestMalformedError({
          message: `At most ${created.limit} push notification configs per ${created.per}`,
          metadata: { code: 'too_many_push_configs' },
        });
      }
      return a2aConfigOf(created.config);
    });
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    const user = keyUserOf(context);
    const store = this.pushStore();
    return this.guard(async () => {
      const status = await this.task(user, params.taskId, 'read');
      const config = await store.get(status.tenant, status.message_id, params.id || status.message_id);
      if (!config) throw new TaskNotFoundError(`No push notification config ${params.id} for task ${params.taskId}`);
      return a2aConfigOf(config);
    });
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const user = keyUserOf(context);
    const store = this.pushStore();
    return this.guard(async () => {
      const status = await this.task(user, params.taskId, 'read');
      // At most MAX_CONFIGS_PER_TASK: one page.
      return { configs: (await store.list(status.tenant, status.message_id)).map(a2aConfigOf), nextPageToken: '' };
    });
  }

  /** Deletes the config; one that is not there is deleted already (as a2a-sdk's server answers). */
  async deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    const user = keyUserOf(context);
    const store = this.pushStore();
    await this.guard(async () => {
      const status = await this.task(user, params.taskId, 'send');
      await store.delete(status.tenant, status.message_id, params.id || status.message_id);
    });
  }

  /** The plan tasks, when `taskId` is one (at the gateway's face only). */
  private plansFor(user: KeyUser, taskId: string): A2aPlanTasks | undefined {
    return this.deps.plans && !user.agent && isPlanTaskId(taskId) ? this.deps.plans : undefined;
  }

  /**
   * A message to the `plan_and_run` skill, or a reply on a plan task: the skill's task (plan-tasks.ts); undefined for
   * any other message. `waitMs`: how long a confirmed plan's chain is waited for.
   */
  private async planAnswer(user: KeyUser, params: SendMessageRequest, waitMs: number): Promise<TaskType | undefined> {
    const message = params.message;
    if (!message) return undefined;
    const plans = message.taskId ? this.plansFor(user, message.taskId) : undefined;
    if (plans) return Task.fromJSON(await plans.reply(user.caller, message.taskId, planMessageOf(message), waitMs));
    const skill = { ...params.metadata, ...message.metadata }.skill;
    if (message.taskId || skill !== PLAN_AND_RUN_SKILL_ID || user.agent || !this.deps.plans) return undefined;
    return Task.fromJSON(await this.deps.plans.plan(user.caller, planMessageOf(message)));
  }

  /** The store of push configs, where the face takes them (CALLER_WEBHOOK_SECRET set); else PushNotificationNotSupported. */
  private pushStore(): PushConfigStore {
    if (!this.deps.pushConfigs || !pushConfigsOffered(this.deps.config)) {
      throw new PushNotificationNotSupportedError(
        'Push notifications need CALLER_WEBHOOK_SECRET on the gateway (their posts are signed with it): follow a task with GetTask or SubscribeToTask',
      );
    }
    return this.deps.pushConfigs;
  }

  /**
   * The task with its last `historyLength` messages (all when not given, as a2a-sdk's server answers; none for 0,
   * which spares the read of the message's input), and its artifacts unless told otherwise.
   */
  private async taskWith(
    status: MessageStatus,
    historyLength: number | undefined,
    artifacts = true,
  ): Promise<TaskType> {
    if (historyLength === 0) return Task.fromJSON(taskOf(status, { artifacts }));
    const input = await this.deps.messages.input(status.tenant, status.message_id);
    const history = historyOf(status, input);
    return Task.fromJSON(
      taskOf(status, { artifacts, history: historyLength === undefined ? history : history.slice(-historyLength) }),
    );
  }

  /**
   * A message naming a task: the task must be the key's (TaskNotFoundError) and of the same context; a task waiting
   * for input takes it as the caller's reply (the agent gets the next turn; several questions: answers by key in a
   * data part, send.ts's answersOf), any other refuses it
   * (UnsupportedOperationError). A repeat of a reply already taken answers the task as it is.
   */
  private async continueTask(
    user: KeyUser,
    message: NonNullable<SendMessageRequest['message']>,
  ): Promise<MessageStatus> {
    const taskId = message.taskId;
    const status = await this.task(user, taskId, 'send');
    if (message.contextId && message.contextId !== contextIdOf(status)) {
      throw new RequestMalformedError({
        message: `message.contextId is not the context of task ${taskId} (${contextIdOf(status)})`,
        metadata: { location: 'message.contextId' },
      });
    }
    const questions = status.input_required?.questions;
    const content = replyBodyOf(message);
    const body = parseInput(replyBody, questions ? answersOf(content, questions) : content, 'body');
    requireStoredSize(
      { params: body.params, payload: body.payload, answers: body.answers },
      this.deps.config.MAX_PAYLOAD_BYTES,
    );
    if (status.turns?.some((t) => t.role === 'caller' && t.a2a_message_id === message.messageId)) return status;
    const a2aId = message.messageId.length <= MAX_KEPT_A2A_ID_CHARS ? { a2a_message_id: message.messageId } : {};
    const result =
      status.state === 'input_required'
        ? await this.deps.messages.reply(status.tenant, status.message_id, { ...body, ...a2aId }, status.input_required)
        : { kind: 'not_waiting' as const, state: status.state };
    if (result.kind === 'unknown_message') throw new TaskNotFoundError(`No task ${taskId}`);
    if (result.kind === 'invalid') {
      const issues = result.issues.map((i) => `${i.location} ${i.message}`).join('; ');
      throw new RequestMalformedError({
        message: `The reply's data does not fit the schema of the agent's question: ${issues}`,
        metadata: { location: result.issues[0]!.location },
      });
    }
    if (result.kind === 'not_waiting') {
      throw new UnsupportedOperationError(
        isTerminal(result.state)
          ? `Task ${taskId} has ended (${TASK_STATE_OF[result.state]}) and takes no more messages: send a new message`
          : `Task ${taskId} is in progress and waits for no input (${TASK_STATE_OF[result.state]}): send a new message, or wait for it`,
      );
    }
    return this.current(status);
  }

  /** The message through intake, as `POST /v1/messages` sends it; a refusal of the router is a rejected task. */
  private async accept(user: KeyUser, params: SendMessageRequest): Promise<MessageStatus> {
    const { caller, agent } = user;
    requireScope(caller, 'send');
    const message = params.message;
    if (message?.taskId) return this.continueTask(user, message);
    const body = parseInput(sendMessageBody, sendBodyOf(params, agent ? { agent } : {}), 'body');
    const traceId = message?.contextId ? traceIdOfContext(caller.tenant, message.contextId) : newTraceId();
    const result = await acceptMessage(this.deps, caller, body, traceId);
    // A fresh status is built by intake, not read from the run: the session it keeps in the memo is added here.
    const session = body.session_id ? { session_id: body.session_id } : {};
    if (result.kind === 'rejected') return { ...result.status, ...session };
    sendAnswer(result, (s) => s, caller); // throws every other refusal, with the codes of POST /v1/messages
    if (result.kind !== 'accepted' && result.kind !== 'duplicate')
      throw new Error(`unexpected send result ${result.kind}`);
    return { ...result.status, ...session };
  }

  /** A task this key may see at this face: a message of its tenant (and, at an agent's face, of that agent). */
  private async task({ caller, agent }: KeyUser, taskId: string, scope: 'read' | 'send'): Promise<MessageStatus> {
    requireScope(caller, scope);
    if (!messageIdSchema.safeParse(taskId).success) throw new TaskNotFoundError(`No task ${taskId}`);
    const status = await this.deps.messages.get(caller.tenant, taskId);
    if (!status || (agent && status.target.agent_id !== agent._id)) throw new TaskNotFoundError(`No task ${taskId}`);
    return status;
  }

  private async current(status: MessageStatus): Promise<MessageStatus> {
    return (await this.deps.messages.get(status.tenant, status.message_id).catch(() => undefined)) ?? status;
  }

  /**
   * Streams the task's changes: a status update whenever its A2A state changes, and at its end the result artifact
   * then the final status. Ends when the task ends or after A2A_SEND_WAIT_MS (follow on with SubscribeToTask).
   */
  private async *follow(start: MessageStatus): AsyncGenerator<StreamResponse, void, undefined> {
    const { messages, config } = this.deps;
    const { tenant, message_id: taskId } = start;
    const contextId = contextIdOf(start);
    const statusUpdate = (status: MessageStatus) =>
      stream({
        $case: 'statusUpdate',
        value: TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: taskStatusOf(status) }),
      });
    if (isTerminal(start.state) || start.state === 'input_required') return;
    let shown = TASK_STATE_OF[start.state];
    const deadline = Date.now() + config.A2A_SEND_WAIT_MS;
    while (Date.now() < deadline) {
      const slice = Math.min(config.A2A_STREAM_POLL_MS, Math.max(0, deadline - Date.now()));
      const ended = await this.guard(() => messages.waitForEnd(tenant, taskId, slice));
      if (ended) {
        for (const artifact of artifactsOf(ended)) {
          yield stream({
            $case: 'artifactUpdate',
            value: TaskArtifactUpdateEvent.fromJSON({ taskId, contextId, artifact, lastChunk: true }),
          });
        }
        yield statusUpdate(ended);
        return;
      }
      const now = await this.current(start);
      if (TASK_STATE_OF[now.state] !== shown) {
        shown = TASK_STATE_OF[now.state];
        yield statusUpdate(now);
      }
      // An interrupted task's stream ends there (spec §3.1.2): the caller answers with a new SendMessage.
      if (now.state === 'input_required') return;
    }
  }

  /** Runs `work`, answering any failure as an A2A error. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw a2aErrorOf(error, this.deps.logger);
    }
  }
}
