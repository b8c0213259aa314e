/**
 * `npm run bench:chains`: the seed pipeline (three hops, each reading the one before) as one chain, against the same
 * three hops sent one by one by the caller (`POST /v1/messages?wait=30s`, the next sent when the previous ended),
 * alternating pair by pair. Each is timed from the caller's first call until the final status is in its hands (the
 * chain's through its run's result, a long poll). Reported: P50/P95 of both, and of the chain's overhead over the
 * hops of the same pair; the CPU seconds the gateway's processes (api, worker, Temporal, FerretDB) spent on each
 * side; and where the time goes, from Temporal's history event timestamps (bench/chains/phases.ts), as medians.
 *
 * With `--faults 0.05`, a second phase: the agent answers 5 % of deliveries 503 (the gateway redelivers) and fails
 * 5 % of the third hops for good (the chain compensates the first two); every chain must end `completed` or
 * `compensated`, and no message's effect (a processed receipt the gateway applied) may happen twice. With `--kill`,
 * the worker is SIGKILLed 1 s into that phase and the api 4 s in, each started again 2 s later.
 *
 * With `--root <checkout>` the api and the worker run from another checkout (an earlier commit: before and after back
 * to back on the same machine), the harness from this one.
 *
 *   --count 30 (pairs)  --warmup 5  --faults 0 (fault phase off)  --fault-chains 40  --kill  --name chains  --root
 */
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { ChainStatus } from '../../chains/chain';
import { chainWorkflowId, stepMessageId } from '../../chains/temporal';
import { messageWorkflowId } from '../../platform/temporal-names';
import { freePort } from '../../supervisor/dev-servers';
import { provenance, writeResultFile } from '../lib/result-file';
import { summary } from '../lib/stats';
import { machine } from '../lib/report';
import { CpuMeter } from '../lib/cpu';
import { chainPhases, hopPhases, medianPhases, type ChainPhases, type HopPhases } from './phases';
import { BENCH_TEMPORAL_PRAGMAS, pragmaList, startBenchSystem, type BenchSystem } from '../lib/system';

interface FaultAgent {
  url: string;
  close(): void;
  secret: string;
  /** Per message id, how many processed receipts the gateway applied (an effect). */
  effects: Map<string, number>;
  faults: { transient: number; failThird: number };
}

