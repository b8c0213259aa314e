/** The visibility query of `GET /v1/chains` and the page tokens it hands out (chains/list.ts, util/page-token.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chainListQuery } from '../../chains/list';
import { cursorOfToken, MAX_PAGE_TOKEN_CHARS, pageTokenOf } from '../../util/page-token';

describe('chain list', () => {
  it("chain list - the query finds the tenant's chain runs, each once, narrowed by the run statuses a state may have", () => {
    const base =
      "WorkflowType = 'runChain' AND WorkflowId STARTS_WITH 'chain:t1:' AND ExecutionStatus != 'ContinuedAsNew'";
    assert.equal(chainListQuery('t1'), base);
    assert.equal(chainListQuery('t1', 'compensating'), `${base} AND ExecutionStatus IN ('Running')`);
    assert.equal(chainListQuery('t1', 'compensated'), `${base} AND ExecutionStatus IN ('Completed')`);
    assert.equal(
      chainListQuery('t1', 'failed'),
      `${base} AND ExecutionStatus IN ('Completed', 'Failed', 'Terminated', 'TimedOut')`,
      'an operator-ended run reads failed',
    );
    assert.equal(chainListQuery('t1', 'cancelled'), `${base} AND ExecutionStatus IN ('Completed', 'Canceled')`);
  });

  it('chain list - a page token gives back its cursor under the same query only; the last page has none', () => {
    const cursor = new Uint8Array([1, 2, 3, 250]);
    const token = pageTokenOf(cursor, 'q1');
    assert.match(token, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(cursorOfToken(token, 'q1'), cursor);
    assert.equal(cursorOfToken(token, 'q2'), 'invalid', 'a token of other filters');
    assert.equal(pageTokenOf(new Uint8Array(), 'q1'), '');
    assert.equal(cursorOfToken('', 'q1'), undefined, 'the first page');
  });

  it('chain list - with keys, only a token signed with one of them gives its cursor: a made-up cursor never reaches Temporal', () => {
    const cursor = new TextEncoder().encode('{"RunID":"x"}');
    const signed = pageTokenOf(cursor, 'q', 'k2');
    assert.deepEqual(cursorOfToken(signed, 'q', ['k1', 'k2']), cursor, 'any key of the rotation');
    assert.equal(cursorOfToken(signed, 'q', ['k1']), 'invalid', 'a key no longer held');
    assert.equal(cursorOfToken(pageTokenOf(cursor, 'q'), 'q', ['k1']), 'invalid', 'unsigned');
    const body = JSON.parse(Buffer.from(signed, 'base64url').toString());
    const swapped = Buffer.from(
      JSON.stringify({ ...body, c: Buffer.from('{"RunID":"y"}').toString('base64') }),
    ).toString('base64url');
    assert.equal(cursorOfToken(swapped, 'q', ['k2']), 'invalid', 'another cursor under a genuine MAC');
    assert.equal(cursorOfToken(signed, 'q2', ['k2']), 'invalid', 'another query');
  });

  it('chain list - made-up tokens are invalid, never a cursor', () => {
    const of = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const digest = JSON.parse(Buffer.from(pageTokenOf(new Uint8Array([1]), 'q'), 'base64url').toString()).q;
    for (const token of [
      'not a token',
      'abc',
      of(null),
      of([]),
      of({ q: digest }),
      of({ q: digest, c: '' }),
      of({ q: digest, c: 5 }),
      'A'.repeat(MAX_PAGE_TOKEN_CHARS + 1),
    ]) {
      assert.equal(cursorOfToken(token, 'q'), 'invalid', token.slice(0, 40));
    }
  });
});
