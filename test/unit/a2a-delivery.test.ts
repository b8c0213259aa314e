/** Delivering to A2A agents: our message as SendMessage, and what the agent's answers and tasks mean (protocol/a2a-delivery.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyCallError } from '../../activities/a2a-clients';
import { a2aProfileOf, clientCardOf, interfaceAt } from '../../catalogue/a2a';
import {
  answeredQuestion,
  outcomeOfTask,
  resultOfTask,
  sendMessageRequestOf,
  taskStateOf,
  verdictOfAnswer,
} from '../../protocol/a2a-delivery';
import { SendMessageRequest, Task } from '../../protocol/a2a-sdk';
import { createPollA2aTask } from '../../activities/deliver-a2a';

const message = {
  message_id: 'msg-1',
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  tenant: 'acme',
  intent: 'convert 10 USD to EUR',
  params: { amount: 10, from: 'USD' },
  payload: [1, 2],
  callback_url: 'http://gateway.invalid/v1/callback',
};
const target = { agent_id: 'agt_1', capability: 'convert_currency' };

const task = (state: string, extra: Record<string, unknown> = {}) => ({
  id: 'task-1',
  contextId: 'ctx',
  status: { state, ...extra },
});

describe('a2a delivery', () => {
  it('a2a delivery - the message id, trace as context, intent as text, params and payload as data parts, the skill named', () => {
    const request = sendMessageRequestOf({ message, target, attempt: 2, skillId: 'convert-currency' }) as any;
    assert.equal(request.message.messageId, 'msg-1');
    assert.equal(request.message.contextId, message.trace_id);
    assert.equal(request.message.role, 'ROLE_USER');
    assert.deepEqual(
      request.message.parts.map((p: any) => p.text ?? p.data),
      ['convert 10 USD to EUR', { amount: 10, from: 'USD' }, { value: [1, 2] }],
    );
    assert.equal(request.message.metadata.skill, 'convert-currency');
    assert.equal(request.message.metadata.agent_reach.attempt, 2);
    assert.equal(request.configuration.returnImmediately, true);
    // The official SDK's own type takes it as it is.
    const parsed = SendMessageRequest.toJSON(SendMessageRequest.fromJSON(request)) as any;
    assert.equal(parsed.message.messageId, 'msg-1');
    assert.equal(parsed.message.parts.length, 3);
    assert.equal(parsed.configuration.returnImmediately, true);
  });

  it('a2a delivery - a message with nothing to say is asked by its skill id', () => {
    const request = sendMessageRequestOf({
      message: { ...message, intent: undefined, params: {}, payload: undefined },
      target,
      attempt: 1,
      skillId: 'ping',
    }) as any;
    assert.deepEqual(
      request.message.parts.map((p: any) => p.text),
      ['ping'],
    );
  });

  it('a2a delivery - task states in both spellings', () => {
    assert.equal(taskStateOf('TASK_STATE_INPUT_REQUIRED'), 'input-required');
    assert.equal(taskStateOf('input-required'), 'input-required');
    assert.equal(taskStateOf('TASK_STATE_COMPLETED'), 'completed');
    assert.equal(taskStateOf(undefined), 'unknown');
  });

  it('a2a delivery - completed is processed with the artifacts; one part alone, several as an array; wrapped values unwrapped', () => {
    assert.deepEqual(
      outcomeOfTask({ ...task('TASK_STATE_COMPLETED'), artifacts: [{ parts: [{ data: { rate: 0.9 } }] }] }),
      {
        kind: 'ended',
        state: 'completed',
        outcome: { status: 'processed', result: { rate: 0.9 } },
      },
    );
    assert.deepEqual(
      resultOfTask({
        ...task('completed'),
        artifacts: [{ parts: [{ text: 'a' }] }, { parts: [{ data: { value: 3 } }] }],
      }),
      ['a', 3],
    );
    // No artifact: the status message's parts.
    assert.equal(resultOfTask(task('completed', { message: { parts: [{ text: 'done' }] } })), 'done');
    assert.equal(resultOfTask(task('completed')), null);
  });

  it('a2a delivery - a follow-up turn continues the task that asked: the reply as parts, the delivery key as message id', () => {
    const history = [
      { role: 'caller' as const, intent: message.intent, params: message.params, at: '2026-12-06T00:00:00Z' },
      { role: 'agent' as const, message: 'Which currency?', at: '2026-12-06T00:00:01Z' },
      { role: 'caller' as const, intent: 'EUR', params: { to: 'EUR' }, at: '2026-12-06T00:00:02Z' },
    ];
    const request = sendMessageRequestOf({
      message: { ...message, turn: 2, history, params: { amount: 10, from: 'USD', to: 'EUR' } },
      target,
      attempt: 1,
      skillId: 'convert-currency',
      continuesTask: 'task-1',
    }) as any;
    assert.equal(request.message.messageId, 'msg-1:turn-2');
    assert.equal(request.message.taskId, 'task-1');
    assert.equal(request.message.contextId, message.trace_id);
    assert.deepEqual(
      request.message.parts.map((p: any) => p.text ?? p.data),
      ['EUR', { to: 'EUR' }],
    );
    assert.equal(request.message.metadata.agent_reach.turn, 2);
    const parsed = SendMessageRequest.toJSON(SendMessageRequest.fromJSON(request)) as any;
    assert.equal(parsed.message.taskId, 'task-1');
    // Turn 1 names no task.
    assert.equal(
      (sendMessageRequestOf({ message, target, attempt: 1, skillId: 's' }) as any).message.taskId,
      undefined,
    );
  });

  it('a2a delivery - input-required asks the caller: the status text is the question, the verdict input_required', () => {
    const asking = task('TASK_STATE_INPUT_REQUIRED', { message: { parts: [{ text: 'Which currency?' }] } });
    assert.deepEqual(outcomeOfTask(asking), {
      kind: 'ended',
      state: 'input-required',
      outcome: { status: 'input_required', input: { message: 'Which currency?' } },
    });
    assert.deepEqual(verdictOfAnswer(asking), { kind: 'input_required', input: { message: 'Which currency?' } });
    // The status message that asked identifies the question: on a follow-up turn, the same one still showing is the
    // task before the agent read the reply (under way), a new one is a new question.
    const identified = task('input-required', { message: { messageId: 'q1', parts: [{ text: 'Which currency?' }] } });
    assert.deepEqual(verdictOfAnswer(identified), {
      kind: 'input_required',
      input: { message: 'Which currency?', a2a_message_id: 'q1' },
    });
    assert.deepEqual(outcomeOfTask(identified, 'q1'), { kind: 'pending', state: 'input-required' });
    assert.deepEqual(verdictOfAnswer(identified, 'q1'), { kind: 'accepted' });
    assert.equal(verdictOfAnswer(identified, 'q0').kind, 'input_required');
    const history = [
      { role: 'caller' as const, intent: 'convert', at: 't0' },
      { role: 'agent' as const, message: 'Which currency?', a2a_message_id: 'q0', at: 't1' },
      { role: 'caller' as const, intent: 'EUR', at: 't2' },
      { role: 'agent' as const, message: 'How much?', a2a_message_id: 'q1', at: 't3' },
      { role: 'caller' as const, intent: '10', at: 't4' },
    ];
    assert.equal(answeredQuestion(history), 'q1');
    assert.equal(answeredQuestion(undefined), undefined);
    const silent = outcomeOfTask(task('input-required'));
    assert.equal(silent.kind === 'ended' && silent.outcome.input?.message, 'The agent asks for more input.');
  });

  it('a2a delivery - failed, canceled and auth-required fail with the agent text; rejected is a refusal', () => {
    const failed = outcomeOfTask(
      task('TASK_STATE_FAILED', { message: { role: 'ROLE_AGENT', parts: [{ text: 'I cannot do that' }] } }),
    );
    assert.deepEqual(failed, {
      kind: 'ended',
      state: 'failed',
      outcome: { status: 'failed', error: { code: 'a2a_failed', message: 'I cannot do that', retryable: false } },
    });
    const canceled = outcomeOfTask(task('TASK_STATE_CANCELED'));
    assert.equal(canceled.kind === 'ended' && canceled.outcome.error?.code, 'a2a_canceled');
    const auth = outcomeOfTask(task('auth-required'));
    assert.equal(auth.kind === 'ended' && auth.outcome.error?.message, "the agent's task ended auth-required");
    const rejected = outcomeOfTask(task('TASK_STATE_REJECTED'));
    assert.equal(rejected.kind === 'ended' && rejected.refused, true);
    assert.deepEqual(outcomeOfTask(task('TASK_STATE_WORKING')), { kind: 'pending', state: 'working' });
    assert.deepEqual(outcomeOfTask(task('TASK_STATE_SUBMITTED')), { kind: 'pending', state: 'submitted' });
  });

  it('a2a delivery - answers as verdicts: a Message reply is processed, a task under way accepted, a rejected task refused', () => {
    assert.deepEqual(verdictOfAnswer({ messageId: 'r', role: 'ROLE_AGENT', parts: [{ text: 'hello' }] }), {
      kind: 'processed',
      result: 'hello',
    });
    assert.deepEqual(verdictOfAnswer(task('TASK_STATE_WORKING')), { kind: 'accepted' });
    assert.deepEqual(verdictOfAnswer({ ...task('TASK_STATE_COMPLETED'), artifacts: [{ parts: [{ text: 'ok' }] }] }), {
      kind: 'processed',
      result: 'ok',
    });
    assert.equal(verdictOfAnswer(task('TASK_STATE_FAILED')).kind, 'agent_failed');
    assert.deepEqual(verdictOfAnswer(task('TASK_STATE_REJECTED', { message: { parts: [{ text: 'not mine' }] } })), {
      kind: 'refused',
      error: 'not mine',
    });
  });

  it('a2a delivery - a rejected task whose metadata (of the task or of its status message) says agent_reach: misrouted is a misroute', () => {
    const onStatus = task('TASK_STATE_REJECTED', {
      message: { parts: [{ text: 'not for refunds' }], metadata: { agent_reach: 'misrouted' } },
    });
    assert.equal(verdictOfAnswer(onStatus).kind, 'misrouted');
    const onTask = { ...task('rejected'), metadata: { agent_reach: 'misrouted' } };
    const outcome = outcomeOfTask(onTask);
    assert.equal(outcome.kind === 'ended' && outcome.misrouted, true);
    assert.equal(outcome.kind === 'ended' && outcome.refused, undefined);
    // Other metadata, or the marker on a task that did not end rejected, changes nothing.
    assert.equal(verdictOfAnswer({ ...task('rejected'), metadata: { agent_reach: 'other' } }).kind, 'refused');
    assert.equal(verdictOfAnswer({ ...task('failed'), metadata: { agent_reach: 'misrouted' } }).kind, 'agent_failed');
  });

  it('a2a delivery - the interface at an endpoint, from a v1.0 or a v0.3 card; the client card keeps that one', () => {
    const v1 = {
      name: 'x',
      supportedInterfaces: [
        { url: 'http://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        { url: 'http://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
    };
    assert.deepEqual(interfaceAt(v1, 'http://a/rest'), { protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });
    assert.deepEqual(interfaceAt(v1, 'http://a/rpc'), { protocolBinding: 'JSONRPC', protocolVersion: '0.3' });
    const v03 = {
      name: 'y',
      protocolVersion: '0.3.0',
      url: 'http://b/',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'http://b/rest', transport: 'HTTP+JSON' }],
    };
    assert.deepEqual(interfaceAt(v03, 'http://b/rest'), { protocolBinding: 'HTTP+JSON', protocolVersion: '0.3.0' });
    assert.deepEqual(interfaceAt(undefined, 'http://c/'), { protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    assert.deepEqual((clientCardOf(v03, 'http://b/', 'y') as any).supportedInterfaces, [
      { url: 'http://b/', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });

  it('a2a delivery - call failures: network and 5xx transient, A2A errors and 4xx refusals, internal errors transient', () => {
    assert.equal(
      classifyCallError(
        Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }),
        undefined,
        1000,
      ).transient,
      true,
    );
    assert.deepEqual(classifyCallError(Object.assign(new Error('t'), { name: 'TimeoutError' }), undefined, 1000), {
      transient: true,
      error: 'timeout after 1000 ms',
    });
    assert.equal(classifyCallError(new Error('HTTP error'), 503, 1000).transient, true);
    assert.equal(classifyCallError(new Error('HTTP error'), 404, 1000).transient, false);
    assert.equal(
      classifyCallError(
        Object.assign(new Error('no such task'), { name: 'TaskNotFoundError', code: -32001 }),
        200,
        1000,
      ).transient,
      false,
    );
    assert.equal(classifyCallError(Object.assign(new Error('boom'), { code: -32603 }), 200, 1000).transient, true);
    assert.equal(classifyCallError(new Error('x'), undefined, 1000).transient, true);
    assert.equal(
      classifyCallError(
        { cause: { code: 'ENDPOINT_NOT_ALLOWED', message: 'endpoint not allowed: private' } },
        undefined,
        1000,
      ).transient,
      false,
    );
  });
});

describe('a2a task reads', () => {
  const profile = { agent_id: 'agt_1', revision: 1, name: 'x' };
  const taskIn = (state: string) => ({ id: 'task-1', contextId: 'c', status: { state } });
  /** A poll over scripted GetTask answers, on a clock that moves only when it sleeps. */
  function scriptedPoll(
    answers: (
      { ok: true; state: string; artifact?: string } | { ok: false; transient: boolean; code?: 'result_too_large' }
    )[],
  ) {
    let clock = 0;
    const reads: number[] = [];
    const clients = {
      profileOf: a2aProfileOf,
      async call() {
        reads.push(clock);
        const answer = answers[Math.min(reads.length, answers.length) - 1]!;
        if (!answer.ok)
          return {
            ok: false,
            failure: { transient: answer.transient, error: 'x', ...(answer.code ? { code: answer.code } : {}) },
          };
        const artifacts =
          answer.artifact === undefined
            ? {}
            : { artifacts: [{ artifactId: 'a1', parts: [{ text: answer.artifact }] }] };
        return { ok: true, value: Task.fromJSON({ ...taskIn(answer.state), ...artifacts }) };
      },
    };
    const poll = createPollA2aTask({
      clients: clients as never,
      queries: { agentRecord: async () => ({ _id: profile.agent_id, revision: 1, name: 'x' }) as never },
      now: () => clock,
      answerLimits: { maxAnswerBytes: 4096, maxResultBytes: 1024 },
      sleep: async (ms) => {
        clock += ms;
      },
    });
    const request = (waitMs: number) => ({
      message: { policy: { attemptTimeoutMs: 1000 } } as never,
      agent_id: 'agt_1',
      endpoint: 'http://a/',
      task_id: 'task-1',
      wait_ms: waitMs,
    });
    return { poll, reads, request };
  }

  it('a2a task reads - with a wait, a task under way is read again (50 ms, doubling) until it ends', async () => {
    const { poll, reads, request } = scriptedPoll([
      { ok: true, state: 'TASK_STATE_WORKING' },
      { ok: true, state: 'TASK_STATE_WORKING' },
      { ok: true, state: 'TASK_STATE_COMPLETED' },
    ]);
    const polled = await poll(request(1000));
    assert.ok('outcome' in polled && polled.outcome.kind === 'ended' && polled.outcome.state === 'completed');
    assert.deepEqual(reads, [0, 50, 150]);
  });

  it('a2a task reads - the wait bounds the reads; without one, one read; a failure returns at once', async () => {
    const working = scriptedPoll([{ ok: true, state: 'TASK_STATE_WORKING' }]);
    const still = await working.poll(working.request(400));
    assert.ok('outcome' in still && still.outcome.kind === 'pending');
    assert.deepEqual(working.reads, [0, 50, 150, 350], 'no read after the wait');
    const once = scriptedPoll([{ ok: true, state: 'TASK_STATE_WORKING' }]);
    await once.poll(once.request(0));
    assert.deepEqual(once.reads, [0]);
    const failing = scriptedPoll([{ ok: false, transient: true }]);
    const failed = await failing.poll(failing.request(1000));
    assert.ok('failure' in failed && failed.failure.transient);
    assert.deepEqual(failing.reads, [0]);
  });

  it('a2a task reads - a completed task whose artifacts are larger than a status keeps, or whose answer was cut at the cap, ends failed result_too_large', async () => {
    const large = scriptedPoll([{ ok: true, state: 'TASK_STATE_COMPLETED', artifact: 'x'.repeat(2000) }]);
    const polled = await large.poll(large.request(0));
    assert.ok('outcome' in polled && polled.outcome.kind === 'ended');
    assert.equal(polled.outcome.outcome.status, 'failed');
    assert.equal(polled.outcome.outcome.error?.code, 'result_too_large');
    assert.equal(polled.outcome.outcome.error?.retryable, false);
    assert.match(polled.outcome.outcome.error!.message, /at most 1024 are kept/);
    const small = scriptedPoll([{ ok: true, state: 'TASK_STATE_COMPLETED', artifact: 'fits' }]);
    const fine = await small.poll(small.request(0));
    assert.ok('outcome' in fine && fine.outcome.kind === 'ended' && fine.outcome.outcome.status === 'processed');
    const cut = scriptedPoll([{ ok: false, transient: false, code: 'result_too_large' }]);
    const cutRead = await cut.poll(cut.request(0));
    assert.ok(
      'outcome' in cutRead &&
        cutRead.outcome.kind === 'ended' &&
        cutRead.outcome.outcome.error?.code === 'result_too_large',
      'not a failure that redelivers',
    );
  });
});
