/**
 * The api's last error handler: what an error no route turned into an answer becomes. A message whose status no
 * worker answers is a 503 to retry on every way in (a read, or a repeated send racing the first run), never a 500.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Request, Response } from 'express';
import pino from 'pino';
import { errorHandler } from '../../api/error-middleware';
import { StatusUnavailableError } from '../../messages/runs';

interface Answer {
  status?: number;
  headers: Record<string, string>;
  body?: { error: { code: string; message: string } };
}

function answerTo(error: unknown): Answer {
  const answer: Answer = { headers: {} };
  const res = {
    status(code: number) {
      answer.status = code;
      return res;
    },
    set(name: string, value: string) {
      answer.headers[name] = value;
      return res;
    },
    json(body: Answer['body']) {
      answer.body = body;
      return res;
    },
  };
  const req = { method: 'POST', path: '/v1/messages' } as Request;
  errorHandler(pino({ level: 'silent' }))(error, req, res as unknown as Response, () => undefined);
  return answer;
}

describe('error middleware', () => {
  it('error middleware - a status no worker answers is a 503 status_unavailable with Retry-After, not a 500', () => {
    const answer = answerTo(new StatusUnavailableError('msg_1', { cause: new Error('query timed out') }));
    assert.equal(answer.status, 503);
    assert.equal(answer.headers['retry-after'], '5');
    assert.equal(answer.body?.error.code, 'status_unavailable');
  });

  it('error middleware - Temporal unreachable is 503 unavailable; anything else is a logged 500 internal', () => {
    const temporal = Object.assign(new Error('connect ECONNREFUSED'), { name: 'ServiceError' });
    assert.equal(answerTo(temporal).status, 503);
    assert.equal(answerTo(temporal).body?.error.code, 'unavailable');
    const other = answerTo(new Error('boom'));
    assert.equal(other.status, 500);
    assert.equal(other.body?.error.code, 'internal');
  });
});
