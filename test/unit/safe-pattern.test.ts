/**
 * Agent patterns run on RE2: a catastrophic pattern on a long hostile text completes (under backtracking it would
 * not finish in this test's lifetime), in every place that runs one; what RE2 cannot take is refused at registration.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkJsonSchema } from '../../catalogue/json-schema';
import { extractParametersSync } from '../../router/extraction';
import { invalidProperties } from '../../router/parameter-check';
import { patternProblem, safePattern, toRe2Syntax } from '../../util/safe-pattern';

const CATASTROPHIC = '^(a+)+$';
const HOSTILE = `${'a'.repeat(10_000)}!`;

describe('safe patterns', () => {
  it('safe patterns - a catastrophic pattern against a long hostile text completes, and answers correctly', () => {
    const re = safePattern(CATASTROPHIC)!;
    assert.equal(re.test(HOSTILE), false);
    assert.equal(re.test('aaaa'), true);
  });

  it('safe patterns - ajv (parameter check) runs patterns on RE2', () => {
    const schema = JSON.stringify({ type: 'object', properties: { code: { type: 'string', pattern: CATASTROPHIC } } });
    assert.deepEqual(invalidProperties(schema, { code: HOSTILE }), ['code']);
    assert.deepEqual(invalidProperties(schema, { code: 'aaa' }), []);
    const other = JSON.stringify({ type: 'object', properties: { code: { type: 'string', pattern: '^b+$' } } });
    assert.deepEqual(invalidProperties(other, { code: 'bbb' }), [], 'each pattern keeps its own compiled form');
    assert.deepEqual(invalidProperties(other, { code: 'aaa' }), ['code']);
  });

  it('safe patterns - parameter extraction runs patterns on RE2, nested quantifiers included', () => {
    const schema = { properties: { code: { type: 'string', pattern: '^(A\\d+)+$', description: 'code' } } };
    assert.deepEqual(extractParametersSync(`code A1A22A333 ${'a'.repeat(900)}!`, schema), { code: 'A1A22A333' });
    assert.deepEqual(
      extractParametersSync(HOSTILE, { properties: { code: { type: 'string', pattern: CATASTROPHIC } } }),
      {},
    );
  });

  it('safe patterns - backreferences and lookaround are refused at registration, with a pointer', () => {
    assert.match(patternProblem('(a)\\1')!, /linear-time engine/);
    assert.match(patternProblem('x(?!y)')!, /linear-time engine/);
    assert.match(patternProblem('a'.repeat(501))!, /longer than 500/);
    const problems = checkJsonSchema({
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a)\\1$' } },
      patternProperties: { '(?<=x)y': {} },
    });
    assert.deepEqual(problems.map((p) => p.pointer).sort(), ['/patternProperties', '/properties/code/pattern']);
    assert.deepEqual(
      checkJsonSchema({ type: 'string', pattern: CATASTROPHIC }),
      [],
      'RE2 takes it: accepted, and harmless',
    );
    assert.deepEqual(checkJsonSchema({ enum: [{ pattern: '(a)\\1' }] }), [], 'data keywords are not schemas');
  });

  it('safe patterns - ECMAScript \\u escapes are understood', () => {
    assert.equal(toRe2Syntax('[\\u4e00-\\u9fff]\\u{1F600}\\\\u0041'), '[\\x{4e00}-\\x{9fff}]\\x{1F600}\\\\u0041');
    assert.equal(safePattern('^[\\u4e00-\\u9fff]+$')!.test('你好'), true);
    assert.equal(safePattern('^[\\u4e00-\\u9fff]+$')!.test('hi'), false);
  });
});
