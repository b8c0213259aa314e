/**
 * `npm run bench:a2a`: one message at a time to a real A2A agent (the tests' `@a2a-js/sdk` agent,
 * test/helpers/a2a-js-agent.ts), two ways side by side:
 * - direct: the official A2A client sends a blocking `SendMessage` and holds the completed task;
 * - gateway: `POST /v1/messages?wait=30s` to the same agent imported into Agent-Reach, which sends `SendMessage`
 *   (returnImmediately) and follows the task with GetTask (first after 250 ms, then backing off).
 * For agents that work 0 ms and 1,000 ms before completing, and one of 1,000 ms whose card offers push notifications
 * (three agent processes; direct calls do not use push, so that one is measured through the gateway only). The gateway runs as separate
 * processes (Temporal dev server on SQLite with WAL, FerretDB, api, worker); CPU per message of each from /proc.
 *
 *   --count 20 (messages per round and way)  --rounds 3  --warmup 3  --name a2a-delivery
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeResultFile } from '../lib/result-file';
import { ClientFactory, SendMessageRequest, Task, type A2aClient } from '../../protocol/a2a-sdk';
import { summary } from '../lib/stats';
import { startA2aAgentProcess, type A2aAgentProcess } from '../../test/helpers/a2a-agent-process';
import { CpuMeter } from '../lib/cpu';
import { machine } from '../lib/report';
import { BENCH_TEMPORAL_PRAGMAS, pragmaList, startBenchSystem, type BenchSystem } from '../lib/system';

const RESULTS = resolve(__dirname, '../results');
/** The agents: how long each works before completing, and whether its card offers push notifications. */
const AGENTS = [
  { workMs: 0, push: false },
  { workMs: 1000, push: false },
  { workMs: 1000, push: true },
] as const;
type Way = 'direct' | 'gateway';

interface Agent {
  workMs: number;
  push: boolean;
  agentId: string;
  process: A2aAgentProcess;
  client: A2aClient;
}

async function startAgent(system: BenchSystem, workMs: number, push: boolean, tag: string): Promise<Agent> {
  const agent = await startA2aAgentProcess('js', `bench-a2a-${workMs}-${push}-${tag}`, {
    A2A_AGENT_WORK_MS: String(workMs),
    A2A_AGENT_PUSH: push ? '1' : '0',
  });
  const imported = await fetch(`${system.apiUrl}/v1/agents/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${system.apiKey}` },
    body: JSON.stringify({ url: agent.cardUrl }),
  });
  if (imported.status !== 201) throw new Error(`import answered ${imported.status}: ${await imported.text()}`);
  const { agent_id } = (await imported.json()) as { agent_id: string };
  return {
    workMs,
    push,
    agentId: agent_id,
    process: agent,
    client: await new ClientFactory().createFromUrl(agent.url),
  };
}

/** One message; returns the time until the caller holds the completed result. */
async function oneMessage(system: BenchSystem, agent: Agent, way: Way, messageId: string): Promise<number> {
  const started = performance.now();
  if (way === 'direct') {
    const request = SendMessageRequest.fromJSON({
      message: { messageId, role: 'ROLE_USER', parts: [{ text: 'echo this back' }] },
      configuration: { returnImmediately: false },
    });
    const answer = await agent.client.sendMessage(request);
    const state = (Task.toJSON(answer as never) as { status?: { state?: string } }).status?.state;
    if (state !== 'TASK_STATE_COMPLETED') throw new Error(`direct: ${messageId} answered ${state}`);
  } else {
    const answer = await fetch(`${system.apiUrl}/v1/messages?wait=30s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${system.apiKey}` },
      body: JSON.stringify({
        message_id: messageId,
        target: { agent_id: agent.agentId, capability: 'echo' },
        intent: 'echo this back',
      }),
    });
    const status = (await answer.json()) as { state: string; reason?: unknown };
    if (status.state !== 'processed')
      throw new Error(`gateway: ${messageId} ended ${status.state}: ${JSON.stringify(status.reason)}`);
  }
  return performance.now() - started;
}

interface Case {
  agent: Agent;
  way: Way;
  key: string;
}

