/** Chains bounded: a step's mapped size, results kept by reference, sizes known at submission, the state a run hands on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMapChainStep } from '../../activities/map-chain-step';
import type { ChainStatus } from '../../chains/chain';
import { knownSizeIssue } from '../../chains/known-sizes';
import { jsonSize, mappedSize, utf8Bytes } from '../../chains/mapped-size';
import { plannedSteps } from '../../chains/plan';
import { buildFromTemplate } from '../../chains/pointer';
import { inlineResultCap, keptResult, MAX_INLINE_RESULT_BYTES } from '../../chains/result-refs';
import { historyFull, resumedDocument } from '../../chains/run-state';
import { stepMessage } from '../../chains/step-message';

const big = (bytes: number) => ({ blob: 'x'.repeat(bytes) });
const document = {
  input: { order: 'o-1', note: 'é€😀' },
  steps: { a: { result: big(100_000) }, b: { result: { n: 1, list: [1, 'two', null, true] } } },
};

describe('chains - bounds', () => {
  it('chains - bounds - mappedSize counts the JSON a template comes to, exactly, without building it', () => {
    const templates: unknown[] = [
      { a: { $ref: '/steps/b/result' }, lit: ['x', 2, { y: null }], n: { $ref: '/input/note' } },
      [{ $ref: '/steps/b/result/list' }, { $ref: '/input' }, 'ü'],
      { $ref: '/steps/b/result/n' },
      { 'key "quoted"': { $ref: '/input/order' }, empty: {}, none: [] },
    ];
    for (const template of templates) {
      const built = buildFromTemplate(template, document);
      assert.ok(built.ok);
      assert.deepEqual(mappedSize(template, document, 1_000_000), {
        ok: true,
        bytes: Buffer.byteLength(JSON.stringify(built.value)),
      });
    }
    assert.equal(utf8Bytes('é€😀'), Buffer.byteLength('é€😀'));
    assert.equal(jsonSize(undefined), 0);
  });

  it('chains - bounds - sixty reads of a 100 KB result are over a 256 KiB cap, counted only until the cap', () => {
    const template = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`copy${i}`, { $ref: '/steps/a/result' }]),
    );
    const size = mappedSize(template, document, 256 * 1024);
    assert.equal(size.ok, false);
    assert.ok('over' in size && size.over > 256 * 1024 && size.over < 256 * 1024 + 110_000);
    assert.deepEqual(mappedSize({ x: { $ref: '/steps/none/result' } }, document, 1000), {
      ok: false,
      pointer: '/steps/none/result',
    });
  });

  it('chains - bounds - a step message over the cap fails payload_too_large before it is built; intent counts', () => {
    const sixty = {
      input: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`c${i}`, { $ref: '/steps/a/result/blob' }])),
    };
    const refused = stepMessage(sixty, document, 256 * 1024);
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.code, 'payload_too_large');
    const one = { input: { c: { $ref: '/steps/a/result/blob' } }, payload: { $ref: '/input/order' } };
    const built = stepMessage(one, document, 256 * 1024);
    assert.ok(built.ok);
    assert.equal(built.ok && (built.message.params?.c as string).length, 100_000);
    assert.equal(built.ok && built.message.payload, 'o-1');
    const exact = Buffer.byteLength(JSON.stringify({ c: 'x'.repeat(100_000) })) + Buffer.byteLength('"o-1"');
    assert.ok(stepMessage(one, document, exact).ok);
    assert.equal(stepMessage(one, document, exact - 1).ok, false);
    assert.equal(stepMessage({ ...one, intent: 'i' }, document, exact).ok, false);
    assert.deepEqual(stepMessage({ input: { $ref: '/steps/b/result/list' } }, document, 1000), {
      ok: false,
      code: 'mapping_failed',
      message: 'input does not come to an object (the message params)',
    });
    assert.deepEqual(stepMessage({ input: { v: { $ref: '/input/none' } } }, document, 1000), {
      ok: false,
      code: 'mapping_failed',
      message: '/input/none names nothing',
    });
    // A run recorded before the limits checks no size.
    assert.ok(stepMessage(sixty, document, undefined).ok);
  });

  it('chains - bounds - results over the inline cap are kept by reference; the cap leaves every message room within 1 MiB', () => {
    assert.equal(inlineResultCap(10), MAX_INLINE_RESULT_BYTES);
    assert.equal(inlineResultCap(512), 2048);
    assert.deepEqual(keptResult('c:a', { ok: true }, 100), { result: { ok: true } });
    assert.deepEqual(keptResult('c:a', big(230_000), 16_384), {
      result_ref: { message_id: 'c:a', bytes: jsonSize(big(230_000)) },
    });
    assert.deepEqual(keptResult('c:a', undefined, 100), {});
  });

  it('chains - bounds - a step whose message reads only the chain input is refused at submission when over the cap, naming it', () => {
    const steps = plannedSteps({
      steps: [
        { id: 'small', target: { agent_id: 'a', capability: 'c' }, input: { x: { $ref: '/input/text' } } },
        { id: 'later', target: { agent_id: 'a', capability: 'c' }, input: { x: { $ref: '/steps/small/result' } } },
        {
          id: 'fat',
          target: { agent_id: 'a', capability: 'c' },
          compensate: {
            target: { agent_id: 'a', capability: 'c' },
            payload: [{ $ref: '/input/text' }, { $ref: '/input/text' }],
          },
        },
      ],
    });
    const input = { text: 'y'.repeat(600) };
    assert.equal(knownSizeIssue(steps, input, 1024)?.step, 'fat');
    assert.match(knownSizeIssue(steps, input, 1024)?.message ?? '', /its compensation/);
    assert.equal(knownSizeIssue(steps, input, 4096), undefined);
  });

  it('chains - bounds - a resumed run reads small results from the status and large ones by reference', () => {
    const status: ChainStatus = {
      chain_id: 'c',
      tenant: 't',
      state: 'running',
      started_at: '2025-01-01T00:00:00.000Z',
      steps: [
        {
          id: 'a',
          after: [],
          message_id: 'c:a',
          state: 'completed',
          result_ref: { message_id: 'c:a', bytes: 230_000 },
        },
        { id: 'b', after: [], message_id: 'c:b', state: 'completed', result: { n: 1 } },
        { id: 'f', after: [], message_id: 'c:f', state: 'failed' },
        { id: 'p', after: [], message_id: 'c:p', state: 'pending' },
      ],
    };
    const { document: resumed, referenced } = resumedDocument({ i: 1 }, status);
    assert.deepEqual(resumed, { input: { i: 1 }, steps: { b: { result: { n: 1 } } } });
    assert.deepEqual([...referenced], [['a', 'c:a']]);
    const limits = { max_message_bytes: 1024, max_history_bytes: 1000 };
    assert.equal(historyFull(limits, { historySize: 1001, continueAsNewSuggested: false }), true);
    assert.equal(historyFull(limits, { historySize: 10, continueAsNewSuggested: true }), true);
    assert.equal(historyFull(limits, { historySize: 10, continueAsNewSuggested: false }), false);
    assert.equal(historyFull(undefined, { historySize: 1e9, continueAsNewSuggested: true }), false);
  });
});

describe('chains - mapChainStep', () => {
  const chainRun = () => ({ workflow_id: 'chain:t:c', workflow_type: 'runChain' });
  const stored: Record<string, unknown> = { 'c:a': big(1000) };
  const reads: string[] = [];
  const mapChainStep = createMapChainStep({
    scheduledBy: chainRun,
    readResult: async (_tenant, messageId) => {
      reads.push(messageId);
      return stored[messageId];
    },
  });
  const request = {
    tenant: 't',
    chain_id: 'c',
    document: { input: {}, steps: { b: { result: { k: 'v' } } } },
    referenced: { a: 'c:a', z: 'c:z' },
  };

  it('chains - mapChainStep - reads only the results the templates need, builds the message within the cap, evaluates when', async () => {
    reads.length = 0;
    const mapped = await mapChainStep({
      ...request,
      address: { input: { blob: { $ref: '/steps/a/result/blob' }, k: { $ref: '/steps/b/result/k' } } },
      max_bytes: 4096,
    });
    assert.deepEqual(mapped, { message: { ok: true, message: { params: { blob: 'x'.repeat(1000), k: 'v' } } } });
    assert.deepEqual(reads, ['c:a']);
    const tooLarge = await mapChainStep({
      ...request,
      address: { input: { one: { $ref: '/steps/a/result' }, two: { $ref: '/steps/a/result' } } },
      max_bytes: 1500,
    });
    assert.equal('message' in tooLarge && !tooLarge.message.ok && tooLarge.message.code, 'payload_too_large');
    assert.deepEqual(
      await mapChainStep({ ...request, when: { $ref: '/steps/a/result/blob', equals: 'x'.repeat(1000) } }),
      { when_holds: true },
    );
    assert.deepEqual(await mapChainStep({ ...request, when: { $ref: '/steps/a/result/blob', equals: 'no' } }), {
      when_holds: false,
    });
    assert.deepEqual(await mapChainStep({ ...request, when: { $ref: '/steps/a/result/blob', not_equals: 'no' } }), {
      when_holds: true,
    });
    assert.deepEqual(
      await mapChainStep({ ...request, when: { $ref: '/steps/a/result/blob', in: ['no', 'x'.repeat(1000)] } }),
      { when_holds: true },
    );
    assert.deepEqual(await mapChainStep({ ...request, when: { $ref: '/steps/a/result/missing', not_equals: 'no' } }), {
      when_holds: false,
    });
  });

  it("chains - mapChainStep - refuses a run that is not this chain's, and another chain's messages, reading nothing", async () => {
    reads.length = 0;
    const foreign = createMapChainStep({
      scheduledBy: () => ({ workflow_id: 'evil', workflow_type: 'runChain' }),
      readResult: async () => assert.fail('read'),
    });
    await assert.rejects(foreign({ ...request, address: { input: { x: { $ref: '/steps/a/result' } } } }), /refused/);
    await assert.rejects(
      mapChainStep({
        ...request,
        referenced: { a: 'other:a' },
        address: { input: { x: { $ref: '/steps/a/result' } } },
      }),
      /not of chain c/,
    );
    assert.deepEqual(reads, []);
  });
});
