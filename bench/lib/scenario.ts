/**
 * Runs one scenario: a fresh three-agent pipeline (direct HTTP or through Agent-Reach), a fixed number of logical
 * messages sent open-loop at a fixed rate, a progress line, then waits for the messages to settle and computes
 * the figures from the agents' ledgers and the senders' view of each hop.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startPipeline, stopPipeline, type PipelineAgents } from './agents';
import { CpuMeter } from './cpu';
import type { FaultPlan } from './faults';
import { hopState, sendHop } from './gateway';
import { postWithRetry } from './http-retry';
import { readLedgers, type AgentEvent, type ForwardOutcome } from './ledger';
import {
  chainState,
  completionTimes,
  scenarioFigures,
  type ChainState,
  type HopState,
  type ScenarioFigures,
} from './outcome';
import { CAPABILITY, hopMessageId, PIPELINE } from './pipeline';
import { latencyPercentiles } from './stats';
import type { BenchSystem } from './system';

export type Mode = 'direct' | 'reach';

export interface ScenarioSpec {
  mode: Mode;
  ratePerMin: number;
  messages: number;
  faultRate: number;
}

export interface HarnessOptions {
  runDir: string;
  seed: number;
  /** Simulated work of one hop, in ms. */
  workMs: number;
  /** Kinds and delay range of the injected faults (the rate comes from the scenario). */
  faults: Omit<FaultPlan, 'rate'>;
  /** The gateway (required for reach mode). */
  system?: BenchSystem;
  apiKey?: string;
  /** Capability knobs of the agents behind Agent-Reach. */
  ackTimeoutMs: number;
  maxAttempts: number;
  maxDeliveryMs: number;
  /** Stop waiting when nothing progressed for this long once all messages are sent. */
  stallMs: number;
  /** Longest wait for the messages to settle after the last send. */
  drainTimeoutMs: number;
  progress(line: string, final?: boolean): void;
}

export interface ScenarioResult extends ScenarioFigures {
  mode: Mode;
  rate_per_min: number;
  fault_rate: number;
  /** From the first send to the last message's completion (or the end of the wait). */
  duration_s: number;
  /** Processed logical messages per minute over that duration. */
  throughput_per_min: number;
  /** How late the driver's sends were against their schedule (a late driver means the rate was not offered). */
  send_lateness_p95_ms: number | null;
  /** CPU seconds per process role while the messages were in flight, and the average cores they used. */
  cpu_seconds: Record<string, number>;
  /** Seconds our processes were ready to run but waited for a core (other tenants of the machine, or each other). */
  cpu_wait_seconds: Record<string, number>;
  cpu_cores: { gateway: number; agents: number; driver: number };
}

/** Raw observations, for harnesses that need more than the figures (chaos recovery times). */
export interface ScenarioRaw {
  sentAt: Map<string, number>;
  events: AgentEvent[];
  chains: Map<string, ChainState>;
}

/** Called once the agents are up and sending has begun (the chaos harness injects its crashes here). */
export type DuringRun = (context: {
  agents: PipelineAgents;
  startedAt: number;
  raw: () => ScenarioRaw;
}) => Promise<void>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The gateway's processes; `postgresql` and `balancer` exist in cluster mode only (bench/lib/cluster-system.ts). */
const GATEWAY_ROLES = ['temporal', 'ferretdb', 'api', 'worker', 'postgresql', 'balancer'];

export function scenarioName(spec: ScenarioSpec): string {
  return `${spec.mode}-${spec.ratePerMin}pm-${Math.round(spec.faultRate * 1000) / 10}pct`;
}

/** One scenario's run: its agents, and what has been observed so far. */
interface Run {
  spec: ScenarioSpec;
  options: HarnessOptions;
  dir: string;
  runTag: string;
  gateway: string | undefined;
  agents: PipelineAgents;
  sentAt: Map<string, number>;
  /** How late each send was against its schedule. */
  lateness: number[];
  firstHop: Map<string, HopState>;
  chains: Map<string, ChainState>;
  events: AgentEvent[];
}

function readEvents(run: Run): AgentEvent[] {
  return (run.events = readLedgers(run.dir, PIPELINE));
}

function rawOf(run: Run): ScenarioRaw {
  return { sentAt: run.sentAt, events: run.events, chains: run.chains };
}

function startAgents(spec: ScenarioSpec, options: HarnessOptions, dir: string, runTag: string, gateway?: string) {
  return startPipeline(
    {
      mode: spec.mode,
      dir,
      fault: { ...options.faults, rate: spec.faultRate },
      seed: options.seed,
      workMs: options.workMs,
      ...(gateway ? { gateway } : {}),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ackTimeoutMs: options.ackTimeoutMs,
      maxAttempts: options.maxAttempts,
      maxDeliveryMs: options.maxDeliveryMs,
    },
    runTag,
  );
}

