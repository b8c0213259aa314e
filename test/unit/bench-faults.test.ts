import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideFault, FAULT_KINDS, NO_FAULTS, parseFaultKinds } from '../../bench/lib/faults';
import { seededRandom } from '../../util/random';

const sequence = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length]!;
};

describe('bench faults', () => {
  it('bench faults - no fault at rate 0, whatever the draw', () => {
    assert.deepEqual(decideFault(NO_FAULTS, sequence(0)), { kind: 'none' });
  });

  it('bench faults - a draw under the rate picks a kind uniformly, over it none', () => {
    const plan = { ...NO_FAULTS, rate: 0.05 };
    assert.deepEqual(decideFault(plan, sequence(0.06)), { kind: 'none' });
    assert.deepEqual(decideFault(plan, sequence(0.01, 0)), { kind: 'drop' });
    assert.deepEqual(decideFault(plan, sequence(0.01, 0.6)), { kind: 'lose_receipt' });
    assert.deepEqual(decideFault(plan, sequence(0.01, 0.99)), { kind: 'error_5xx' });
  });

  it('bench faults - a delay falls inside its range', () => {
    const plan = { ...NO_FAULTS, rate: 1, kinds: ['delay'] as const, delayMinMs: 500, delayMaxMs: 1500 };
    assert.deepEqual(decideFault(plan, sequence(0, 0, 0.5)), { kind: 'delay', ms: 1000 });
  });

  it('bench faults - a seeded schedule hits close to its rate and replays identically', () => {
    const plan = { ...NO_FAULTS, rate: 0.05 };
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 20_000 }, () => decideFault(plan, random).kind);
    };
    const kinds = draw(7);
    const faulted = kinds.filter((k) => k !== 'none').length / kinds.length;
    assert.ok(faulted > 0.04 && faulted < 0.06, `fault share ${faulted}`);
    for (const kind of FAULT_KINDS) assert.ok(kinds.includes(kind), `${kind} drawn`);
    assert.deepEqual(draw(7), kinds);
  });

  it('bench faults - kinds parse from a list and an unknown one is refused', () => {
    assert.deepEqual(parseFaultKinds('drop, delay'), ['drop', 'delay']);
    assert.throws(() => parseFaultKinds('drop,flood'), /unknown fault kind flood/);
  });
});
