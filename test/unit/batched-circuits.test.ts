/** A worker's circuits in memory, merged into the shared records in batches (store/batched-circuits.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closedCircuit, recordOutcome, type Circuit } from '../../rules/circuit';
import { BatchedCircuits } from '../../store/batched-circuits';

const policy = {
  consecutiveFailures: 3,
  failureRate: 0.5,
  minRequests: 20,
  windowMs: 60_000,
  openMs: 30_000,
  maxOpenMs: 300_000,
};

/** The shared records as store/circuits.ts keeps them, in memory. */
function sharedStore() {
  const records = new Map<string, Circuit>();
  let writes = 0;
  let down = false;
  return {
    records,
    get writes() {
      return writes;
    },
    setDown(value: boolean) {
      down = value;
    },
    async apply(
      agentId: string,
      instanceId: string,
      outcomes: readonly { ok: boolean; at: number }[],
    ): Promise<Circuit> {
      if (down) throw new Error('database down');
      const key = `${agentId}/${instanceId}`;
      const next = outcomes.reduce(
        (c, o) => recordOutcome(c, o.ok, o.at, policy),
        records.get(key) ?? closedCircuit(outcomes[0]!.at),
      );
      records.set(key, next);
      writes++;
      return next;
    },
    async openCircuits(): Promise<Map<string, Circuit>> {
      if (down) throw new Error('database down');
      return new Map([...records].filter(([, c]) => c.state === 'open'));
    },
  };
}

function batched(shared = sharedStore(), clock = { now: 1_000 }, limits = { capacity: 100, maxPending: 1_000 }) {
  return { shared, clock, circuits: new BatchedCircuits(shared, policy, { ...limits, now: () => clock.now }) };
}

describe('batched circuits', () => {
  it('batched circuits - a local streak of failures opens the circuit here at once, before any write', async () => {
    const { shared, circuits } = batched();
    for (let i = 0; i < 3; i++) await circuits.record('a', 'i1', false);
    assert.deepEqual([...(await circuits.openInstances('a'))], ['i1']);
    assert.equal(shared.writes, 0);
    assert.equal(circuits.unflushed, 3);
  });

  it('batched circuits - a flush writes each instance once, with every outcome in order', async () => {
    const { shared, circuits } = batched();
    await circuits.record('a', 'i1', false);
    await circuits.record('a', 'i1', false);
    await circuits.record('a', 'i2', true);
    await circuits.flush();
    assert.equal(shared.writes, 2);
    assert.equal(shared.records.get('a/i1')!.consecutive_failures, 2);
    assert.equal(circuits.unflushed, 0);
  });

  it('batched circuits - a streak spread over several flushes still opens the circuit (the shared record counts it)', async () => {
    const { circuits } = batched();
    for (let i = 0; i < 3; i++) {
      await circuits.record('a', 'i1', false);
      await circuits.flush();
    }
    assert.deepEqual([...(await circuits.openInstances('a'))], ['i1']);
  });

  it('batched circuits - a circuit another process opened is honoured after the next flush, and only for its agent', async () => {
    const shared = sharedStore();
    const other = batched(shared).circuits;
    for (let i = 0; i < 3; i++) await other.record('a', 'i1', false);
    await other.flush();
    const { circuits } = batched(shared);
    assert.equal((await circuits.openInstances('a')).size, 0, 'not known before a flush');
    await circuits.flush();
    assert.deepEqual([...(await circuits.openInstances('a'))], ['i1']);
    assert.equal((await circuits.openInstances('b')).size, 0);
  });

  it('batched circuits - an open circuit lets probes through once its open time is over', async () => {
    const { circuits, clock } = batched();
    for (let i = 0; i < 3; i++) await circuits.record('a', 'i1', false);
    await circuits.flush();
    clock.now += policy.openMs;
    assert.equal((await circuits.openInstances('a')).size, 0);
  });

  it('batched circuits - outcomes survive a failed flush, and what waits is bounded', async () => {
    const { shared, circuits } = batched(sharedStore(), { now: 1_000 }, { capacity: 100, maxPending: 4 });
    shared.setDown(true);
    await circuits.record('a', 'i1', false);
    await assert.rejects(circuits.flush(), /database down/);
    assert.equal(circuits.unflushed, 1, 'kept for the next flush');
    for (let i = 0; i < 10; i++) await circuits.record('b', `i${i}`, false);
    assert.ok(circuits.unflushed <= 4, `at most maxPending outcomes wait, got ${circuits.unflushed}`);
    shared.setDown(false);
    await circuits.flush();
    assert.equal(circuits.unflushed, 0);
  });

  it('batched circuits - a flush that fails part-way keeps every instance it did not write', async () => {
    const { shared, circuits } = batched();
    await circuits.record('a', 'i1', false);
    await circuits.record('a', 'i2', false);
    await circuits.record('a', 'i3', false);
    const apply = shared.apply.bind(shared);
    let calls = 0;
    shared.apply = async (...args) => {
      if (++calls === 2) throw new Error('database down');
      return apply(...args);
    };
    await assert.rejects(circuits.flush(), /database down/);
    assert.equal(circuits.unflushed, 2, 'i2 and i3 wait for the next flush');
    shared.apply = apply;
    await circuits.flush();
    assert.deepEqual([...shared.records.keys()].sort(), ['a/i1', 'a/i2', 'a/i3']);
  });

  it('batched circuits - the local copy keeps at most `capacity` instances', async () => {
    const { circuits } = batched(sharedStore(), { now: 1_000 }, { capacity: 2, maxPending: 1_000 });
    for (const id of ['i1', 'i2', 'i3']) for (let i = 0; i < 3; i++) await circuits.record('a', id, false);
    assert.equal((await circuits.openInstances('a')).size, 2, 'the least recently used one is forgotten locally');
    await circuits.flush();
    assert.equal((await circuits.openInstances('a')).size, 3, 'the shared records still have it');
  });
});
