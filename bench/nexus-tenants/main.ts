/**
 * `npm run bench:nexus-tenants`: what a tenant of NEXUS_TENANTS costs the message worker process: one Nexus-only
 * Worker polling `<queue>-nexus-<tenant>` on the shared connection. Measures, for 0, 10 and 50 tenants, the time to
 * create and start the workers, the process's resident memory after, and its CPU while idle (pollers waiting).
 * Usage: npm run bench:nexus-tenants [-- <idle seconds, default 10>]
 */
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startTestServers } from '../../test/helpers/servers';
import { agentReachServiceHandler } from '../../worker/nexus/handler';
import { nexusTaskQueue } from '../../platform/temporal-names';

const IDLE_S = Number(process.argv[2] ?? 10);
const COUNTS = [0, 10, 50];

const handlerFor = (tenant: string) =>
  agentReachServiceHandler({
    tenant,
    namespace: 'default',
    messageTaskQueue: 'bench',
    queries: { checkReach: async () => ({ kind: 'ok' }) },
    config: { TEMPORAL_CALLERS_REQUIRE_KEY: false, MAX_PAYLOAD_BYTES: 262_144 },
    endpointPolicy: { allowLoopback: true, allowPrivate: true, allow: [], deny: [] },
    now: Date.now,
  });

async function main(): Promise<void> {
  Runtime.install({
    logger: { log() {}, info() {}, warn() {}, error: console.error, debug() {}, trace() {} } as never,
  });
  const servers = await startTestServers();
  const connection = await NativeConnection.connect({ address: servers.temporalAddress });
  console.log(`| tenants | start (ms) | RSS after (MB) | RSS per tenant (MB) | idle CPU (% of a core) |`);
  console.log(`|---|---|---|---|---|`);
  let baseline = 0;
  for (const count of COUNTS) {
    global.gc?.();
    const started = performance.now();
    const workers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        Worker.create({
          connection,
          namespace: 'default',
          taskQueue: nexusTaskQueue('bench', `t${count}-${i}`),
          nexusServices: [handlerFor(`t${count}-${i}`)],
        }),
      ),
    );
    const runs = workers.map((w) => w.run());
    const startMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const cpu = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
    const used = process.cpuUsage(cpu);
    const rss = process.memoryUsage().rss / 2 ** 20;
    if (count === 0) baseline = rss;
    const perTenant = count === 0 ? '–' : ((rss - baseline) / count).toFixed(2);
    console.log(
      `| ${count} | ${startMs.toFixed(0)} | ${rss.toFixed(0)} | ${perTenant} | ${(((used.user + used.system) / 1e6 / IDLE_S) * 100).toFixed(1)} |`,
    );
    for (const w of workers) w.shutdown();
    await Promise.all(runs);
  }
  await connection.close();
  await servers.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
