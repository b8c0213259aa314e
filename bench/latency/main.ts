/**
 * `npm run bench:latency`: the cost of one hop, one message at a time, next to a direct HTTP call to the same agent.
 *
 * Starts the gateway as separate processes (Temporal dev server on a SQLite file with WAL, FerretDB, api, worker)
 * and a tiny HTTP agent that answers 202 and posts its receipt at once. Per message:
 * - direct: a POST straight to the agent, until its answer;
 * - delivered: POST /v1/messages sent → the agent holds the delivery;
 * - processed: POST /v1/messages sent → the agent's receipt is answered `applied` (the run has recorded it).
 * CPU per message of every gateway process comes from /proc/<pid>/stat over the measured messages.
 *
 * `--baseline-root DIR` starts a second gateway from another checkout (e.g. a worktree of the previous commit), and
 * `--baseline-env KEY=VALUE` one with other settings (e.g. API_RUNS_WORKER=true); the two alternate in rounds, so
 * both are measured side by side on the same noisy machine.
 *
 *   --count 30 (messages per round and gateway)  --rounds 3  --warmup 5  --baseline-root DIR  --name latency
 *   --env KEY=VALUE (added to the api's and the worker's environment of both gateways)  --baseline-env KEY=VALUE
 *   --baseline-partitions N (the baseline's Temporal task-queue partitions; the server's own default is 4)
 *   --baseline-temporal-pragmas LIST (the baseline's SQLite pragmas for Temporal's history file, `a=b,c=d`)
 *   --floor separate|eager|false (the floor's worker as a process of its own, or run by its api with eager starts)
 *   --keep-data (keep the gateways' data folders: logs, SQLite files)
 *
 * The floor (bench/floor/) runs beside the first gateway on its Temporal dev server: the cheapest workflow that does
 * the job (start, one local activity delivering over HTTP, wait for the receipt update, complete), with an api and
 * a worker of its own (or, eager, its api running the worker) and nothing else. Measured in the same alternating
 * rounds; each gateway's hop is reported as a ratio to it (processed − direct, and CPU per message). The two share
 * that dev server: in either one's rounds, Temporal's CPU includes the other's idle polling.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeResultFile } from '../lib/result-file';
import { summary } from '../lib/stats';
import { startFloor } from '../floor/system';
import { CpuMeter } from '../lib/cpu';
import { machine } from '../lib/report';
import { registerEchoAgent, startReceiptAgent, until, type ReceiptAgent } from '../lib/receipt-agent';
import { BENCH_TEMPORAL_PRAGMAS, pragmaList, startBenchSystem, type BenchSystem } from '../lib/system';

const RESULTS = resolve(__dirname, '../results');
const ROOT = resolve(__dirname, '../..');

/** What a round needs of a gateway (or of the floor): where to post, and its processes. */
type Measured = Pick<BenchSystem, 'apiUrl' | 'apiKey' | 'stop'> & { pids(): Record<string, number[]> };

interface Gateway {
  name: string;
  system: Measured;
  agentId: string;
  samples: { direct: number[]; delivered: number[]; processed: number[] };
  cpu: { before: CpuMeter; after: CpuMeter };
  measured: number;
}

/** One message through `gateway`, and one direct call beside it; returns the three durations. */
async function oneHop(gateway: Gateway, agent: ReceiptAgent, index: number) {
  const directStarted = performance.now();
  const direct = await fetch(agent.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message_id: `direct-${index}` }),
  });
  await direct.text();
  const directMs = performance.now() - directStarted;

  const messageId = `lat-${gateway.name}-${Date.now()}-${index}`;
  const started = performance.now();
  const sent = await fetch(`${gateway.system.apiUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.system.apiKey}` },
    body: JSON.stringify({ message_id: messageId, target: { agent_id: gateway.agentId, capability: 'echo' } }),
  });
  if (sent.status !== 202) throw new Error(`${gateway.name}: send answered ${sent.status}: ${await sent.text()}`);
  await until(() => agent.applied.has(messageId), 30_000).catch((error: Error) => {
    const answer = agent.unapplied.get(messageId);
    const seen = !agent.delivered.has(messageId)
      ? 'never delivered'
      : answer
        ? `delivered, its receipt answered ${answer}`
        : 'delivered, its receipt not answered';
    throw new Error(`${gateway.name}: message ${messageId} ${seen} (${error.message})`);
  });
  return {
    direct: directMs,
    delivered: agent.delivered.get(messageId)! - started,
    processed: agent.applied.get(messageId)! - started,
  };
}