/** Samples the CPU of the gateway's processes (reach mode), the agents and this driver. */
function sampleCpu(run: Run, cpu: CpuMeter): void {
  cpu.sample({
    ...(run.spec.mode === 'reach' ? run.options.system!.pids() : {}),
    agents: PIPELINE.map((role) => run.agents[role].pid()).filter((pid): pid is number => pid !== undefined),
    driver: [process.pid],
  });
}

/** Sends one logical message to the first agent, directly or through the gateway, and notes how its first hop began. */
async function send(run: Run, key: string): Promise<void> {
  const { agents, options } = run;
  if (run.spec.mode === 'direct') {
    const outcome = await postWithRetry(agents.intent.url, { key });
    run.firstHop.set(key, hopStateOf(outcome));
    return;
  }
  const status = await sendHop({
    gateway: run.gateway!,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    messageId: hopMessageId(key, 'intent'),
    agentId: agents.intent.agentId!,
    capability: CAPABILITY.intent,
    payload: { key },
    traceId: randomBytes(16).toString('hex'),
  });
  // A 4xx is a definite refusal; otherwise the gateway now owns the hop (or never answered): ask it later.
  run.firstHop.set(key, status !== undefined && status >= 400 && status < 500 ? 'failed' : 'open');
}

/** Sends the scenario's messages open-loop at its rate from `startedAt`; returns the sends, still in flight. */
async function sendOnSchedule(run: Run, startedAt: number): Promise<Promise<void>[]> {
  const intervalMs = 60_000 / run.spec.ratePerMin;
  const sends: Promise<void>[] = [];
  for (let i = 0; i < run.spec.messages; i++) {
    const due = startedAt + i * intervalMs;
    if (due > Date.now()) await sleep(due - Date.now());
    run.lateness.push(Date.now() - due);
    const key = `${run.runTag}-${i}`;
    run.sentAt.set(key, Date.now());
    sends.push(send(run, key));
  }
  return sends;
}

/** Phase 1: wait until every message is processed, nothing moved for stallMs, or the drain time is up. */
async function drain(run: Run, drainDeadline: number): Promise<void> {
  let lastProgressAt = Date.now();
  let lastCount = -1;
  for (;;) {
    const events = readEvents(run);
    const count = events.length;
    if (count !== lastCount) [lastCount, lastProgressAt] = [count, Date.now()];
    if (completionTimes(events).size >= run.spec.messages) break;
    if (Date.now() - lastProgressAt >= run.options.stallMs || Date.now() >= drainDeadline) break;
    await sleep(500);
  }
}

/** Phase 2: until every chain is settled as its senders see it (the gateway may still be taking a receipt in). */
async function settle(run: Run, sends: Promise<void>[], drainDeadline: number): Promise<void> {
  const { spec, sentAt, chains, firstHop } = run;
  await Promise.race([Promise.all(sends), sleep(30_000)]);
  const settleDeadline = Math.max(drainDeadline, Date.now() + 30_000);
  for (;;) {
    const events = readEvents(run);
    const open = [...sentAt.keys()].filter((key) => (chains.get(key) ?? 'open') === 'open');
    const states =
      spec.mode === 'direct'
        ? open.map((key) => directChain(key, firstHop, events))
        : await mapLimit(open, 16, async (key) =>
            firstHop.get(key) === 'failed' ? 'failed' : reachChain(run.gateway!, key, run.options.apiKey),
          );
    open.forEach((key, index) => chains.set(key, states[index]!));
    if (states.every((s) => s !== 'open') || Date.now() >= settleDeadline) break;
    // Direct HTTP: once every call has ended, an open chain stays open (its outcome is unknown for good).
    if (spec.mode === 'direct' && firstHop.size === sentAt.size && forwardsEnded(events)) break;
    await sleep(1_000);
  }
}

/** The scenario's figures from the agents' ledgers and the senders' view, with its duration and CPU. */
function resultOf(
  run: Run,
  { startedAt, workEndedAt }: { startedAt: number; workEndedAt: number },
  cpu: { seconds: Record<string, number>; waitSeconds: Record<string, number> },
): ScenarioResult {
  const { spec, events } = run;
  const figures = scenarioFigures({ sentAt: run.sentAt, events, chains: run.chains });
  const done = completionTimes(events);
  const lastDone = Math.max(startedAt, ...done.values());
  const durationMs = (done.size === spec.messages ? lastDone : workEndedAt) - startedAt;
  const wallS = Math.max(0.001, (workEndedAt - startedAt) / 1000);
  const sum = (roles: string[]) => roles.reduce((total, role) => total + (cpu.seconds[role] ?? 0), 0);
  return {
    mode: spec.mode,
    rate_per_min: spec.ratePerMin,
    fault_rate: spec.faultRate,
    ...figures,
    duration_s: Math.round(durationMs / 100) / 10,
    throughput_per_min: Math.round((figures.processed / Math.max(0.001, durationMs)) * 60_000),
    send_lateness_p95_ms: latencyPercentiles(run.lateness).p95_ms,
    cpu_seconds: cpu.seconds,
    cpu_wait_seconds: cpu.waitSeconds,
    cpu_cores: {
      gateway: Math.round((sum(GATEWAY_ROLES) / wallS) * 100) / 100,
      agents: Math.round((sum(['agents']) / wallS) * 100) / 100,
      driver: Math.round((sum(['driver']) / wallS) * 100) / 100,
    },
  };
}

