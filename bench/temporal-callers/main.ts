/**
 * `npm run bench:callers`: one message at a time, the ways a caller can send it, side by side in one run:
 * - api: `POST /v1/messages?wait=30s` until it answers the final status;
 * - client: `executeMessage` from a `@temporalio/client` Client (the `sendMessage` workflow, no caller workflow);
 * - child: a caller workflow in the gateway's namespace runs `executeMessageChild`;
 * - nexus: a caller workflow in another namespace runs `sendMessageViaNexus` through a Nexus endpoint;
 * - api-intent, client-intent: as api and client, with an intent and the agent instead of the capability, so the
 *   router chooses (for the client, on the api's routing queue: one more activity hop).
 * Each is timed from the caller's first call until the final status is in its hands (`caller`), and until the
 * agent's receipt was answered `applied` (`processed`). The gateway runs as separate processes (Temporal dev server
 * on a SQLite file with WAL, FerretDB, api, worker); the caller workers and the agent run in this process. The ways
 * alternate in rounds; CPU per message of every process comes from /proc/<pid>/stat (this process's as `callers`).
 *
 *   --count 20 (messages per round and way)  --rounds 3  --warmup 5  --name temporal-callers
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { executeMessage } from '../../temporal-callers/client';
import { DEFAULT_TASK_QUEUE, type SendMessageInput } from '../../temporal-callers/contract';
import type { MessageStatus } from '../../messages/message';
import { DEFAULT_NEXUS_ENDPOINT, ensureNexusEndpoint } from '../../temporal-callers/nexus/endpoint';
import { waitUntil } from '../../supervisor/dev-servers';
import { writeResultFile } from '../lib/result-file';
import { summary } from '../lib/stats';
import { CpuMeter } from '../lib/cpu';
import { registerEchoAgent, startReceiptAgent, until, type ReceiptAgent } from '../lib/receipt-agent';
import { machine } from '../lib/report';
import type { childCaller, nexusCaller } from './caller-workflows';
import { BENCH_TEMPORAL_PRAGMAS, pragmaList, startBenchSystem, type BenchSystem } from '../lib/system';

const RESULTS = resolve(__dirname, '../results');
const WAYS = ['api', 'client', 'child', 'nexus', 'api-intent', 'client-intent'] as const;
type Way = (typeof WAYS)[number];
const CALLER_NAMESPACE = 'callers';
const CALLER_QUEUE = 'bench-callers';

interface Bench {
  system: BenchSystem;
  agent: ReceiptAgent;
  agentId: string;
  /** Clients of the gateway's namespace and of the callers' one. */
  gateway: Client;
  callers: Client;
}

/** One message the way `way` sends it; returns the caller's and the agent's times, from the first call. */
async function oneMessage(bench: Bench, way: Way, messageId: string): Promise<{ caller: number; processed: number }> {
  const routed = way.endsWith('-intent');
  const target = routed
    ? { target: { agent_id: bench.agentId }, intent: 'echo this payload back' }
    : { target: { agent_id: bench.agentId, capability: 'echo' } };
  const body = { message_id: messageId, ...target, payload: { way } };
  const input: SendMessageInput = { tenant: 'default', ...body };
  const run = { workflowId: `caller-${messageId}`, taskQueue: CALLER_QUEUE };
  const started = performance.now();
  let status: Pick<MessageStatus, 'state' | 'reason'>;
  if (way === 'api' || way === 'api-intent') {
    const answer = await fetch(`${bench.system.apiUrl}/v1/messages?wait=30s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bench.system.apiKey}` },
      body: JSON.stringify(body),
    });
    status = (await answer.json()) as MessageStatus;
  } else if (way === 'client' || way === 'client-intent') {
    status = await executeMessage(bench.gateway, input);
  } else if (way === 'child') {
    status = await bench.gateway.workflow.execute<typeof childCaller>('childCaller', {
      ...run,
      args: [input, DEFAULT_TASK_QUEUE],
    });
  } else {
    status = await bench.callers.workflow.execute<typeof nexusCaller>('nexusCaller', {
      ...run,
      args: [input, DEFAULT_NEXUS_ENDPOINT],
    });
  }
  const caller = performance.now() - started;
  if (status.state !== 'processed')
    throw new Error(`${way}: ${messageId} ended ${status.state}: ${JSON.stringify(status.reason ?? status)}`);
  await until(() => bench.agent.applied.has(messageId), 30_000);
  return { caller, processed: bench.agent.applied.get(messageId)! - started };
}

