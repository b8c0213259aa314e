import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ineligibility,
  instancesToPrune,
  isOnline,
  offlineAfterMs,
  offlineCutoff,
  pickInstance,
} from '../../rules/liveness';
import type { InstanceDoc } from '../../store/agent-instances';

const policy = { intervalMs: 10_000, ttlMs: 60_000, graceWindows: 1 };
const now = new Date('2026-11-30T10:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

function instance(id: string, overrides: Partial<InstanceDoc> = {}): InstanceDoc {
  return {
    _id: `agt/${id}`,
    agent_id: 'agt',
    tenant: 't',
    instance_id: id,
    transport: 'http',
    endpoint: `http://127.0.0.1/${id}`,
    state: 'healthy',
    load: { in_flight: 0, qps: 0 },
    last_heartbeat_at: ago(1_000),
    liveness: 'online',
    liveness_changed_at: ago(100_000),
    created_at: ago(100_000),
    ...overrides,
  };
}

describe('liveness', () => {
  it('liveness - online until the TTL passes, offline after', () => {
    assert.ok(isOnline(ago(60_000), now, policy));
    assert.ok(!isOnline(ago(60_001), now, policy));
  });

  it('liveness - grace windows multiply the TTL (the seeds tolerate 3 windows)', () => {
    const seeds = { ...policy, graceWindows: 3 };
    assert.equal(offlineAfterMs(seeds), 180_000);
    assert.ok(isOnline(ago(150_000), now, seeds));
    assert.ok(!isOnline(ago(180_001), now, seeds));
  });

  it('liveness - draining, offline, endpoint-less and unconnected websocket instances are not eligible, each with its reason', () => {
    assert.equal(ineligibility(instance('a', { state: 'draining' }), now, policy), 'draining');
    assert.equal(ineligibility(instance('a', { last_heartbeat_at: ago(70_000) }), now, policy), 'offline');
    assert.equal(ineligibility(instance('a', { endpoint: undefined }), now, policy), 'no_http_endpoint');
    assert.equal(
      ineligibility(instance('a', { transport: 'websocket', endpoint: undefined }), now, policy),
      'no_socket',
    );
    assert.equal(
      ineligibility(instance('a', { transport: 'websocket', endpoint: undefined, ws_task_queue: 'q' }), now, policy),
      undefined,
    );
    assert.equal(ineligibility(instance('a'), now, policy), undefined);
  });

  it('liveness - picks healthy before busy, then the lightest load, then by id', () => {
    const busyIdle = instance('a', { state: 'busy' });
    const healthyLoaded = instance('b', { load: { in_flight: 5, qps: 1 } });
    const healthyLight = instance('c', { load: { in_flight: 1, qps: 1 } });
    const healthyLightToo = instance('d', { load: { in_flight: 1, qps: 9 } });
    assert.equal(pickInstance([busyIdle, healthyLoaded, healthyLightToo, healthyLight], now, policy)?.instance_id, 'c');
    assert.equal(pickInstance([busyIdle, instance('x', { state: 'draining' })], now, policy)?.instance_id, 'a');
    assert.equal(pickInstance([instance('x', { last_heartbeat_at: ago(61_000) })], now, policy), undefined);
  });

  it('liveness - a new instance under the cap pushes nothing out', () => {
    const instances = [instance('a', { last_heartbeat_at: ago(10_000_000) }), instance('b')];
    assert.deepEqual(instancesToPrune(instances, now, policy, 3), []);
  });

  it('liveness - at the cap, a new instance pushes out the longest silent offline one, and only that', () => {
    const instances = [
      instance('recent-offline', { last_heartbeat_at: ago(61_000) }),
      instance('online'),
      instance('oldest', { last_heartbeat_at: ago(3_600_000) }),
    ];
    assert.deepEqual(instancesToPrune(instances, now, policy, 3), ['agt/oldest']);
    assert.ok(
      !isOnline(offlineCutoff(now, policy), new Date(now.getTime() + 1), policy),
      'the cutoff is where offline begins',
    );
  });

  it('liveness - at the cap with every instance online, a new instance is refused and nothing is pushed out', () => {
    const instances = [instance('a'), instance('b', { last_heartbeat_at: ago(60_000) })];
    assert.equal(instancesToPrune(instances, now, policy, 2), undefined);
  });

  it('liveness - an agent already far over the cap (before the cap existed) sheds offline instances down to it', () => {
    const instances = Array.from({ length: 10 }, (_, i) =>
      instance(`old${i}`, { last_heartbeat_at: ago(100_000 + i * 1000) }),
    );
    assert.deepEqual(instancesToPrune(instances, now, policy, 4), [
      'agt/old9',
      'agt/old8',
      'agt/old7',
      'agt/old6',
      'agt/old5',
      'agt/old4',
      'agt/old3',
    ]);
    assert.equal(
      instancesToPrune([...instances.slice(0, 2), ...[1, 2, 3, 4].map((i) => instance(`live${i}`))], now, policy, 4),
      undefined,
      'too few offline to make room',
    );
  });
});
