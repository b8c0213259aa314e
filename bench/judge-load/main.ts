/**
 * `npm run bench:judge-load`: the local judge under load (issue 43, "reads when it is free"). Requests that want
 * reading — zh/en dev requests, each asked about a capability of the catalogue (its expected one, or for a request
 * that has none, the first card) — arrive at a steady rate; the bench reports what share was read, shed (`busy`) or
 * timed out, and the latency a caller waited, beside the same requests sent one at a time (sequential traffic must
 * all be read). Writes bench/results/judge-load.json (or `--name`).
 *
 *   --rate 10 (requests per second)  --seconds 60  --sequential 30 (requests one at a time first; 0: none)
 *   --timeout-ms 3000  --threads 2  --cold (skip the warm-up: by default the judge first holds the catalogue's cards,
 *   as the api's judge does once a catalogue's head serves — docs/routing.md)
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { candidatesOf, type CapabilityCandidate } from '../../router/candidates';
import { BoundedJudge, type JudgeOutcome } from '../../router/judge/bounded-judge';
import { llamaRuntimeInstalled, locateJudgeModel } from '../../router/judge/judge-files';
import { LocalJudge } from '../../router/judge/local-judge';
import { loadZhRouting } from '../lib/routing-data';
import { writeResultFile } from '../lib/result-file';

const RESULTS = resolve(__dirname, '../results');

interface Asked {
  kind: JudgeOutcome['kind'];
  ms: number;
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function summary(asked: Asked[]) {
  const share = (kind: string) =>
    Math.round((1000 * asked.filter((a) => a.kind === kind).length) / Math.max(1, asked.length)) / 10;
  const waited = asked.map((a) => a.ms);
  return {
    requests: asked.length,
    read_pct: share('answered'),
    busy_pct: share('busy'),
    timeout_pct: share('timeout'),
    other_pct: share('abstained') + share('error'),
    p50_ms: quantile(waited, 0.5),
    p95_ms: quantile(waited, 0.95),
  };
}

/** Holds the catalogue's cards as the api's judge does when a head starts serving; resolves when the warm-up ended. */
async function warmUp(judge: BoundedJudge, candidates: readonly CapabilityCandidate[]): Promise<unknown> {
  judge.hold({ tenant: 'load', revision: 'bench', candidates });
  for (;;) {
    const status = judge.warming('load');
    if (status && status.state !== 'warming') return status;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The questions: every dev request beside a card (its expected capability, else the first), in a fixed order. */
function questions(): { intent: string; candidate: CapabilityCandidate }[] {
  const data = loadZhRouting();
  const candidates = candidatesOf(data.agents);
  const byKey = new Map(candidates.map((c) => [c.key, c]));
  return data.fit.map((r) => ({ intent: r.text, candidate: (r.expected && byKey.get(r.expected)) || candidates[0]! }));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rate: { type: 'string', default: '10' },
      seconds: { type: 'string', default: '60' },
      sequential: { type: 'string', default: '30' },
      'timeout-ms': { type: 'string', default: '3000' },
      threads: { type: 'string', default: '2' },
      name: { type: 'string', default: 'judge-load' },
      cold: { type: 'boolean', default: false },
    },
  });
  const modelPath = locateJudgeModel(process.env.ROUTER_JUDGE_MODEL);
  if (!modelPath || !llamaRuntimeInstalled())
    throw new Error('the local judge is not installed: npm run models -- --judge');
  const local = new LocalJudge({ modelPath, threads: Number(values.threads) });
  await local.warm();
  const all = questions();
  let next = 0;
  const take = () => all[next++ % all.length]!;
  // A judge per phase, so the cache of one does not answer the other; certainty varies as the head's would.
  const phase = () => new BoundedJudge(local, { timeoutMs: Number(values['timeout-ms']) });
  const ask = async (judge: BoundedJudge, i: number): Promise<Asked> => {
    const started = performance.now();
    const outcome = await judge.ask(take(), 'load', ((i * 37) % 100) / 100);
    return { kind: outcome.kind, ms: Math.round(performance.now() - started) };
  };

  const warmStarted = performance.now();
  const warmed = values.cold ? undefined : await warmUp(phase(), candidatesOf(loadZhRouting().agents));
  if (warmed) console.log('warm-up', warmed, `${Math.round((performance.now() - warmStarted) / 1000)} s`);

  const sequential: Asked[] = [];
  const one = phase();
  for (let i = 0; i < Number(values.sequential); i++) sequential.push(await ask(one, i));
  console.log('sequential', summary(sequential));

  const rate = Number(values.rate);
  const total = rate * Number(values.seconds);
  const loaded = phase();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const pending: Promise<Asked>[] = [];
  for (let i = 0; i < total; i++) {
    pending.push(ask(loaded, i));
    await new Promise((r) => setTimeout(r, 1000 / rate));
  }
  const burst = await Promise.all(pending);
  const cpu = process.cpuUsage(cpuBefore);
  const wallS = (performance.now() - wallBefore) / 1000;
  const underLoad = {
    ...summary(burst),
    rate_per_s: rate,
    wall_s: Math.round(wallS),
    cpu_s: Math.round((cpu.user + cpu.system) / 1e5) / 10,
  };
  console.log('under load', underLoad);
  const file = writeResultFile(RESULTS, values.name!, {
    benchmark: 'judge-load',
    when: new Date().toISOString(),
    settings: values,
    ...(warmed ? { warm_up: warmed } : {}),
    sequential: summary(sequential),
    under_load: underLoad,
  });
  console.log(`written ${file}`);
  await local.close?.();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
