/**
 * 2026-07-28 `subscriptions/listen` (api/mcp/modern.ts, listen-bus.ts, list-watch.ts): a stream is told when its own
 * key's lists change with the catalogue, never of another tenant's change; a key holds at most
 * MCP_MAX_LISTENS_PER_KEY streams, and a closed stream frees its place. With the official v2 client over real HTTP
 * against `McpFace` alone, over a stand-in catalogue copy whose agents and change counter the test moves.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import express from 'express';
import pino from 'pino';
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import type { McpDeps } from '../../api/mcp/context';
import { ListenBus } from '../../api/mcp/listen-bus';
import { listFingerprints, ListWatch } from '../../api/mcp/list-watch';
import { McpFace } from '../../api/mcp/sessions';
import type { SessionOptions } from '../../api/mcp/server';
import { errorHandler } from '../../api/error-middleware';
import { loadConfig } from '../../platform/config';
import type { AgentDoc } from '../../store/agents';
import { eventually } from '../helpers/eventually';

/** A stand-in catalogue copy: one agent per tenant, whose capabilities and revision the test changes. */
function catalogue() {
  let version = 1;
  const capabilities: Record<string, string[]> = { acme: ['hello'], beta: ['hello'] };
  const revisions: Record<string, number> = { acme: 1, beta: 1 };
  const agentOf = (tenant: string): AgentWithInstances => ({
    agent: {
      _id: `agt_${tenant}`,
      tenant,
      name: tenant,
      description: '',
      revision: revisions[tenant],
      capabilities: (capabilities[tenant] ?? []).map((name) => ({ name, description: '', tags: [], examples: [] })),
    } as unknown as AgentDoc,
    instances: [],
  });
  return {
    index: {
      ensureCurrent: async () => undefined,
      agents: (tenant: string) => (tenant in revisions ? [agentOf(tenant)] : []),
      get version() {
        return version;
      },
    },
    /** The tenant's agent gets one more capability (a new revision). */
    addCapability(tenant: string, name: string) {
      capabilities[tenant] = [...(capabilities[tenant] ?? []), name];
      revisions[tenant] = (revisions[tenant] ?? 0) + 1;
      version += 1;
    },
  };
}

function depsOf(index: ReturnType<typeof catalogue>['index'], env: Record<string, string> = {}): McpDeps {
  return {
    config: loadConfig({ CATALOGUE_REFRESH_MS: '50', ...env }),
    catalogue: { index } as never,
    logger: pino({ level: 'silent' }),
    sealKeys: { keys: ['listen-test-seal-key'] },
  } as unknown as McpDeps;
}

const options = (tenant: string, key_id: string): SessionOptions => ({
  caller: { tenant, key_id, scopes: ['read', 'send'] } as SessionOptions['caller'],
  capabilityTools: true,
});

const stops: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
});

describe('mcp subscriptions/listen', () => {
  it("mcp listen - a stream is told of its own key's list changes only, and stops being told once closed", async () => {
    const fake = catalogue();
    const deps = depsOf(fake.index);
    const watch = new ListWatch(deps);
    stops.push(async () => watch.close());
    const bus = new ListenBus(watch, deps.logger);
    const told: Record<string, string[]> = { acme: [], beta: [], outside: [] };
    const listen = async (tenant: string) => {
      const listening = { options: options(tenant, `k-${tenant}`), fingerprints: {} };
      listening.fingerprints = await listFingerprints(deps, listening.options);
      return bus.listening(listening, async () => bus.subscribe((event) => told[tenant]!.push(event.kind)));
    };
    const acme = await listen('acme');
    await listen('beta');
    // A subscription made outside a listen request follows nothing.
    bus.subscribe((event) => told.outside!.push(event.kind));
    assert.equal(watch.size, 2);

    fake.addCapability('acme', 'goodbye');
    await watch.check();
    assert.deepEqual(told, { acme: ['tools_list_changed'], beta: [], outside: [] });

    acme();
    assert.equal(watch.size, 1);
    fake.addCapability('acme', 'again');
    await watch.check();
    assert.deepEqual(told.acme, ['tools_list_changed']);
  });

  it('mcp listen - over HTTP: the acknowledgement, a tools/list_changed on a catalogue change, at most MCP_MAX_LISTENS_PER_KEY streams per key', async () => {
    const fake = catalogue();
    const face = new McpFace(depsOf(fake.index, { MCP_MAX_LISTENS_PER_KEY: '1' }));
    const app = express();
    app.use((req, res, next) => {
      const [tenant, key_id] = (req.get('authorization') ?? '').replace(/^Bearer /, '').split('.');
      res.locals.caller = { tenant, key_id, scopes: ['read', 'send'] };
      next();
    });
    app.use(express.json());
    app.use(face.routes());
    app.use(errorHandler(pino({ level: 'silent' })));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    stops.push(async () => {
      await face.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp?capability_tools=true`;
    const connect = async (bearer: string) => {
      const client = new Client(
        { name: 'listen-test', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${bearer}` } },
        }),
      );
      stops.push(() => client.close());
      return client;
    };

    const client = await connect('acme.k1');
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
    );
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    // The capability-tool view has no prompts: only the tools are honoured.
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });

    fake.addCapability('acme', 'goodbye');
    await changed;
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'acme__goodbye'));

    // The key's one stream is open: another is refused in-band; another key's is not.
    await assert.rejects(client.listen({ toolsListChanged: true }), (error: ProtocolError) => {
      assert.equal(error.code, -32603);
      return true;
    });
    const other = await (await connect('acme.k2')).listen({ toolsListChanged: true });
    await other.close();

    await subscription.close();
    const again = await eventually('the closed stream to free its place', () =>
      client.listen({ toolsListChanged: true }).catch(() => undefined),
    );
    await again.close();
  });
});
