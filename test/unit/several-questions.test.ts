/**
 * Several questions asked at once (protocol/answers.ts): the receipt that asks them, the reply body that answers
 * them, the pure logic the message's run keeps partial answers with, and how the MCP face asks them one at a time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answersOf } from '../../api/a2a/send';
import { askingOf, howToAnswer, replyTo } from '../../api/mcp/asking';
import type { McpDeps } from '../../api/mcp/context';
import { replyBody } from '../../messages/message-schema';
import type { MessageStatus } from '../../messages/message';
import { replyIssues, takeAnswers } from '../../protocol/answers';
import { callbackBody } from '../../protocol/receipt';
import { MAX_QUESTIONS, type InputRequest } from '../../protocol/turns';
import { classifyResponse } from '../../protocol/verdicts';

const asked: InputRequest = {
  message: 'Two things first.',
  questions: {
    order: { message: 'Which order?', schema: { type: 'object', required: ['order_id'] } },
    why: { message: 'Why?' },
  },
};

const receipt = (input: unknown) => ({ message_id: 'm-1', status: 'input_required', input });
const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.success ? [] : result.error!.issues.map((i) => i.path.join('.'));

describe('several questions', () => {
  it('several questions - a receipt asks 1 to MAX_QUESTIONS named questions, each with its own schema', () => {
    assert.equal(callbackBody.safeParse(receipt(asked)).success, true);
    assert.equal(callbackBody.safeParse(receipt({ message: 'One thing?' })).success, true, 'one question still');
    const many = Object.fromEntries(
      Array.from({ length: MAX_QUESTIONS + 1 }, (_, i) => [`q${i}`, { message: `Question ${i}?` }]),
    );
    assert.deepEqual(issuesOf(callbackBody.safeParse(receipt({ message: 'Many', questions: many }))), [
      'input.questions',
    ]);
    assert.deepEqual(issuesOf(callbackBody.safeParse(receipt({ message: 'None', questions: {} }))), [
      'input.questions',
    ]);
    assert.deepEqual(
      issuesOf(callbackBody.safeParse(receipt({ ...asked, schema: { type: 'object' } }))),
      ['input.schema'],
      'a schema beside the questions is refused',
    );
    assert.equal(
      callbackBody.safeParse(receipt({ message: 'Bad key', questions: { 'no spaces': { message: 'x' } } })).success,
      false,
    );
    assert.equal(
      callbackBody.safeParse(receipt({ message: 'Bad', questions: { a: { message: 'x', extra: 1 } } })).success,
      false,
    );
    assert.equal(callbackBody.safeParse(receipt({ ...asked, extra: 1 })).success, false, 'still a strict object');
  });

  it('several questions - an agent answering input_required with questions is taken with them', () => {
    const verdict = classifyResponse(200, { status: 'input_required', input: asked }, null, Date.now());
    assert.deepEqual(verdict, { kind: 'input_required', input: asked });
  });

  it('several questions - a reply body answers by key, alone, and every answer says something', () => {
    assert.deepEqual(replyBody.parse({ answers: { order: { params: { order_id: 7 } } } }), {
      answers: { order: { params: { order_id: 7 } } },
    });
    assert.equal(replyBody.safeParse({ answers: { order: { params: {} } }, intent: 'and' }).success, false);
    assert.equal(replyBody.safeParse({ answers: { order: {} } }).success, false);
    assert.equal(replyBody.safeParse({ answers: {} }).success, false);
    assert.equal(replyBody.safeParse({ intent: 'one answer' }).success, true);
  });

  it('several questions - a reply must fit what the message waits for: answers by open key, or one answer', () => {
    assert.deepEqual(replyIssues(asked, { answers: { order: { params: { order_id: 1 } } } }), []);
    assert.deepEqual(
      replyIssues(asked, { answers: { nope: { intent: 'x' }, why: { intent: 'y' } } }).map((i) => i.location),
      ['answers.nope'],
    );
    assert.deepEqual(
      replyIssues(asked, { params: { order_id: 1 } }).map((i) => i.location),
      ['answers'],
    );
    assert.deepEqual(
      replyIssues(asked, { answers: { constructor: { intent: 'x' } } }).map((i) => i.location),
      ['answers.constructor'],
      'keys of Object.prototype are no questions',
    );
    assert.deepEqual(
      replyIssues({ message: 'One?' }, { answers: { a: { intent: 'x' } } }).map((i) => i.location),
      ['answers'],
    );
    assert.deepEqual(replyIssues({ message: 'One?' }, { intent: 'yes' }), []);
  });

  it('several questions - partial answers are kept until every question is answered, then make one reply', () => {
    const first = takeAnswers(asked, {}, { answers: { order: { params: { order_id: 7 } } } });
    assert.equal(first.reply, undefined);
    assert.deepEqual(Object.keys(first.open!.questions!), ['why'], 'only the open question is shown');
    assert.equal(first.open!.message, asked.message);
    const second = takeAnswers(asked, first.answered, {
      answers: { why: { intent: 'it broke', params: { order_id: 8, note: 'x' } } },
      a2a_message_id: 'a2a-2',
    });
    assert.equal(second.open, undefined);
    assert.deepEqual(second.answered, {}, 'nothing kept once delivered');
    assert.deepEqual(second.reply, {
      params: { order_id: 8, note: 'x' },
      answers: { order: { params: { order_id: 7 } }, why: { intent: 'it broke', params: { order_id: 8, note: 'x' } } },
      a2a_message_id: 'a2a-2',
    });
    assert.deepEqual(Object.keys(second.reply!.answers!), ['order', 'why'], 'in the order of the questions');
  });

  it('several questions - all answered in one reply make the reply at once; one question passes through', () => {
    const all = takeAnswers(asked, {}, { answers: { why: { intent: 'because' }, order: { payload: 3 } } });
    assert.deepEqual(all.reply, { answers: { order: { payload: 3 }, why: { intent: 'because' } } });
    const one = takeAnswers({ message: 'One?' }, {}, { intent: 'yes' });
    assert.deepEqual(one, { answered: {}, reply: { intent: 'yes' } });
  });

  it('several questions - an MCP tool call asks them one at a time, each answer under its key', async () => {
    const status = {
      message_id: 'm-1',
      state: 'input_required',
      input_required: asked,
      turns: [{ role: 'agent', ...asked, at: '2026-01-01T00:00:00Z' }],
    } as unknown as MessageStatus;
    const asking = (await askingOf({} as McpDeps, status))!;
    assert.deepEqual(asking.continues, { kind: 'reply', message_id: 'm-1', asked: 1, question: 'order' });
    assert.equal(asking.question.message, 'Two things first. Which order?');
    assert.deepEqual(asking.question.schema, asked.questions!.order!.schema);
    assert.deepEqual(replyTo(asking.continues, { action: 'accept', content: { order_id: 7 } }), {
      answers: { order: { params: { order_id: 7 } } },
    });
    assert.match(howToAnswer(asking).how, /"answers": \{"order": \{"params"/);
  });

  it('several questions - an A2A reply answers them with a field per question key in its data part', () => {
    const open = { why: { message: 'Why?' }, order: { message: 'Which order?' } };
    assert.deepEqual(answersOf({ intent: 'here', params: { order: { order_id: 7 }, why: 'broken', other: 1 } }, open), {
      answers: { order: { params: { order_id: 7 } }, why: { payload: 'broken' } },
    });
    const none = { intent: 'no keys', params: { other: 1 } };
    assert.equal(answersOf(none, open), none, 'without a question key the reply stays as it is (and is refused)');
  });
});
