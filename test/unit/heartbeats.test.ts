/** Heartbeat bookkeeping stays bounded: the sweep forgets instances this replica wrote too long ago to matter. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Heartbeats } from '../../catalogue/heartbeats';

/** Models that know every instance as online and healthy; nothing is stale. */
function fakeModels() {
  const stored = (key: string) => ({
    _id: key,
    agent_id: key.split('/')[0],
    tenant: 'default',
    instance_id: key.split('/')[1],
    transport: 'http',
    endpoint: 'http://127.0.0.1:9',
    state: 'healthy',
    load: { in_flight: 0, qps: 0 },
    last_heartbeat_at: new Date(0),
    liveness: 'online',
    liveness_changed_at: new Date(0),
    created_at: new Date(0),
  });
  return {
    instances: {
      findOneAndUpdate: (filter: { _id: string }) => ({ lean: async () => stored(filter._id) }),
      find: () => ({ lean: async () => [] }),
    },
  };
}

describe('heartbeats', () => {
  it('heartbeats - the sweep forgets writes older than writeEveryMs; recent ones are kept', async () => {
    let now = 1_000_000;
    const heartbeats = new Heartbeats(
      fakeModels() as never,
      { intervalMs: 10_000, ttlMs: 60_000, graceWindows: 1 },
      {
        writeEveryMs: 15_000,
        now: () => new Date(now),
      },
    );
    const agent = { _id: 'agt_1', tenant: 'default' } as never;
    for (let i = 0; i < 100; i++) await heartbeats.beat(agent, { instance_id: `gone${i}` });
    now += 10_000;
    await heartbeats.beat(agent, { instance_id: 'beating' });
    assert.equal(heartbeats.remembered, 101);
    now += 6_000; // the 100 are 16 s old, past writeEveryMs; 'beating' is 6 s old
    await heartbeats.sweep();
    assert.equal(heartbeats.remembered, 1);
    const again = await heartbeats.beat(agent, { instance_id: 'beating' });
    assert.equal(again.kind === 'ok' && again.written, false, 'the kept entry still spares a write');
  });
});