interface Measured {
  samples: Map<string, number[]>;
  cpu: Map<string, Record<string, number>>;
}

/** Each agent both ways, except that direct calls do not use push: only the gateway's way differs for the push agent. */
function casesOf(agents: Agent[]): Case[] {
  return agents.flatMap((agent) =>
    (agent.push ? (['gateway'] as const) : (['direct', 'gateway'] as const)).map((way) => ({
      agent,
      way: way as Way,
      key: `${way} ${agent.workMs} ms${agent.push ? ' push' : ''}`,
    })),
  );
}

/** Warm-up messages, then `rounds` rounds of `count` messages per case (in a rotated order), with the CPU of each. */
async function measure(
  system: BenchSystem,
  cases: Case[],
  tag: string,
  { count, rounds, warmup }: { count: number; rounds: number; warmup: number },
): Promise<Measured> {
  const samples = new Map(cases.map((c) => [c.key, [] as number[]]));
  const cpu = new Map(cases.map((c) => [c.key, {} as Record<string, number>]));
  for (const [n, c] of cases.entries())
    for (let i = 0; i < warmup; i++) await oneMessage(system, c.agent, c.way, `warm-${n}-${tag}-${i}`);
  for (let round = 0; round < rounds; round++) {
    for (const c of cases.map((_, i) => cases[(i + round) % cases.length]!)) {
      const pids = system.pids();
      const before = new CpuMeter();
      before.sample(pids);
      const n = cases.indexOf(c);
      for (let i = 0; i < count; i++)
        samples.get(c.key)!.push(await oneMessage(system, c.agent, c.way, `a2a-${n}-${tag}-${round}-${i}`));
      const after = before.snapshot();
      after.sample(pids);
      const totals = cpu.get(c.key)!;
      for (const [role, seconds] of Object.entries(after.totals(before))) totals[role] = (totals[role] ?? 0) + seconds;
      process.stdout.write(`\r  round ${round + 1}/${rounds} ${c.key} done   `);
    }
  }
  process.stdout.write('\n');
  return { samples, cpu };
}

function resultsOf(cases: Case[], { samples, cpu }: Measured, measured: number) {
  return cases.map((c) => {
    const perMessage = Object.fromEntries(
      Object.entries(cpu.get(c.key)!).map(([role, s]) => [role, Math.round((s * 1000) / measured)]),
    );
    const gateway = Object.values(perMessage).reduce((sum, ms) => sum + ms, 0);
    return {
      case: c.key,
      way: c.way,
      agent_work_ms: c.agent.workMs,
      agent_push: c.agent.push,
      messages: measured,
      caller: summary(samples.get(c.key)!),
      cpu_ms_per_message: { ...perMessage, gateway },
    };
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '3' },
      name: { type: 'string', default: 'a2a-delivery' },
    },
  });
  const count = Number(values.count);
  const rounds = Number(values.rounds);
  const warmup = Number(values.warmup);
  const system = await startBenchSystem({
    temporalPragmas: pragmaList(BENCH_TEMPORAL_PRAGMAS),
    log: (line) => console.log(line),
  });
  const agents: Agent[] = [];
  try {
    const tag = Date.now().toString(36);
    for (const { workMs, push } of AGENTS) agents.push(await startAgent(system, workMs, push, tag));
    const cases = casesOf(agents);
    const results = resultsOf(cases, await measure(system, cases, tag, { count, rounds, warmup }), count * rounds);
    console.table(
      Object.fromEntries(
        results.map((r) => [
          r.case,
          { p50: r.caller.median_ms, p95: r.caller.p95_ms, 'gateway CPU-ms/msg': r.cpu_ms_per_message.gateway },
        ]),
      ),
    );
    const result = {
      benchmark: 'one message at a time to an @a2a-js/sdk agent: direct blocking SendMessage vs through Agent-Reach',
      when: new Date().toISOString(),
      machine: machine(),
      temporal_pragmas: BENCH_TEMPORAL_PRAGMAS,
      count,
      rounds,
      warmup,
      results,
    };
    console.log(`written ${writeResultFile(RESULTS, values.name, result)}`);
  } finally {
    await Promise.all(agents.map((agent) => agent.process.stop()));
    await system.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
