/**
 * Cluster mode end to end: the topology of `npm run cluster` (Temporal server on PostgreSQL, FerretDB on PostgreSQL,
 * two workers, two api replicas behind HAProxy) with SDK agents, over HTTP and WebSocket; then a steady load during
 * which an api replica, a worker and the Temporal server are SIGKILLed and started again. Without HAProxy or
 * PostgreSQL it skips, saying what to install (`.ci/run` installs both).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type WebSocket from 'ws';
import { sentAsKey } from '../../temporal-callers/client';
import { ensureNexusEndpoint } from '../../temporal-callers/nexus/endpoint';
import { loadConfig } from '../../platform/config';
import { ReachAgent, type Handler } from '../../sdk';
import type { Cluster } from '../../supervisor/cluster/start-cluster';
import { prepareNamespace } from '../../supervisor/cluster/temporal-server';
import { permission } from '../../supervisor/cluster/temporal-tokens';
import { adminConnection, startTestCluster, testToken, workerConnection } from '../helpers/cluster';
import { eventually } from '../helpers/eventually';
import { request, TEST_API_KEY } from '../helpers/http';
import { clusterSkip } from '../helpers/system-packages';

let cluster: Cluster;
const cleanups: (() => Promise<void> | void)[] = [];

const card = (name: string) => ({ name, capabilities: [{ name: 'echo', description: 'Echoes the payload back' }] });

/** An SDK agent with an HTTP endpoint; it counts requests (raw deliveries) and handler runs per message id. */
async function httpAgent(gateway: string, name: string) {
  const runs = new Map<string, number>();
  const requests = new Map<string, number>();
  const handler: Handler = (delivery) => {
    runs.set(delivery.message_id, (runs.get(delivery.message_id) ?? 0) + 1);
    return { echoed: delivery.payload };
  };
  let serve: ReturnType<ReachAgent['httpHandler']> | undefined;
  const server: Server = createServer((req, res) => {
    const id = req.headers['webhook-id'];
    if (typeof id === 'string') requests.set(id, (requests.get(id) ?? 0) + 1);
    serve!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const agent = new ReachAgent({
    gateway,
    apiKey: TEST_API_KEY,
    card: card(name),
    endpoint: `http://127.0.0.1:${port}/deliveries`,
  });
  await agent.register();
  serve = agent.httpHandler(handler);
  agent.startHeartbeats(2_000);
  cleanups.push(async () => {
    await agent.drain(1_000);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { agent, runs, requests, agentId: agent.identity!.agent_id };
}

/** An SDK agent on a WebSocket to `gateway` (a replica, or the balancer); resolves once the gateway said ready. */
async function socketAgent(gateway: string, name: string) {
  const handled: string[] = [];
  const agent = new ReachAgent({ gateway, apiKey: TEST_API_KEY, card: card(name), onError: () => undefined });
  await agent.register();
  const socket: WebSocket = agent.connectWebSocket((delivery) => {
    handled.push(delivery.message_id);
    return { via: gateway };
  });
  let ready = false;
  socket.on('message', (data) => {
    if ((JSON.parse(data.toString()) as { type?: string }).type === 'ready') ready = true;
  });
  await eventually(`${name}'s socket to be ready`, async () => (ready ? true : undefined));
  cleanups.push(async () => {
    await agent.drain(1_000);
    socket.close();
  });
  return { handled, agentId: agent.identity!.agent_id };
}

/** Posts the message until the api accepts it (202) or knows it (200); any other answer or no answer is retried. */
async function sendUntilAccepted(baseUrl: string, body: Record<string, unknown>): Promise<number> {
  for (;;) {
    const answer = await request('POST', `${baseUrl}/v1/messages`, body).catch(() => undefined);
    if (answer && (answer.status === 202 || answer.status === 200)) return answer.status;
    if (answer && answer.status < 500 && answer.status !== 429)
      throw new Error(`refused: ${answer.status} ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function state(messageId: string, baseUrl = cluster.url): Promise<Record<string, any> | undefined> {
  const answer = await request('GET', `${baseUrl}/v1/messages/${encodeURIComponent(messageId)}`).catch(() => undefined);
  return answer?.status === 200 ? answer.body : undefined;
}

async function ended(messageId: string, timeoutMs = 60_000) {
  return eventually(
    `message ${messageId} to end`,
    async () => {
      const body = await state(messageId);
      return ['processed', 'failed', 'expired'].includes(body?.state) ? body! : undefined;
    },
    { timeoutMs, intervalMs: 200 },
  );
}

// Without HAProxy or PostgreSQL (system packages) the suite skips, saying what to install.
describe('cluster', { skip: clusterSkip() }, () => {
  before(
    async () => {
      cluster = await startTestCluster();
    },
    { timeout: 600_000 },
  );

  after(
    async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
      await cluster?.stop();
    },
    { timeout: 120_000 },
  );

  it('cluster - messages sent through the balancer reach an HTTP agent and end processed; both replicas serve', async () => {
    const { agentId, runs } = await httpAgent(cluster.url, 'http-echo');
    const before = await sessionsPerReplica();
    const ids = Array.from({ length: 10 }, (_, i) => `through-balancer-${i}`);
    for (const id of ids) {
      const status = await sendUntilAccepted(cluster.url, {
        message_id: id,
        target: { agent_id: agentId, capability: 'echo' },
        payload: { n: id },
      });
      assert.equal(status, 202);
    }
    for (const id of ids) {
      const body = await ended(id);
      assert.equal(body.state, 'processed', JSON.stringify(body));
      assert.deepEqual(body.result, { echoed: { n: id } });
      assert.equal(runs.get(id), 1);
    }
    const afterwards = await sessionsPerReplica();
    for (const replica of ['api1', 'api2'])
      assert.ok(afterwards[replica]! > before[replica]!, `${replica} served none of the requests`);
  });

  it('cluster - WebSocket agents held by different replicas (and one through the balancer) are delivered to', async () => {
    const agents = [
      await socketAgent(cluster.replicaUrls[0]!, 'socket-on-api1'),
      await socketAgent(cluster.replicaUrls[1]!, 'socket-on-api2'),
      await socketAgent(cluster.url, 'socket-through-balancer'),
    ];
    for (const [i, agent] of agents.entries()) {
      // Sent through each replica in turn: a message accepted by one replica reaches a socket held by the other.
      for (const [r, replica] of cluster.replicaUrls.entries()) {
        const id = `socket-${i}-via-${r}`;
        await sendUntilAccepted(replica, {
          message_id: id,
          target: { agent_id: agent.agentId, capability: 'echo' },
          payload: {},
        });
        const body = await ended(id);
        assert.equal(body.state, 'processed', JSON.stringify(body));
        assert.ok(agent.handled.includes(id));
      }
    }
  });

  it('cluster - a receipt posted to the replica that did not accept the message applies', async () => {
    // An agent that accepts (202) and reports later: the test posts its receipt, to the other replica.
    const deliveries: { message_id: string }[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        deliveries.push(JSON.parse(raw) as { message_id: string });
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}/deliveries`;
    const registered = await request('POST', `${cluster.url}/v1/agents`, { ...card('late-receipts'), endpoint });
    assert.equal(registered.status, 201);
    const id = 'receipt-elsewhere';
    await sendUntilAccepted(cluster.replicaUrls[0]!, {
      message_id: id,
      target: { agent_id: registered.body.agent_id, capability: 'echo' },
      payload: {},
    });
    await eventually('the delivery', async () => (deliveries.some((d) => d.message_id === id) ? true : undefined));
    const receipt = await request(
      'POST',
      `${cluster.replicaUrls[1]}/v1/callback`,
      { message_id: id, status: 'processed', result: { receipt_via: 'api2' } },
      { authorization: `Bearer ${registered.body.secret}` },
    );
    assert.ok(receipt.status >= 200 && receipt.status < 300, JSON.stringify(receipt.body));
    const body = await ended(id);
    assert.equal(body.state, 'processed');
    assert.deepEqual(body.result, { receipt_via: 'api2' });
  });

  it('cluster - a workflow in another namespace sends through the Nexus endpoint; an SDK agent processes it once', async () => {
    const { agentId, runs } = await httpAgent(cluster.url, 'nexus-echo');
    // The gateway's namespace and task queue, as startTestCluster configured them.
    const { TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE } = loadConfig({ ...process.env });
    await prepareNamespace(cluster.temporalAddress, await cluster.adminToken(), 'callers', 1);
    const connection = await adminConnection(cluster);
    cleanups.push(() => connection.close());
    await ensureNexusEndpoint(connection, {
      name: 'agent-reach',
      namespace: TEMPORAL_NAMESPACE,
      taskQueue: TEMPORAL_TASK_QUEUE,
    });
    const callerConnection = await workerConnection(
      cluster,
      await testToken(cluster, 'callers', [permission('callers', 'write')]),
    );
    cleanups.push(() => callerConnection.close());
    const worker = await Worker.create({
      connection: callerConnection,
      namespace: 'callers',
      taskQueue: 'callers',
      workflowsPath: require.resolve('../helpers/caller-workflows'),
    });
    const callers = new Client({ connection, namespace: 'callers' });
    // Nexus callers carry a key proof in cluster mode (TEMPORAL_CALLERS_REQUIRE_KEY is on there).
    const input = sentAsKey(
      {
        tenant: 'default',
        message_id: 'through-nexus',
        target: { agent_id: agentId, capability: 'echo' },
        payload: { via: 'nexus' },
      },
      TEST_API_KEY,
    );
    const call = (id: string) =>
      callers.workflow.execute('nexusCallerWorkflow', {
        workflowId: id,
        taskQueue: 'callers',
        args: [input, 'agent-reach'],
      });
    const [first, again] = await worker.runUntil(async () => [
      await call('nexus-caller-1'),
      await call('nexus-caller-2'),
    ]);
    assert.equal(first.state, 'processed', JSON.stringify(first));
    assert.deepEqual(first.result, { echoed: { via: 'nexus' } });
    assert.deepEqual(again, first);
    assert.equal(runs.get('through-nexus'), 1);
    assert.equal((await ended('through-nexus')).state, 'processed');
  });

  it(
    'cluster - under a steady load, SIGKILL of an api replica, a worker and the Temporal server loses and doubles nothing',
    { timeout: 900_000 },
    async (t) => {
      const { agentId, runs, requests } = await httpAgent(cluster.url, 'under-load');
      const sent: string[] = [];
      let chaosDone = false;
      let sentAfterChaos = 0;
      const sender = (async () => {
        // Bounded: the chaos below ends, and then 20 more messages close the load.
        while (sentAfterChaos < 20 && sent.length < 5_000) {
          const id = `load-${sent.length}`;
          await sendUntilAccepted(cluster.url, {
            message_id: id,
            target: { agent_id: agentId, capability: 'echo' },
            payload: { id },
          });
          sent.push(id);
          if (chaosDone) sentAfterChaos += 1;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      const afterMore = (count: number) => {
        const target = sent.length + count;
        return eventually(`${count} more messages sent`, async () => (sent.length >= target ? true : undefined), {
          timeoutMs: 300_000,
          intervalMs: 50,
        });
      };

      await afterMore(20);
      t.diagnostic(`SIGKILL api-1 after ${sent.length} messages`);
      await cluster.kill('api-1');
      await eventually(
        'the balancer to take api1 out',
        async () => ((await cluster.balancer.replicaStates()).api1?.startsWith('DOWN') ? true : undefined),
        { timeoutMs: 60_000 },
      );
      await afterMore(10); // served by api2 alone
      await cluster.members.get('api-1')!.restart();
      await eventually(
        'the balancer to take api1 back',
        async () => ((await cluster.balancer.replicaStates()).api1 === 'UP' ? true : undefined),
        { timeoutMs: 60_000 },
      );

      await afterMore(10);
      t.diagnostic(`SIGKILL worker-1 after ${sent.length} messages`);
      await cluster.kill('worker-1');
      await afterMore(10); // processed by worker-2 alone
      await cluster.members.get('worker-1')!.restart();

      await afterMore(10);
      t.diagnostic(`SIGKILL temporal after ${sent.length} messages`);
      await cluster.kill('temporal');
      await cluster.members.get('temporal')!.restart();
      chaosDone = true;
      await sender;
      t.diagnostic(`${sent.length} messages sent`);

      for (const id of sent) {
        const body = await ended(id, 300_000);
        assert.equal(body.state, 'processed', `${id}: ${JSON.stringify(body)}`);
        assert.deepEqual(body.result, { echoed: { id } });
      }
      // Nothing doubled: the agent's handler ran once per message (the SDK answers a redelivery from its store).
      const doubled = sent.filter((id) => runs.get(id) !== 1);
      assert.deepEqual(doubled, []);
      assert.equal(runs.size, sent.length);
      const redelivered = [...requests.values()].filter((n) => n > 1).length;
      t.diagnostic(
        `${redelivered} of ${sent.length} messages were delivered more than once (at-least-once delivery; the SDK deduplicated them)`,
      );
    },
  );
});

/** Sessions each replica has served so far, from HAProxy's statistics. */
async function sessionsPerReplica(): Promise<Record<string, number>> {
  const csv = await (await fetch(cluster.balancer.statsUrl)).text();
  const header = csv.split('\n')[0]!.replace(/^# /, '').split(',');
  const sv = header.indexOf('svname');
  const stot = header.indexOf('stot');
  const counts: Record<string, number> = {};
  for (const line of csv.split('\n').slice(1)) {
    const cells = line.split(',');
    if (cells[sv] === 'api1' || cells[sv] === 'api2') counts[cells[sv]!] = Number(cells[stot]);
  }
  return counts;
}
