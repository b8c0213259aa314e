/**
 * Delivery to an A2A agent: one `SendMessage` with the official client (activities/a2a-clients.ts), its answer
 * classified like an HTTP answer (protocol/a2a-delivery.ts). A task still under way is `accepted` with its id: the
 * workflow follows it with `pollA2aTask` (and cancels it with `CancelTask`), as it awaits another agent's receipt.
 */
import type { AgentQueries } from '../catalogue/agent-queries';
import { offersPush, skillIdOf, type AgentProfile } from '../catalogue/a2a';
import type { MessageInput } from '../messages/message';
import {
  answeredQuestion,
  isTask,
  outcomeOfTask,
  sendMessageRequestOf,
  verdictOfAnswer,
  type TaskOutcome,
} from '../protocol/a2a-delivery';
import { pushToken, pushUrlOf } from '../rules/a2a-push';
import {
  oversizedResult,
  RESULT_TOO_LARGE,
  withinResultSize,
  type AnswerLimits,
  type DeliveryVerdict,
} from '../protocol/verdicts';
import { checkEndpoint, type EndpointPolicy } from '../rules/endpoint-policy';
import { CancelTaskRequest, GetTaskRequest, Message, SendMessageRequest, Task } from '../protocol/a2a-sdk';
import type { A2aClients, CallFailure } from './a2a-clients';
import type { NotifyCancelRequest, NotifyCancelResult } from './notify-cancel';
import {
  attemptFinisher,
  pastDeadline,
  type AttemptOutcomeDeps,
  type DeliverRequest,
  type DeliverResult,
} from './deliver';

export interface A2aDeps extends AttemptOutcomeDeps {
  clients: A2aClients;
  queries: Pick<AgentQueries, 'agentRecord'>;
  endpointPolicy?: EndpointPolicy;
  /** How much of an answer is read (the clients stop there) and of a result kept. */
  answerLimits: AnswerLimits;
}

type Json = Record<string, unknown>;

async function profileOf(
  deps: Pick<A2aDeps, 'queries' | 'clients'>,
  agentId: string,
): Promise<AgentProfile | undefined> {
  const agent = await deps.queries.agentRecord(agentId);
  return agent && deps.clients.profileOf(agent);
}

function verdictOfFailure(failure: CallFailure): DeliveryVerdict {
  if (failure.transient) return { kind: 'transient', error: failure.error };
  return { kind: 'refused', error: failure.error, ...(failure.code ? { code: failure.code } : {}) };
}

/**
 * A task read whose answer or result is too large ends the message failed (`error.code` result_too_large), like
 * a failed task: reading it again would find the same, and delivering again would redo the work.
 */
function keptOutcome(read: A2aPoll, maxResultBytes: number): A2aPoll {
  const tooLarge = (message: string): A2aPoll => ({
    outcome: {
      kind: 'ended',
      state: 'completed',
      outcome: { status: 'failed', error: { code: RESULT_TOO_LARGE, message, retryable: false } },
    },
  });
  if ('failure' in read) return read.failure.code ? tooLarge(read.failure.error) : read;
  const { outcome } = read;
  const oversized =
    outcome.kind === 'ended' && outcome.outcome.status === 'processed'
      ? oversizedResult(outcome.outcome.result, maxResultBytes)
      : undefined;
  return oversized ? tooLarge(oversized) : read;
}

export function createDeliverA2a(deps: A2aDeps) {
  return async function deliverA2a(request: DeliverRequest): Promise<DeliverResult> {
    const { message, target, attempt } = request;
    const started = deps.now();
    if (pastDeadline(message, started))
      return { verdict: { kind: 'too_late' }, started_at: new Date(started).toISOString(), latency_ms: 0 };
    const finish = attemptFinisher(deps, request, started, 'a2a');
    if (deps.endpointPolicy) {
      const allowed = await checkEndpoint(target.endpoint, deps.endpointPolicy);
      if (!allowed.allowed) return finish({ kind: 'refused', error: `endpoint not allowed: ${allowed.reason}` });
    }
    const agent = await deps.queries.agentRecord(target.agent_id);
    if (!agent) return finish({ kind: 'transient', error: `agent ${target.agent_id} not found` });
    const profile = deps.clients.profileOf(agent);
    const push =
      offersPush(profile.card) && agent.signing_secret
        ? {
            url: pushUrlOf(message.callback_url, agent._id, message.message_id),
            token: pushToken(agent.signing_secret, agent._id, message.message_id),
          }
        : undefined;
    const send = SendMessageRequest.fromJSON(
      sendMessageRequestOf({
        message,
        target,
        attempt,
        skillId: skillIdOf(profile, target.capability),
        ...(push ? { push } : {}),
        ...(message.a2a_task_id ? { continuesTask: message.a2a_task_id } : {}),
      }),
    );
    const answer = await deps.clients.call(
      profile,
      target.endpoint,
      message.policy.attemptTimeoutMs,
      (client, options) => client.sendMessage(send, options),
    );
    const status = answer.http_status === undefined ? {} : { http_status: answer.http_status };
    if (!answer.ok) return finish(verdictOfFailure(answer.failure), status);
    const json = answerJson(answer.value);
    const answered = message.a2a_task_id ? answeredQuestion(message.history) : undefined;
    const verdict = withinResultSize(verdictOfAnswer(json, answered), deps.answerLimits.maxResultBytes);
    return finish(verdict, { ...status, ...(isTask(json) ? { a2a_task_id: json.id as string } : {}) });
  };
}