/** An agent that answers 202 and posts its receipt at once; under faults it answers 503 or fails third hops. */
async function startFaultAgent(): Promise<FaultAgent> {
  const agent: FaultAgent = {
    url: '',
    close: () => undefined,
    secret: '',
    effects: new Map(),
    faults: { transient: 0, failThird: 0 },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        message_id: string;
        callback_url: string;
        params?: { n?: number };
      };
      if (Math.random() < agent.faults.transient) return void res.writeHead(503).end();
      const fails = body.message_id.endsWith(':third') && Math.random() < agent.faults.failThird;
      res.writeHead(202).end(() => {
        const receipt = fails
          ? { status: 'failed', error: { message: 'injected failure' } }
          : { status: 'processed', result: { n: (body.params?.n ?? 0) + 1 } };
        void fetch(body.callback_url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.secret}` },
          body: JSON.stringify({ message_id: body.message_id, ...receipt }),
        })
          .then(async (answer) => {
            const applied = answer.ok && ((await answer.json()) as { applied?: boolean }).applied;
            if (applied && !fails) agent.effects.set(body.message_id, (agent.effects.get(body.message_id) ?? 0) + 1);
          })
          .catch(() => undefined);
      });
    });
  });
  const port = await freePort();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  agent.url = `http://127.0.0.1:${port}/`;
  agent.close = () => server.close();
  return agent;
}

async function api(
  system: BenchSystem,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const answer = await fetch(`${system.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${system.apiKey}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, body: await answer.json() };
}

const HOPS = ['first', 'second', 'third'];

/** The three hops, one by one: each waits for the previous one's result (as the chain's mapping does). */
async function hopsOneByOne(system: BenchSystem, agentId: string, id: string): Promise<number> {
  const started = performance.now();
  let n = 0;
  for (const hop of HOPS) {
    const answer = await api(system, 'POST', '/v1/messages?wait=30s', {
      message_id: `${id}-${hop}`,
      target: { agent_id: agentId, capability: 'echo' },
      params: { n },
    });
    if (answer.body.state !== 'processed') throw new Error(`hop ${id}-${hop} ended ${answer.body.state}`);
    n = (answer.body.result as { n: number }).n;
  }
  return performance.now() - started;
}

function pipeline(agentId: string, chainId: string, compensate: boolean) {
  const target = { agent_id: agentId, capability: 'echo' };
  const undo = compensate ? { compensate: { target: { agent_id: agentId, capability: 'undo' } } } : {};
  return {
    chain_id: chainId,
    input: { n: 0 },
    steps: [
      { id: 'first', target, input: { n: { $ref: '/input/n' } }, ...undo },
      { id: 'second', target, input: { n: { $ref: '/steps/first/result/n' } }, ...undo },
      {
        id: 'third',
        target,
        input: { n: { $ref: '/steps/second/result/n' } },
        ...(compensate ? { on_failure: 'compensate' } : {}),
      },
    ],
  };
}

async function oneChain(
  system: BenchSystem,
  client: Client,
  agentId: string,
  chainId: string,
  compensate = false,
): Promise<{ ms: number; status: ChainStatus }> {
  const started = performance.now();
  const answer = await api(system, 'POST', '/v1/chains', pipeline(agentId, chainId, compensate));
  if (answer.status !== 202) throw new Error(`chain ${chainId}: ${answer.status} ${JSON.stringify(answer.body)}`);
  const status = (await client.workflow.getHandle(chainWorkflowId('default', chainId)).result()) as ChainStatus;
  return { ms: performance.now() - started, status };
}

/** SIGKILL the worker 1 s in and the api 4 s in, each started again 2 s later. */
async function killAndRestart(system: BenchSystem, kills: string[]): Promise<void> {
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  for (const [component, at] of [
    ['worker', 1_000],
    ['api', 1_000],
  ] as const) {
    await pause(at);
    await system.kill(component);
    kills.push(`${component} killed`);
    await pause(2_000);
    await system.start(component);
    kills.push(`${component} back`);
  }
}

/** Posts the chain until the api takes it (it may be down), then its final status from Temporal. */
async function startUntilAccepted(
  system: BenchSystem,
  client: Client,
  agentId: string,
  chainId: string,
): Promise<{ ended: Promise<ChainStatus> }> {
  for (;;) {
    const answer = await api(system, 'POST', '/v1/chains', pipeline(agentId, chainId, true)).catch(() => undefined);
    if (answer && (answer.status === 202 || answer.status === 200))
      return { ended: client.workflow.getHandle(chainWorkflowId('default', chainId)).result() as Promise<ChainStatus> };
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Bench {
  system: BenchSystem;
  client: Client;
  agentId: string;
}

async function registerAgent(system: BenchSystem, agent: FaultAgent): Promise<string> {
  const registered = await api(system, 'POST', '/v1/agents', {
    name: `bench-chains-${Date.now()}`,
    endpoint: agent.url,
    capabilities: [{ name: 'echo' }, { name: 'undo' }],
  });
  if (registered.status !== 201)
    throw new Error(`registration: ${registered.status} ${JSON.stringify(registered.body)}`);
  agent.secret = registered.body.secret;
  return registered.body.agent_id as string;
}

/** Runs `run`, adding the CPU seconds the gateway's processes spent meanwhile to `side` (sampled right before and after). */
async function timedCpu<T>(
  system: BenchSystem,
  meter: CpuMeter,
  side: Map<string, number>,
  run: () => Promise<T>,
): Promise<T> {
  meter.sample(system.pids());
  const before = meter.snapshot();
  const result = await run();
  meter.sample(system.pids());
  for (const [role, seconds] of Object.entries(meter.totals(before))) side.set(role, (side.get(role) ?? 0) + seconds);
  return result;
}

/** `count` pairs of the three hops one by one and the chain, alternating which goes first; their times, CPU and phases. */
async function measurePairs({ system, client, agentId }: Bench, count: number, tag: string) {
  const hops: number[] = [];
  const chains: number[] = [];
  const overhead: number[] = [];
  const chainSteps: ChainPhases[] = [];
  const hopSteps: HopPhases[] = [];
  // CPU seconds of the gateway's processes, summed over each side's runs.
  const cpu = { hops: new Map<string, number>(), chain: new Map<string, number>() };
  const meter = new CpuMeter();
  for (let i = 0; i < count; i++) {
    const hopsId = `hops-${tag}-${i}`;
    const chainId = `chain-${tag}-${i}`;
    const runHops = () => timedCpu(system, meter, cpu.hops, () => hopsOneByOne(system, agentId, hopsId));
    const runChain = () =>
      timedCpu(system, meter, cpu.chain, async () => {
        const { ms, status } = await oneChain(system, client, agentId, chainId);
        if (status.state !== 'completed') throw new Error(`chain ${status.chain_id} ended ${status.state}`);
        return ms;
      });
    // Alternate which goes first, so neither always follows the other.
    const [h, c] =
      i % 2 === 0
        ? [await runHops(), await runChain()]
        : await (async () => {
            const c2 = await runChain();
            return [await runHops(), c2];
          })();
    hops.push(h);
    chains.push(c);
    overhead.push(c - h);
    hopSteps.push(
      await hopPhases(
        client,
        HOPS.map((hop) => messageWorkflowId('default', `${hopsId}-${hop}`)),
      ),
    );
    chainSteps.push(
      await chainPhases(
        client,
        chainWorkflowId('default', chainId),
        HOPS.map((step) => messageWorkflowId('default', stepMessageId(chainId, step))),
      ),
    );
    process.stdout.write(`\r  pair ${i + 1}/${count}   `);
  }
  process.stdout.write('\n');
  const latency = { hops_one_by_one: summary(hops), chain: summary(chains), chain_minus_hops: summary(overhead) };
  const cpuSeconds = Object.fromEntries(
    Object.entries(cpu).map(([side, roles]) => [
      side,
      Object.fromEntries([...roles].map(([role, seconds]) => [role, Math.round(seconds * 100) / 100])),
    ]),
  );
  return { latency, cpuSeconds, phases: { hops: medianPhases(hopSteps), chain: medianPhases(chainSteps) } };
}

/**
 * `total` chains under injected faults (and the kills, with `kill`): how they ended, and whether any message's effect
 * happened twice.
 */
async function faultPhase(bench: Bench, agent: FaultAgent, rate: number, total: number, kill: boolean, tag: string) {
  agent.faults = { transient: rate, failThird: rate };
  const kills: string[] = [];
  const chaos = kill ? killAndRestart(bench.system, kills) : Promise.resolve();
  // Posted one by one (the api may be down for a while: a refused post is tried again), then awaited together.
  const runs: Promise<ChainStatus>[] = [];
  for (let i = 0; i < total; i++)
    runs.push((await startUntilAccepted(bench.system, bench.client, bench.agentId, `fault-${tag}-${i}`)).ended);
  const ended = await Promise.all(runs);
  await chaos;
  const states: Record<string, number> = {};
  for (const s of ended) states[s.state] = (states[s.state] ?? 0) + 1;
  // Let late receipts land before counting effects.
  await new Promise((r) => setTimeout(r, 2_000));
  const duplicates = [...agent.effects.entries()]
    .filter(([id, times]) => id.startsWith(`fault-${tag}-`) && times > 1)
    .map(([id]) => id);
  const compensations = [...agent.effects.keys()].filter(
    (id) => id.startsWith(`fault-${tag}-`) && id.endsWith(':compensate'),
  ).length;
  return {
    rate,
    chains: total,
    kills,
    states,
    all_completed_or_compensated: ended.every((s) => s.state === 'completed' || s.state === 'compensated'),
    compensations_run: compensations,
    duplicate_effects: duplicates.length,
    duplicate_ids: duplicates.slice(0, 10),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '30' },
      warmup: { type: 'string', default: '5' },
      faults: { type: 'string', default: '0' },
      'fault-chains': { type: 'string', default: '40' },
      kill: { type: 'boolean', default: false },
      name: { type: 'string', default: 'chains' },
      root: { type: 'string' },
    },
  });
  const count = Number(values.count);
  const warmup = Number(values.warmup);
  const faultRate = Number(values.faults);
  const agent = await startFaultAgent();
  const env = { HEARTBEAT_TTL_MS: '3600000', DELIVERY_INITIAL_BACKOFF_MS: '50' };
  const system = await startBenchSystem({
    env,
    temporalPragmas: pragmaList(BENCH_TEMPORAL_PRAGMAS),
    log: (line) => console.log(line),
    ...(values.root ? { root: resolve(values.root) } : {}),
  });
  const connection = await Connection.connect({ address: system.temporalAddress });
  try {
    const bench: Bench = { system, client: new Client({ connection }), agentId: await registerAgent(system, agent) };
    const tag = Date.now().toString(36);
    for (let i = 0; i < warmup; i++) {
      await hopsOneByOne(system, bench.agentId, `warm-${tag}-${i}`);
      await oneChain(system, bench.client, bench.agentId, `warm-${tag}-${i}`);
    }
    const loadBefore = machine().load_average;
    const { latency, cpuSeconds, phases } = await measurePairs(bench, count, tag);
    console.table(latency);
    console.log({ cpu_seconds: cpuSeconds, phases });
    const loadAfter = machine().load_average;
    let faults: Record<string, unknown> | undefined;
    if (faultRate > 0) {
      faults = await faultPhase(bench, agent, faultRate, Number(values['fault-chains']), values.kill, tag);
      console.log(faults);
    }
    const result = {
      benchmark: 'seed pipeline as a chain vs the three hops sent one by one',
      ...(values.root ? { gateway_commit: provenance(resolve(values.root)).commit } : {}),
      when: new Date().toISOString(),
      machine: machine(),
      load_average_during: { before: loadBefore, after: loadAfter },
      temporal_pragmas: BENCH_TEMPORAL_PRAGMAS,
      env,
      count,
      warmup,
      latency,
      cpu_seconds: cpuSeconds,
      phases_median_ms: phases,
      ...(faults ? { faults } : {}),
    };
    console.log(`written ${writeResultFile(resolve(__dirname, '../results'), values.name!, result)}`);
  } finally {
    await connection.close();
    agent.close();
    await system.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