/** The callers' namespace and the endpoint to the gateway's task queue, as an operator would create them. */
async function prepareNexus(connection: Connection): Promise<void> {
  await connection.workflowService.registerNamespace({
    namespace: CALLER_NAMESPACE,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  await waitUntil(
    'callers namespace',
    async () => Boolean(await connection.workflowService.describeNamespace({ namespace: CALLER_NAMESPACE })),
    30_000,
  );
  await ensureNexusEndpoint(connection, {
    name: DEFAULT_NEXUS_ENDPOINT,
    namespace: 'default',
    taskQueue: DEFAULT_TASK_QUEUE,
  });
}

async function callerWorker(address: string, namespace: string): Promise<Worker> {
  const connection = await NativeConnection.connect({ address });
  return Worker.create({
    connection,
    namespace,
    taskQueue: CALLER_QUEUE,
    workflowsPath: require.resolve('./caller-workflows'),
  });
}

type Samples = Record<Way, { caller: number[]; processed: number[] }>;
type Cpu = Record<Way, Record<string, number>>;

/** Warm-up messages, then `rounds` rounds of `count` messages per way, with the CPU of every process per way. */
async function measure(
  bench: Bench,
  tag: string,
  { count, rounds, warmup }: { count: number; rounds: number; warmup: number },
): Promise<{ samples: Samples; cpu: Cpu }> {
  const samples = Object.fromEntries(
    WAYS.map((way) => [way, { caller: [] as number[], processed: [] as number[] }]),
  ) as Samples;
  const cpu = Object.fromEntries(WAYS.map((way) => [way, {} as Record<string, number>])) as Cpu;
  for (const way of WAYS) for (let i = 0; i < warmup; i++) await oneMessage(bench, way, `warm-${way}-${tag}-${i}`);
  for (let round = 0; round < rounds; round++) {
    // Each round starts with another way, so none always follows the same one.
    for (const way of WAYS.map((_, i) => WAYS[(i + round) % WAYS.length]!)) {
      const pids = { ...bench.system.pids(), callers: [process.pid] };
      const before = new CpuMeter();
      before.sample(pids);
      for (let i = 0; i < count; i++) {
        const hop = await oneMessage(bench, way, `tc-${way}-${tag}-${round}-${i}`);
        samples[way].caller.push(hop.caller);
        samples[way].processed.push(hop.processed);
      }
      const after = before.snapshot();
      after.sample(pids);
      for (const [role, seconds] of Object.entries(after.totals(before)))
        cpu[way][role] = (cpu[way][role] ?? 0) + seconds;
      process.stdout.write(`\r  round ${round + 1}/${rounds} ${way} done   `);
    }
  }
  process.stdout.write('\n');
  return { samples, cpu };
}

function waysOf({ samples, cpu }: { samples: Samples; cpu: Cpu }, measured: number) {
  return WAYS.map((way) => {
    const perMessage = Object.fromEntries(
      Object.entries(cpu[way]).map(([role, s]) => [role, Math.round((s * 1000) / measured)]),
    );
    const gatewayCpu = Object.entries(perMessage)
      .filter(([role]) => role !== 'callers')
      .reduce((sum, [, ms]) => sum + ms, 0);
    return {
      way,
      messages: measured,
      caller: summary(samples[way].caller),
      processed: summary(samples[way].processed),
      cpu_ms_per_message: { ...perMessage, gateway: gatewayCpu },
    };
  });
}

function printWays(ways: ReturnType<typeof waysOf>): void {
  console.table(
    Object.fromEntries(
      ways.map((w) => [
        w.way,
        {
          'caller p50': w.caller.median_ms,
          'caller p95': w.caller.p95_ms,
          'processed p50': w.processed.median_ms,
          'gateway CPU-ms/msg': w.cpu_ms_per_message.gateway,
          ...Object.fromEntries(
            Object.entries(w.cpu_ms_per_message)
              .filter(([k]) => k !== 'gateway')
              .map(([k, v]) => [`cpu ${k}`, v]),
          ),
        },
      ]),
    ),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '5' },
      name: { type: 'string', default: 'temporal-callers' },
    },
  });
  const count = Number(values.count);
  const rounds = Number(values.rounds);
  const warmup = Number(values.warmup);
  Runtime.install({
    logger: { log() {}, info() {}, warn() {}, error: console.error, debug() {}, trace() {} } as never,
  });
  const agent = await startReceiptAgent();
  // The agent sends no heartbeats: it stays online for the whole run.
  const env = { HEARTBEAT_TTL_MS: '3600000' };
  const system = await startBenchSystem({
    env,
    temporalPragmas: pragmaList(BENCH_TEMPORAL_PRAGMAS),
    log: (line) => console.log(line),
  });
  const connection = await Connection.connect({ address: system.temporalAddress });
  const workers: Worker[] = [];
  try {
    await prepareNexus(connection);
    const bench: Bench = {
      system,
      agent,
      // Described, so the router is confident enough to choose it for the intent ways.
      agentId: await registerEchoAgent(system, agent, {
        description: 'Echoes the payload back to the caller',
        examples: ['echo this payload back', 'send my payload back to me'],
      }),
      gateway: new Client({ connection }),
      callers: new Client({ connection, namespace: CALLER_NAMESPACE }),
    };
    workers.push(
      await callerWorker(system.temporalAddress, 'default'),
      await callerWorker(system.temporalAddress, CALLER_NAMESPACE),
    );
    const running = workers.map((worker) => worker.run());
    const tag = Date.now().toString(36);
    const ways = waysOf(await measure(bench, tag, { count, rounds, warmup }), count * rounds);
    printWays(ways);
    const result = {
      benchmark: 'one message at a time: api, client, child workflow, Nexus; api and client routed by intent',
      when: new Date().toISOString(),
      machine: machine(),
      temporal_pragmas: BENCH_TEMPORAL_PRAGMAS,
      env,
      count,
      rounds,
      warmup,
      ways,
    };
    console.log(`written ${writeResultFile(RESULTS, values.name, result)}`);
    for (const worker of workers) worker.shutdown();
    await Promise.all(running);
  } finally {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await connection.close();
    agent.server.close();
    await system.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