/** A gateway to start: its name, the checkout it runs from (this one if undefined), and its environment. */
type Root = [string, string | undefined, Record<string, string>];

function options() {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '30' },
      rounds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '5' },
      'baseline-root': { type: 'string' },
      'baseline-env': { type: 'string', multiple: true, default: [] as string[] },
      'baseline-partitions': { type: 'string' },
      'baseline-temporal-pragmas': { type: 'string' },
      name: { type: 'string', default: 'latency' },
      floor: { type: 'string', default: 'separate' },
      'keep-data': { type: 'boolean', default: false },
      env: { type: 'string', multiple: true, default: [] as string[] },
    },
  });
  const pairs = (list: string[]) =>
    Object.fromEntries(list.map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string]));
  const env = pairs(values.env);
  const baselineEnv = pairs(values['baseline-env']);
  const roots: Root[] = [['current', undefined, env]];
  const baselinePartitions = values['baseline-partitions'] ? Number(values['baseline-partitions']) : undefined;
  const baselinePragmas = values['baseline-temporal-pragmas'];
  if (values['baseline-root'] || values['baseline-env'].length > 0 || baselinePartitions || baselinePragmas) {
    roots.push([
      'baseline',
      values['baseline-root'] ? resolve(values['baseline-root']) : undefined,
      { ...env, ...baselineEnv },
    ]);
  }
  return {
    count: Number(values.count),
    rounds: Number(values.rounds),
    warmup: Number(values.warmup),
    name: values.name,
    floor: values.floor,
    keepData: values['keep-data'],
    roots,
    baselinePartitions,
    baselinePragmas,
  };
}
type Options = ReturnType<typeof options>;

function newGateway(name: string, system: Measured, agentId: string): Gateway {
  return {
    name,
    system,
    agentId,
    samples: { direct: [], delivered: [], processed: [] },
    cpu: { before: new CpuMeter(), after: new CpuMeter() },
    measured: 0,
  };
}

/** Starts each root's gateway (added to `gateways` as it starts, so a failure stops those started) and warms it. */
async function startGateways(opts: Options, agent: ReceiptAgent, gateways: Gateway[]): Promise<void> {
  for (const [name, root, gatewayEnv] of opts.roots) {
    const partitions = name === 'baseline' ? opts.baselinePartitions : undefined;
    const pragmas = name === 'baseline' && opts.baselinePragmas ? opts.baselinePragmas : BENCH_TEMPORAL_PRAGMAS;
    const system = await startBenchSystem({
      keepData: opts.keepData,
      env: gatewayEnv,
      temporalPragmas: pragmaList(pragmas),
      ...(root ? { root } : {}),
      ...(partitions ? { temporalPartitions: partitions } : {}),
      log: (line) => console.log(`[${name}] ${line}`),
    });
    const gateway = newGateway(name, system, await registerEchoAgent(system, agent));
    gateways.push(gateway);
    for (let i = 0; i < opts.warmup; i++) await oneHop(gateway, agent, -i - 1);
  }
}

/** Starts the floor on the first gateway's Temporal dev server (added to `gateways`) and warms it. */
async function startFloorGateway(opts: Options, agent: ReceiptAgent, gateways: Gateway[]): Promise<void> {
  const host = gateways[0]!.system as BenchSystem;
  if (!['separate', 'eager'].includes(opts.floor)) throw new Error(`--floor ${opts.floor}: separate, eager or false`);
  const floorSystem = await startFloor({
    temporalAddress: host.temporalAddress,
    temporalPid: () => host.pids().temporal,
    agentUrl: agent.url,
    logDir: join(host.dataDir, 'logs'),
    eager: opts.floor === 'eager',
  });
  const floor = newGateway('floor', floorSystem, 'floor');
  gateways.push(floor);
  for (let i = 0; i < opts.warmup; i++) await oneHop(floor, agent, -i - 1);
}

/** `rounds` rounds of `count` messages through each gateway in turn, with its processes' CPU over them. */
async function measureRounds(gateways: Gateway[], agent: ReceiptAgent, { count, rounds }: Options): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const gateway of gateways) {
      const before = new CpuMeter();
      before.sample(gateway.system.pids());
      for (let i = 0; i < count; i++) {
        const hop = await oneHop(gateway, agent, round * count + i);
        gateway.samples.direct.push(hop.direct);
        gateway.samples.delivered.push(hop.delivered);
        gateway.samples.processed.push(hop.processed);
      }
      const after = before.snapshot();
      after.sample(gateway.system.pids());
      accumulate(gateway, before, after);
      gateway.measured += count;
      process.stdout.write(`\r  round ${round + 1}/${rounds} ${gateway.name} done`);
    }
  }
  process.stdout.write('\n');
}

