/**
 * Receipts during an outage of the database: an agent found by its secret before the outage is still found (the
 * receipt is taken, the message does not pay a redelivery); one never seen is not; a wrong secret never is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentStore } from '../../catalogue/agent-store';
import { hashSecret, newAgentSecret } from '../../rules/ids';
import type { AgentDoc } from '../../store/agents';
import type { CatalogueModels } from '../../store/models';

function storeWith(database: { up: boolean; agent: AgentDoc }, clock: { ms: number }) {
  const agents = {
    findOne: (filter: { $or: { secret_hash?: string; previous_secret_hash?: string }[] }) => ({
      lean: async () => {
        if (!database.up) throw new Error('connection refused');
        return filter.$or.some((f) => f.secret_hash === database.agent.secret_hash) ? database.agent : null;
      },
    }),
  };
  return new AgentStore({ agents } as unknown as CatalogueModels, {
    secretOverlapMs: 0,
    authCacheMs: 5_000,
    now: () => new Date(clock.ms),
  });
}

describe('agent auth during an outage', () => {
  const secret = newAgentSecret();
  const agent = { _id: 'agt_1', tenant: 't', secret_hash: hashSecret(secret) } as AgentDoc;

  it('agent auth during an outage - a record read before the outage is reused past its cache time while the database is down, and refreshed after', async () => {
    const database = { up: true, agent };
    const clock = { ms: Date.parse('2026-12-02T10:00:00Z') };
    const store = storeWith(database, clock);
    assert.equal((await store.findBySecret(secret, { cached: true }))?._id, 'agt_1');
    database.up = false;
    clock.ms += 10 * 60_000; // ten minutes of outage, far past the 5 s cache time
    assert.equal((await store.findBySecret(secret, { cached: true }))?._id, 'agt_1');
    assert.equal(
      await store.findBySecret(newAgentSecret(), { cached: true }).catch(() => 'unavailable'),
      'unavailable',
      'an unknown secret is not guessed at',
    );
    database.up = true;
    database.agent = { ...agent, secret_hash: hashSecret(newAgentSecret()) }; // rotated while we could not see it
    assert.equal(
      await store.findBySecret(secret, { cached: true }),
      null,
      'once the database answers, it decides again',
    );
  });

  it('agent auth during an outage - a wrong secret is refused even from a kept record', async () => {
    const database = { up: true, agent };
    const clock = { ms: Date.parse('2026-12-02T10:00:00Z') };
    const store = storeWith(database, clock);
    await store.findBySecret(secret, { cached: true });
    database.up = false;
    assert.equal(await store.findBySecret(`${secret}x`, { cached: true }).catch(() => 'unavailable'), 'unavailable');
  });
});
