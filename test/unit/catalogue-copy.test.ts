/**
 * The per-message reads of the catalogue come from the process's in-memory copy (catalogue/agent-queries.ts);
 * the database is read only for what the copy cannot offer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentQueries, type AgentWithInstances, type CatalogueCopy } from '../../catalogue/agent-queries';
import { CatalogueIndex } from '../../catalogue/catalogue-index';
import type { Caller } from '../../rules/api-key';
import type { AgentDoc } from '../../store/agents';
import type { InstanceDoc } from '../../store/agent-instances';
import type { CatalogueModels } from '../../store/models';

const NOW = new Date('2026-01-01T00:00:00Z');
const policy = { intervalMs: 10_000, ttlMs: 60_000, graceWindows: 1 };
const caller: Caller = { tenant: 'acme', key_id: 'key_1', scopes: ['messages:send'] } as Caller;

function agent(overrides: Partial<AgentDoc> = {}): AgentDoc {
  return {
    _id: 'agt_billing',
    tenant: 'acme',
    name: 'billing',
    capabilities: [{ name: 'refund', description: '', tags: [] }],
    signing_secret: 'whsec_current',
    ...overrides,
  } as AgentDoc;
}

function instance(id: string, heartbeatAgoMs: number, endpoint = `http://${id}.invalid/`): InstanceDoc {
  return {
    _id: `agt_billing/${id}`,
    agent_id: 'agt_billing',
    tenant: 'acme',
    instance_id: id,
    transport: 'http',
    endpoint,
    state: 'healthy',
    load: { in_flight: 0, qps: 0 },
    last_heartbeat_at: new Date(NOW.getTime() - heartbeatAgoMs),
    liveness: 'online',
    liveness_changed_at: NOW,
    created_at: NOW,
  };
}

function copyOf(entries: AgentWithInstances[]): CatalogueCopy {
  return {
    agent: (id, tenant) =>
      entries.find((e) => e.agent._id === id && (tenant === undefined || e.agent.tenant === tenant)),
  };
}

/** A database that counts reads and answers from `stored`. */
function database(stored?: AgentWithInstances) {
  const reads = { count: 0 };
  const lean = <T>(value: T) => ({ lean: async () => value, sort: () => ({ lean: async () => value }) });
  const models = {
    agents: {
      findOne: () => (reads.count++, lean(stored?.agent ?? null)),
      findById: () => (reads.count++, lean(stored?.agent ?? null)),
    },
    instances: { find: () => (reads.count++, lean(stored?.instances ?? [])) },
  } as unknown as CatalogueModels;
  return { models, reads };
}

describe('catalogue copy', () => {
  it('catalogue copy - a target in the copy is found without reading the database', async () => {
    const { models, reads } = database();
    const queries = new AgentQueries(
      models,
      policy,
      () => NOW,
      undefined,
      copyOf([{ agent: agent(), instances: [instance('i1', 1_000)] }]),
    );
    const lookup = await queries.findTarget('acme', 'agt_billing', 'refund', [], caller);
    assert.equal(lookup.kind, 'found');
    assert.equal(lookup.kind === 'found' && lookup.target.endpoint, 'http://i1.invalid/');
    assert.deepEqual(await queries.checkReach('acme', 'agt_billing', 'refund', caller), { kind: 'ok' });
    assert.deepEqual(await queries.signingSecrets('agt_billing'), ['whsec_current']);
    assert.equal(reads.count, 0);
  });

  it('catalogue copy - an agent the copy does not have yet (just registered) is read from the database', async () => {
    const fresh = { agent: agent(), instances: [instance('i1', 0)] };
    const { models, reads } = database(fresh);
    const queries = new AgentQueries(models, policy, () => NOW, undefined, copyOf([]));
    assert.equal((await queries.findTarget('acme', 'agt_billing', 'refund')).kind, 'found');
    assert.deepEqual(await queries.checkReach('acme', 'agt_billing', 'refund', caller), { kind: 'ok' });
    assert.ok(reads.count > 0);
  });

  it('catalogue copy - no available instance in the copy asks the database (an instance may have come back)', async () => {
    const stale = { agent: agent(), instances: [instance('i1', 3_600_000)] };
    const current = { agent: agent(), instances: [instance('i1', 0)] };
    const { models } = database(current);
    const queries = new AgentQueries(models, policy, () => NOW, undefined, copyOf([stale]));
    assert.equal((await queries.findTarget('acme', 'agt_billing', 'refund')).kind, 'found');
  });

  it('catalogue copy - a capability added since the copy was made is found in the database', async () => {
    const withNew = {
      agent: agent({ capabilities: [{ name: 'refund' }, { name: 'invoice' }] as AgentDoc['capabilities'] }),
      instances: [instance('i1', 0)],
    };
    const { models } = database(withNew);
    const queries = new AgentQueries(
      models,
      policy,
      () => NOW,
      undefined,
      copyOf([{ agent: agent(), instances: [instance('i1', 0)] }]),
    );
    assert.deepEqual(await queries.checkReach('acme', 'agt_billing', 'invoice', caller), { kind: 'ok' });
  });

  it('catalogue copy - another tenant never sees the agent, and an ACL that does not admit the caller forbids', async () => {
    const guarded = agent({
      capabilities: [{ name: 'refund', acl: { scopes: ['refunds'] } }] as AgentDoc['capabilities'],
    });
    const { models } = database();
    const queries = new AgentQueries(
      models,
      policy,
      () => NOW,
      undefined,
      copyOf([{ agent: guarded, instances: [instance('i1', 0)] }]),
    );
    assert.equal((await queries.checkReach('acme', 'agt_billing', 'refund', caller)).kind, 'forbidden');
    assert.equal((await queries.findTarget('acme', 'agt_billing', 'refund', [], caller)).kind, 'forbidden');
    assert.equal((await queries.findTarget('other', 'agt_billing', 'refund')).kind, 'unknown_agent');
  });
});

describe('catalogue copy - read your writes', () => {
  it('catalogue copy - an agent this process changed is read from the database until a reload that began after the change', async () => {
    const stored = { agent: agent(), instances: [instance('i1', 0)] };
    let version = 1;
    let loads = 0;
    const lean = <T>(value: T) => ({ lean: async () => value });
    const models = {
      meta: { findById: () => lean({ _id: 'catalogue', version }) },
      agents: { find: () => (loads++, lean([stored.agent])) },
      instances: { find: () => lean(stored.instances) },
    } as unknown as CatalogueModels;
    const index = new CatalogueIndex(models, { refreshMs: 1_000, maxStalenessMs: 10_000 });
    await index.refresh();
    assert.ok(index.agent('agt_billing'), 'in the copy after the first load');
    index.changedHere('agt_billing');
    assert.equal(index.agent('agt_billing'), undefined, 'changed here: the copy does not answer for it');
    version = 2;
    await index.refresh();
    assert.ok(index.agent('agt_billing'), 'a reload that began after the change answers again');
    assert.equal(loads, 2);
  });
});