export async function runScenario(
  spec: ScenarioSpec,
  options: HarnessOptions,
  during?: DuringRun,
): Promise<{ result: ScenarioResult; raw: ScenarioRaw }> {
  const name = scenarioName(spec);
  const dir = join(options.runDir, name);
  const runTag = `${name}-${randomBytes(3).toString('hex')}`;
  const gateway = options.system?.apiUrl;
  if (spec.mode === 'reach' && !gateway) throw new Error('reach mode needs the gateway');
  const agents = await startAgents(spec, options, dir, runTag, gateway);
  const run: Run = {
    spec,
    options,
    dir,
    runTag,
    gateway,
    agents,
    sentAt: new Map(),
    lateness: [],
    firstHop: new Map(),
    chains: new Map(),
    events: [],
  };
  const cpu = new CpuMeter();
  sampleCpu(run, cpu);
  const baseline = cpu.snapshot();
  const sampler = setInterval(() => sampleCpu(run, cpu), 1_000);

  const startedAt = Date.now();
  const progress = setInterval(() => {
    const processed = completionTimes(readEvents(run)).size;
    options.progress(
      `[${name}] sent ${run.sentAt.size}/${spec.messages}  processed ${processed}  ${Math.round((Date.now() - startedAt) / 1000)} s`,
    );
  }, 1_000);
  const duringRun = during?.({ agents, startedAt, raw: () => rawOf(run) });
  const sends = await sendOnSchedule(run, startedAt);
  await duringRun;

  const drainDeadline = Date.now() + options.drainTimeoutMs;
  await drain(run, drainDeadline);
  const workEndedAt = Date.now();
  sampleCpu(run, cpu);
  clearInterval(sampler);
  const cpuUsed = { seconds: cpu.totals(baseline), waitSeconds: cpu.waits(baseline) };

  await settle(run, sends, drainDeadline);
  clearInterval(progress);
  await stopPipeline(agents);
  readEvents(run);

  const result = resultOf(run, { startedAt, workEndedAt }, cpuUsed);
  options.progress(
    `[${name}] ${result.processed}/${spec.messages} processed, ${result.terminal} terminal, p95 ${result.p95_ms} ms`,
    true,
  );
  return { result, raw: rawOf(run) };
}

/** Direct HTTP: every execution of a non-last hop has written how its call to the next one ended. */
function forwardsEnded(events: readonly AgentEvent[]): boolean {
  const count = (type: AgentEvent['type'], role: string) =>
    events.filter((e) => e.type === type && e.role === role).length;
  return PIPELINE.slice(0, -1).every((role) => count('effect', role) === count('forward', role));
}

function hopStateOf(outcome: ForwardOutcome): HopState {
  return outcome === 'ok' ? 'processed' : outcome === 'failed' ? 'failed' : 'open';
}

/** Direct HTTP: the driver knows the first hop; each agent wrote down how its call to the next one ended. */
function directChain(key: string, firstHop: ReadonlyMap<string, HopState>, events: readonly AgentEvent[]): ChainState {
  const forwards = events.filter(
    (e): e is Extract<AgentEvent, { type: 'forward' }> => e.type === 'forward' && e.key === key,
  );
  const hopAfter = (role: string): HopState => {
    const outcomes = forwards.filter((f) => f.role === role).map((f) => f.outcome);
    if (outcomes.length === 0) return undefined;
    return outcomes.includes('ok') ? 'processed' : outcomes.includes('failed') ? 'failed' : 'open';
  };
  return chainState([firstHop.get(key) ?? 'open', hopAfter('intent'), hopAfter('quality')]);
}

/** Agent-Reach: the gateway's status of the last hop that exists. */
async function reachChain(gateway: string, key: string, apiKey?: string): Promise<ChainState> {
  const hops: HopState[] = [undefined, undefined, undefined];
  for (let index = PIPELINE.length - 1; index >= 0; index--) {
    hops[index] = await hopState(gateway, hopMessageId(key, PIPELINE[index]!), apiKey);
    if (hops[index] !== undefined) {
      for (let earlier = 0; earlier < index; earlier++) hops[earlier] = 'processed';
      break;
    }
  }
  return chainState(hops);
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  });
  await Promise.all(workers);
  return results;
}
