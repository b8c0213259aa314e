/** The pure parts of chains: the mapping language, the plan's checks, the type check, the ready set, compensation order. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChainStepBody, StepState } from '../../chains/chain';
import { chainBody, MAX_WHEN_VALUES } from '../../chains/chain-schema';
import { conditionHolds } from '../../chains/condition';
import { checkPlan, compensationOrder, plannedSteps, readySteps, type PlannedStep } from '../../chains/plan';
import { buildFromTemplate, pointerOf, pointerTokens, refsIn, resolvePointer, sameJson } from '../../chains/pointer';
import { paramsMisfit, typeCheck, type CapabilitySchemas } from '../../chains/type-check';
import { chainMessageIds, chainBodyHash } from '../../chains/chain-service';

const LIMITS = { maxSteps: 32, maxDepth: 4 };
const t = (capability: string) => ({ agent_id: 'agt_1', capability });
const step = (id: string, rest: Partial<ChainStepBody> = {}): ChainStepBody => ({ id, target: t('c'), ...rest });

describe('chains - mapping language', () => {
  it('chains - pointers follow RFC 6901, escapes included', () => {
    const document = { input: { 'a/b': 1, 'm~n': 2, list: [10, 20], '': 3 } };
    assert.deepEqual(resolvePointer(document, '/input/a~1b'), { ok: true, value: 1 });
    assert.deepEqual(resolvePointer(document, '/input/m~0n'), { ok: true, value: 2 });
    assert.deepEqual(resolvePointer(document, '/input/list/1'), { ok: true, value: 20 });
    assert.deepEqual(resolvePointer(document, '/input/'), { ok: true, value: 3 });
    assert.deepEqual(resolvePointer(document, ''), { ok: true, value: document });
    assert.equal(resolvePointer(document, '/input/list/01').ok, false);
    assert.equal(resolvePointer(document, '/input/list/2').ok, false);
    assert.equal(resolvePointer(document, '/input/missing').ok, false);
    assert.equal(resolvePointer(document, 'input').ok, false);
    assert.equal(pointerTokens('/a~2b'), undefined);
    assert.equal(pointerOf(['a/b', 'm~n']), '/a~1b/m~0n');
  });

  it('chains - a template replaces each lone {"$ref"} and keeps everything else', () => {
    const document = { input: { order: 'o-1' }, steps: { classify: { result: { category: 'refund', falsy: 0 } } } };
    const built = buildFromTemplate(
      {
        order: { $ref: '/input/order' },
        why: [{ $ref: '/steps/classify/result/category' }, 'literal'],
        zero: { $ref: '/steps/classify/result/falsy' },
        not_a_ref: { $ref: '/x', other: 1 },
      },
      document,
    );
    assert.deepEqual(built, {
      ok: true,
      value: { order: 'o-1', why: ['refund', 'literal'], zero: 0, not_a_ref: { $ref: '/x', other: 1 } },
    });
    assert.deepEqual(buildFromTemplate({ a: { $ref: '/steps/none/result' } }, document), {
      ok: false,
      pointer: '/steps/none/result',
    });
    assert.deepEqual(refsIn({ a: [{ $ref: '/input/x' }] }), [{ ref: '/input/x', at: ['a', '0'] }]);
  });

  it('chains - sameJson ignores key order', () => {
    assert.ok(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
    assert.ok(!sameJson({ a: 1 }, { a: '1' }));
    assert.ok(!sameJson([1, 2], [2, 1]));
  });
});

describe('chains - when', () => {
  const document = {
    input: { status: 'pending', nothing: null, tags: ['a', 'b'] },
    steps: { track: { result: { shipped: false } } },
  };

  it('chains - when: equals, not_equals and in compare JSON values at the pointer', () => {
    assert.ok(conditionHolds(document, { $ref: '/input/status', equals: 'pending' }));
    assert.ok(!conditionHolds(document, { $ref: '/input/status', equals: 'shipped' }));
    assert.ok(conditionHolds(document, { $ref: '/input/status', not_equals: 'shipped' }));
    assert.ok(!conditionHolds(document, { $ref: '/input/status', not_equals: 'pending' }));
    assert.ok(conditionHolds(document, { $ref: '/steps/track/result/shipped', not_equals: true }));
    assert.ok(conditionHolds(document, { $ref: '/input/status', in: ['pending', 'paid'] }));
    assert.ok(!conditionHolds(document, { $ref: '/input/status', in: ['shipped', 'delivered'] }));
    // JSON equality: null is a value, arrays compare by their items, 1 is not "1".
    assert.ok(conditionHolds(document, { $ref: '/input/nothing', equals: null }));
    assert.ok(!conditionHolds(document, { $ref: '/input/nothing', not_equals: null }));
    assert.ok(conditionHolds(document, { $ref: '/input/tags', in: [['a'], ['a', 'b']] }));
    assert.ok(!conditionHolds({ input: { n: 1 } }, { $ref: '/input/n', in: ['1'] }));
  });

  it('chains - when: a pointer that names nothing holds for no operator, not_equals included', () => {
    for (const operator of [{ equals: 'x' }, { not_equals: 'x' }, { in: ['x'] }]) {
      assert.ok(
        !conditionHolds(document, { $ref: '/steps/skipped/result/status', ...operator }),
        JSON.stringify(operator),
      );
      assert.ok(!conditionHolds(document, { $ref: '/input/absent', ...operator }), JSON.stringify(operator));
    }
  });

  it('chains - when: the schema takes exactly one operator, and `in` a non-empty, bounded list', () => {
    const withWhen = (when: unknown) => chainBody.safeParse({ steps: [{ id: 'a', target: t('c'), when }] }).success;
    assert.ok(withWhen({ $ref: '/input/x', equals: 1 }));
    assert.ok(withWhen({ $ref: '/input/x', equals: null }));
    assert.ok(withWhen({ $ref: '/input/x', not_equals: 'shipped' }));
    assert.ok(withWhen({ $ref: '/input/x', not_equals: null }));
    assert.ok(withWhen({ $ref: '/input/x', in: ['a', 1, null, { k: [] }] }));
    assert.ok(withWhen({ $ref: '/input/x', in: Array(MAX_WHEN_VALUES).fill(0) }));
    assert.ok(!withWhen({ $ref: '/input/x' }));
    assert.ok(!withWhen({ $ref: '/input/x', equals: 1, not_equals: 2 }));
    assert.ok(!withWhen({ $ref: '/input/x', equals: 1, in: [1] }));
    assert.ok(!withWhen({ $ref: '/input/x', in: [] }));
    assert.ok(!withWhen({ $ref: '/input/x', in: 'a' }));
    assert.ok(!withWhen({ $ref: '/input/x', in: Array(MAX_WHEN_VALUES + 1).fill(0) }));
    assert.ok(!withWhen({ $ref: '/input/x', contains: 'a' }));
    assert.ok(!withWhen({ $ref: '/input/x', not_equals: '\uD800' }));
  });
});

describe('chains - plan', () => {
  it('chains - after defaults to the step before; on_failure to stop', () => {
    const planned = plannedSteps({ steps: [step('a'), step('b'), step('c', { after: [] })] });
    assert.deepEqual(
      planned.map((s) => s.after),
      [[], ['a'], []],
    );
    assert.ok(planned.every((s) => s.on_failure === 'stop'));
  });

  it('chains - duplicates, unknown steps, cycles, depth and references are refused, naming the step', () => {
    const issue = (steps: ChainStepBody[], limits = LIMITS) => {
      const checked = checkPlan({ steps }, limits);
      return checked.ok ? undefined : { step: checked.issue.step, code: checked.issue.code };
    };
    assert.deepEqual(issue([step('a'), step('a')]), { step: 'a', code: 'duplicate_step' });
    assert.deepEqual(issue([step('a', { after: ['z'] })]), { step: 'a', code: 'unknown_step' });
    assert.deepEqual(issue([step('a', { after: ['a'] })]), { step: 'a', code: 'cycle' });
    assert.deepEqual(
      issue([
        step('a', { after: ['c'] }),
        step('b', { after: ['a'] }),
        step('c', { after: ['b'] }),
        step('d', { after: [] }),
      ]),
      { step: 'a', code: 'cycle' },
    );
    assert.deepEqual(issue([step('a'), step('b'), step('c'), step('d'), step('e')]), { step: 'e', code: 'too_deep' });
    assert.deepEqual(issue([step('a'), step('b')], { maxSteps: 1, maxDepth: 4 }), {
      step: undefined,
      code: 'too_many_steps',
    });
    // A step reads only steps that end before it; its compensation may read its own result.
    assert.deepEqual(issue([step('a', { input: { x: { $ref: '/steps/b/result' } } }), step('b', { after: [] })]), {
      step: 'a',
      code: 'invalid_reference',
    });
    assert.deepEqual(issue([step('a'), step('b', { input: { x: { $ref: '/elsewhere' } } })]), {
      step: 'b',
      code: 'invalid_reference',
    });
    assert.deepEqual(
      issue([step('a'), step('b', { when: { $ref: '/steps/c/result', equals: 1 } }), step('c', { after: [] })]),
      { step: 'b', code: 'invalid_reference' },
    );
    assert.equal(
      issue([
        step('a'),
        step('b', {
          input: { x: { $ref: '/steps/a/result/x' } },
          compensate: { target: t('undo'), input: { y: { $ref: '/steps/b/result' } } },
        }),
      ]),
      undefined,
    );
    // Transitive: c after b after a reads a.
    assert.equal(issue([step('a'), step('b'), step('c', { input: { x: { $ref: '/steps/a/result' } } })]), undefined);
  });

  it('chains - the ready set: pending steps whose after steps completed, were skipped, or failed with continue', () => {
    const steps = plannedSteps({
      steps: [
        step('a'),
        step('b', { after: ['a'], on_failure: 'continue' }),
        step('c', { after: ['a'] }),
        step('d', { after: ['b', 'c'] }),
      ],
    });
    const ready = (states: Record<string, StepState>) =>
      readySteps(steps, new Map(Object.entries(states))).map((s) => s.id);
    assert.deepEqual(ready({ a: 'pending', b: 'pending', c: 'pending', d: 'pending' }), ['a']);
    assert.deepEqual(ready({ a: 'completed', b: 'pending', c: 'pending', d: 'pending' }), ['b', 'c']);
    assert.deepEqual(ready({ a: 'completed', b: 'failed', c: 'running', d: 'pending' }), []);
    assert.deepEqual(ready({ a: 'completed', b: 'failed', c: 'skipped', d: 'pending' }), ['d']);
    assert.deepEqual(ready({ a: 'completed', b: 'completed', c: 'failed', d: 'pending' }), []);
  });

  it('chains - compensation order: the completed steps with a compensation, latest completed first', () => {
    const steps: PlannedStep[] = plannedSteps({
      steps: [
        step('a', { compensate: { target: t('u') } }),
        step('b'),
        step('c', { compensate: { target: t('u') } }),
        step('d', { compensate: { target: t('u') } }),
      ],
    });
    assert.deepEqual(
      compensationOrder(steps, ['a', 'c', 'b', 'd']).map((s) => s.id),
      ['d', 'c', 'a'],
    );
    assert.deepEqual(
      compensationOrder(steps, ['c', 'a']).map((s) => s.id),
      ['a', 'c'],
    );
  });
});

describe('chains - type check', () => {
  const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });
  const schemas: Record<string, CapabilitySchemas> = {
    classify: {
      returns: object({
        category: { type: 'string' },
        amount: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' } },
      }),
    },
    refund: { parameters: object({ amount: { type: 'number' }, note: { type: 'string' }, any: {} }) },
    free: {},
  };
  const lookup = (target: { capability: string }) => schemas[target.capability];
  const check = (steps: ChainStepBody[], input?: unknown) => typeCheck(plannedSteps({ steps }), input, lookup);

  it('chains - types that agree pass: integer into number, the chain input by its value, undescribed fields', () => {
    assert.equal(
      check([
        step('a', { target: t('classify') }),
        step('b', {
          target: t('refund'),
          input: {
            amount: { $ref: '/steps/a/result/amount' },
            note: { $ref: '/steps/a/result/tags/0' },
            any: { $ref: '/steps/a/result/amount' },
          },
        }),
      ]),
      undefined,
    );
    assert.equal(
      check([step('b', { target: t('refund'), input: { amount: { $ref: '/input/n' } } })], { n: 3.5 }),
      undefined,
    );
    assert.equal(
      check([
        step('a', { target: t('free') }),
        step('b', { target: t('refund'), input: { note: { $ref: '/steps/a/result/whatever' } } }),
      ]),
      undefined,
    );
  });

  it('chains - a mismatch, a pointer into nothing, or an undeclared parameter fails, naming the step', () => {
    const code = (steps: ChainStepBody[], input?: unknown) => {
      const issue = check(steps, input);
      return issue && `${issue.step}:${issue.code}`;
    };
    assert.equal(
      code([
        step('a', { target: t('classify') }),
        step('b', { target: t('refund'), input: { amount: { $ref: '/steps/a/result/category' } } }),
      ]),
      'b:mapping_type_error',
    );
    assert.equal(
      code([
        step('a', { target: t('classify') }),
        step('b', { target: t('refund'), input: { amount: { $ref: '/steps/a/result/nothing' } } }),
      ]),
      'b:mapping_type_error',
    );
    assert.equal(
      code([step('b', { target: t('refund'), input: { amount: { $ref: '/input/n' } } })], { n: 'ten' }),
      'b:mapping_type_error',
    );
    assert.equal(
      code([step('b', { target: t('refund'), input: { amount: { $ref: '/input/missing' } } })], {}),
      'b:mapping_type_error',
    );
    assert.equal(
      code([
        step('a', { target: t('classify') }),
        step('b', { target: t('refund'), input: { unknown: { $ref: '/steps/a/result/amount' } } }),
      ]),
      'b:mapping_type_error',
    );
    assert.equal(
      code([
        step('a', {
          target: t('classify'),
          compensate: { target: t('refund'), input: { amount: { $ref: '/steps/a/result/tags' } } },
        }),
      ]),
      'a:mapping_type_error',
    );
    // Literal parameters too.
    assert.equal(
      code([step('b', { target: t('refund'), input: { amount: 'ten', note: 'x' } })]),
      'b:mapping_type_error',
    );
    assert.equal(code([step('b', { target: t('refund'), input: { amount: 10, note: 'x', any: [1] } })]), undefined);
  });

  it('chains - params after routing: the first top-level misfit', () => {
    const parameters = object({ amount: { type: 'number' } });
    assert.equal(paramsMisfit(parameters, { amount: 3 }), undefined);
    assert.match(paramsMisfit(parameters, { amount: 'x' }) ?? '', /amount: string given/);
    assert.match(paramsMisfit(parameters, { other: 1 }) ?? '', /other: no such parameter/);
    assert.equal(paramsMisfit(undefined, { other: 1 }), undefined);
  });
});

describe('chains - body', () => {
  it('chains - the schema takes exactly one of target and intent, ids without ":", an object as input; a $ref that is no pointer is the plan\'s 422', () => {
    assert.ok(
      chainBody.safeParse({ steps: [{ id: 'a', target: t('c'), input: { x: { $ref: '/input/x' } } }] }).success,
    );
    assert.ok(chainBody.safeParse({ steps: [{ id: 'a', intent: 'refund order 1' }] }).success);
    assert.ok(!chainBody.safeParse({ steps: [{ id: 'a' }] }).success);
    assert.ok(!chainBody.safeParse({ steps: [{ id: 'a', target: t('c'), intent: 'both' }] }).success);
    assert.ok(!chainBody.safeParse({ steps: [{ id: 'a:b', target: t('c') }] }).success);
    assert.ok(!chainBody.safeParse({ chain_id: 'x:y', steps: [{ id: 'a', target: t('c') }] }).success);
    // What the OpenAPI document cannot state is the plan's check: a 422 naming the step, not a 400.
    const noPointer = chainBody.safeParse({ steps: [{ id: 'a', target: t('c'), input: { x: { $ref: 'no-slash' } } }] });
    assert.ok(noPointer.success);
    const planned = checkPlan(noPointer.data, { maxSteps: 32, maxDepth: 16 });
    assert.equal(!planned.ok && planned.issue.code, 'invalid_reference');
    assert.equal(!planned.ok && planned.issue.step, 'a');
    assert.ok(!chainBody.safeParse({ steps: [{ id: 'a', target: t('c'), input: [1] }] }).success);
  });

  it('chains - message ids of a chain: each step, and each compensation; the hash ignores key order', () => {
    const body = { chain_id: 'c1', steps: [step('a', { compensate: { target: t('u') } }), step('b')] };
    assert.deepEqual(chainMessageIds(body, 'c1'), ['c1:a', 'c1:a:compensate', 'c1:b']);
    assert.notEqual(chainBodyHash(body), chainBodyHash({ ...body, chain_id: 'c2' }));
    assert.equal(
      chainBodyHash(body),
      chainBodyHash({
        steps: body.steps.map((s) => Object.fromEntries(Object.entries(s).reverse()) as unknown as ChainStepBody),
        chain_id: 'c1',
      }),
    );
  });
});
