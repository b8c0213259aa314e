/** Text rules of the api's fields. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLabel, isProse, isWellFormedJson } from '../../rules/text';

describe('text', () => {
  it('text - labels refuse controls, bidirectional controls and lone surrogates; keep any script and emoji', () => {
    for (const ok of ['refund-agent', '退款', 'استرداد', 'agent 🎉', 'é']) assert.ok(isLabel(ok), ok);
    for (const bad of ['a\u0000b', 'a\nb', 'refund\u202Egnp', 'x\u200F', 'a\u2066b', '\ud800', 'a\udc00b'])
      assert.ok(!isLabel(bad), JSON.stringify(bad));
  });

  it('text - prose keeps line breaks and right-to-left marks, refuses NUL and lone surrogates', () => {
    for (const ok of ['line one\nline two\ttab', 'مرحبا\u200F', '😀']) assert.ok(isProse(ok), ok);
    for (const bad of ['a\u0000', '\u001b[31m', '\udbff']) assert.ok(!isProse(bad), JSON.stringify(bad));
  });

  it('text - free JSON must be well-formed Unicode, keys included', () => {
    assert.ok(isWellFormedJson({ a: ['😀', { b: 'ok' }], n: 1, z: null }));
    assert.ok(!isWellFormedJson({ a: ['\ud800'] }));
    assert.ok(!isWellFormedJson({ '\udc00': 1 }));
  });
});
