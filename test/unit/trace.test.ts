import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Request } from 'express';
import { traceIdOf } from '../../api/trace';

function requestWith(headers: Record<string, string>): Request {
  return { get: (name: string) => headers[name.toLowerCase()] } as Request;
}

describe('trace', () => {
  it('trace - takes the trace id of a W3C traceparent', () => {
    const id = traceIdOf(requestWith({ traceparent: '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01' }));
    assert.equal(id, '4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('trace - falls back to X-Trace-Id, then to a new id', () => {
    assert.equal(traceIdOf(requestWith({ 'x-trace-id': 'a'.repeat(32) })), 'a'.repeat(32));
    assert.match(traceIdOf(requestWith({})), /^[0-9a-f]{32}$/);
  });

  it('trace - ignores malformed and all-zero ids', () => {
    for (const headers of <Record<string, string>[]>[
      { traceparent: 'garbage' },
      { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` },
      { 'x-trace-id': 'not-hex' },
    ]) {
      const id = traceIdOf(requestWith(headers));
      assert.match(id, /^[0-9a-f]{32}$/);
      assert.notEqual(id, '0'.repeat(32));
    }
  });
});
