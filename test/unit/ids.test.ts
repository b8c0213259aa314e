import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalJson,
  hashSecret,
  MESSAGE_ID_PATTERN,
  newAgentId,
  newAgentSecret,
  newTraceId,
  secretMatches,
} from '../../rules/ids';
import { messageWorkflowId } from '../../messages/temporal';

describe('ids', () => {
  it('ids - canonical JSON ignores key order and undefined fields', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } }),
      '{"a":{"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    assert.equal(canonicalJson({ a: 1, b: 2 }), canonicalJson({ b: 2, a: 1 }));
    assert.notEqual(canonicalJson({ a: 1 }), canonicalJson({ a: '1' }));
  });

  it('ids - secrets verify against their hash only', () => {
    const secret = newAgentSecret();
    assert.match(secret, /^ars_[A-Za-z0-9_-]{43}$/);
    assert.ok(secretMatches(secret, hashSecret(secret)));
    assert.ok(!secretMatches(`${secret}x`, hashSecret(secret)));
    assert.ok(!secretMatches(secret, 'abc'));
  });

  it('ids - generated ids have their documented shapes', () => {
    assert.match(newAgentId(), /^agt_[0-9a-f]{24}$/);
    assert.match(newTraceId(), /^[0-9a-f]{32}$/);
  });

  it('ids - workflow ids carry the tenant and the message id', () => {
    assert.equal(messageWorkflowId('acme', 'order-1'), 'msg:acme:order-1');
  });

  it('ids - message ids accept common keys and refuse paths and controls', () => {
    for (const ok of ['a', 'order-42', 'refund:2026-11-30.1', 'A_b', 'x'.repeat(128)])
      assert.ok(MESSAGE_ID_PATTERN.test(ok), ok);
    for (const bad of ['', '-a', 'a/b', 'a b', 'a\u0000', 'x'.repeat(129), 'é'])
      assert.ok(!MESSAGE_ID_PATTERN.test(bad), bad);
  });
});