/** The result file's content: each gateway's report, with its ratios to the floor when the floor ran. */
function resultOf(gateways: Gateway[], opts: Options) {
  const result = {
    benchmark: 'one hop, one message at a time, beside a direct HTTP call',
    when: new Date().toISOString(),
    commit: commitOf(ROOT),
    machine: machine(),
    temporal_pragmas: BENCH_TEMPORAL_PRAGMAS,
    ...(opts.baselinePragmas ? { baseline_temporal_pragmas: opts.baselinePragmas } : {}),
    floor: opts.floor,
    gateways: gateways.map((g) => {
      const [, root, gatewayEnv] = opts.roots.find(([name]) => name === g.name) ?? ['floor', undefined, {}];
      return { ...report(g, root), env: gatewayEnv };
    }),
  };
  const floor = result.gateways.find((g) => g.name === 'floor');
  const overFloor = (g: (typeof result.gateways)[number]) =>
    floor && g !== floor
      ? {
          processed_minus_direct: ratio(g.processed_minus_direct_p50_ms, floor.processed_minus_direct_p50_ms),
          cpu_ms_per_message: ratio(g.cpu_ms_per_message.total, floor.cpu_ms_per_message.total),
        }
      : undefined;
  return {
    ...result,
    gateways: result.gateways.map((g) => ({ ...g, ...(overFloor(g) ? { ratio_to_floor: overFloor(g) } : {}) })),
  };
}

function printResult(withRatios: ReturnType<typeof resultOf>): void {
  console.table(
    Object.fromEntries(
      withRatios.gateways.map((g) => [
        `${g.name} (${g.commit})`,
        {
          'direct p50': g.direct.median_ms,
          'delivered p50': g.delivered.median_ms,
          'processed p50': g.processed.median_ms,
          'processed p95': g.processed.p95_ms,
          'processed − direct p50': g.processed_minus_direct_p50_ms,
          'CPU-ms/msg': g.cpu_ms_per_message.total,
          ...Object.fromEntries(
            Object.entries(g.cpu_ms_per_message)
              .filter(([k]) => k !== 'total')
              .map(([k, v]) => [`cpu ${k}`, v]),
          ),
          ...('ratio_to_floor' in g
            ? {
                '× floor (hop)': g.ratio_to_floor!.processed_minus_direct,
                '× floor (CPU)': g.ratio_to_floor!.cpu_ms_per_message,
              }
            : {}),
        },
      ]),
    ),
  );
}

async function main(): Promise<void> {
  const opts = options();
  const agent = await startReceiptAgent();
  const gateways: Gateway[] = [];
  try {
    await startGateways(opts, agent, gateways);
    if (opts.floor !== 'false') await startFloorGateway(opts, agent, gateways);
    await measureRounds(gateways, agent, opts);
    const withRatios = resultOf(gateways, opts);
    printResult(withRatios);
    console.log(`written ${writeResultFile(RESULTS, opts.name, withRatios)}`);
  } finally {
    agent.server.close();
    for (const gateway of [...gateways].reverse()) await gateway.system.stop();
  }
}

function ratio(value: number, floor: number): number {
  return Math.round((value / floor) * 100) / 100;
}

const cpuSeconds = new Map<Gateway, Record<string, number>>();

function accumulate(gateway: Gateway, before: CpuMeter, after: CpuMeter): void {
  const totals = cpuSeconds.get(gateway) ?? {};
  for (const [role, seconds] of Object.entries(after.totals(before))) totals[role] = (totals[role] ?? 0) + seconds;
  cpuSeconds.set(gateway, totals);
}

function report(gateway: Gateway, root: string | undefined) {
  const perMessage = Object.fromEntries(
    Object.entries(cpuSeconds.get(gateway) ?? {}).map(([role, s]) => [role, Math.round((s * 1000) / gateway.measured)]),
  );
  const total = Object.values(perMessage).reduce((a, b) => a + b, 0);
  const direct = summary(gateway.samples.direct);
  const processed = summary(gateway.samples.processed);
  return {
    name: gateway.name,
    commit: commitOf(root ?? ROOT),
    messages: gateway.measured,
    direct,
    delivered: summary(gateway.samples.delivered),
    processed,
    processed_minus_direct_p50_ms: Math.round((processed.median_ms - direct.median_ms) * 10) / 10,
    cpu_ms_per_message: { ...perMessage, total },
  };
}

function commitOf(dir: string): string {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