/** The JSON form of SendMessage's answer (a Task or a Message), in v1.0 names. */
function answerJson(answer: object): Json {
  return (
    'status' in answer && 'id' in answer ? Task.toJSON(answer as never) : Message.toJSON(answer as never)
  ) as Json;
}

/** A read of the task; on a follow-up turn `message` carries the question the reply answered (outcomeOfTask). */
export interface A2aTaskRequest {
  message: MessageInput;
  agent_id: string;
  endpoint: string;
  task_id: string;
}

/** What a read of the task found: its outcome, or why it could not be read (`transient`: try again later). */
export type A2aPoll = { outcome: TaskOutcome } | { failure: CallFailure };

/** The first pause between reads within one poll; each next one is twice as long. */
const FIRST_REREAD_MS = 50;

/**
 * `GetTask`: where the agent's task stands. With `wait_ms`, a task still under way is read again (after 50 ms, then
 * twice as long each time) until it ends or `wait_ms` has passed, so a quick task's end is seen without a round
 * through Temporal's timers.
 */
export function createPollA2aTask(
  deps: Pick<A2aDeps, 'clients' | 'queries' | 'now' | 'answerLimits'> & { sleep?: (ms: number) => Promise<void> },
) {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return async function pollA2aTask(request: A2aTaskRequest & { wait_ms?: number }): Promise<A2aPoll> {
    const profile = await profileOf(deps, request.agent_id);
    if (!profile) return { failure: { transient: false, error: `agent ${request.agent_id} not found` } };
    const until = deps.now() + (request.wait_ms ?? 0);
    for (let pause = FIRST_REREAD_MS; ; pause *= 2) {
      const read = await deps.clients.call(
        profile,
        request.endpoint,
        request.message.policy.attemptTimeoutMs,
        (client, options) => client.getTask(GetTaskRequest.fromJSON({ id: request.task_id }), options),
      );
      const polled = keptOutcome(
        read.ok
          ? { outcome: outcomeOfTask(Task.toJSON(read.value) as Json, answeredQuestion(request.message.history)) }
          : { failure: read.failure },
        deps.answerLimits.maxResultBytes,
      );
      const underWay = 'outcome' in polled && polled.outcome.kind === 'pending';
      if (!underWay || deps.now() + pause > until) return polled;
      await sleep(pause);
    }
  };
}

/** `CancelTask`, best effort: the caller cancelled the message whose task this is. */
export function createCancelA2aTask(deps: Pick<A2aDeps, 'clients' | 'queries' | 'endpointPolicy'>) {
  return async function cancelA2aTask(
    request: NotifyCancelRequest & { a2a_task_id: string },
  ): Promise<NotifyCancelResult> {
    if (deps.endpointPolicy) {
      const allowed = await checkEndpoint(request.endpoint, deps.endpointPolicy);
      if (!allowed.allowed) return { error: `endpoint not allowed: ${allowed.reason}` };
    }
    const profile = await profileOf(deps, request.agent_id);
    if (!profile) return { error: `agent ${request.agent_id} not found` };
    const cancel = CancelTaskRequest.fromJSON({
      id: request.a2a_task_id,
      ...(request.reason ? { metadata: { reason: request.reason } } : {}),
    });
    const done = await deps.clients.call(
      profile,
      request.endpoint,
      request.message.policy.attemptTimeoutMs,
      (client, options) => client.cancelTask(cancel, options),
    );
    if (!done.ok) return { error: done.failure.error };
    return { a2a_state: outcomeOfTask(Task.toJSON(done.value) as Json).state };
  };
}
