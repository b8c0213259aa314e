import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentEvent } from '../../bench/lib/ledger';
import { chainState, scenarioFigures } from '../../bench/lib/outcome';
import { outcomeOfTry, retryableStatus } from '../../bench/lib/http-retry';

const effect = (role: 'intent' | 'quality' | 'conclusion', key: string, at: number): AgentEvent => ({
  type: 'effect',
  role,
  key,
  at,
});
const delivery = (role: 'intent' | 'quality' | 'conclusion', key: string, at = 0): AgentEvent => ({
  type: 'delivery',
  role,
  key,
  id: `${key}.${role}`,
  at,
});

describe('bench outcome', () => {
  it('bench outcome - a chain is processed only when its last hop is', () => {
    assert.equal(chainState(['processed', 'processed', 'processed']), 'processed');
    assert.equal(chainState(['processed', 'processed', 'open']), 'open');
    assert.equal(chainState(['processed', 'failed', undefined]), 'failed');
    assert.equal(
      chainState(['processed', undefined, undefined]),
      'open',
      'the next hop was never sent: the chain broke',
    );
    assert.equal(chainState([undefined, undefined, undefined]), 'open');
  });

  it('bench outcome - counts terminal, processed, duplicates and latency per logical message', () => {
    const sentAt = new Map([
      ['a', 1_000],
      ['b', 2_000],
      ['c', 3_000],
    ]);
    const events: AgentEvent[] = [
      delivery('intent', 'a'),
      effect('intent', 'a', 1_100),
      delivery('quality', 'a'),
      delivery('quality', 'a'),
      effect('quality', 'a', 1_200),
      effect('quality', 'a', 1_250),
      delivery('conclusion', 'a'),
      effect('conclusion', 'a', 1_300),
      delivery('intent', 'b'),
      effect('intent', 'b', 2_100),
      delivery('quality', 'b'),
      effect('quality', 'b', 2_200),
      delivery('conclusion', 'b'),
      delivery('conclusion', 'b'),
      effect('conclusion', 'b', 2_900),
      delivery('intent', 'c'),
    ];
    const chains = new Map([
      ['a', 'processed' as const],
      ['b', 'processed' as const],
      ['c', 'failed' as const],
    ]);
    const figures = scenarioFigures({ sentAt, events, chains });
    assert.equal(figures.messages, 3);
    assert.equal(figures.processed, 2);
    assert.equal(figures.terminal, 3);
    assert.equal(figures.failed, 1);
    assert.equal(figures.processed_rate, 0.6667);
    assert.equal(figures.duplicate_effects, 1, 'quality ran twice for a');
    assert.equal(figures.duplicate_deliveries, 2, 'quality got a twice, conclusion got b twice');
    assert.equal(figures.p50_ms, 300);
    assert.equal(figures.p99_ms, 900);
  });

  it('bench outcome - the direct client knows a 2xx, a final error answer, or nothing', () => {
    assert.equal(outcomeOfTry(200), 'ok');
    assert.equal(outcomeOfTry(503), 'failed');
    assert.equal(outcomeOfTry(undefined), 'unknown');
    assert.deepEqual([500, 503, 429, 408, 404, 400].map(retryableStatus), [true, true, true, true, false, false]);
  });
});
