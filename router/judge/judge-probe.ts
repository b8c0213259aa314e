/**
 * `ROUTER_JUDGE=auto`'s timed probe: cores and memory say whether the local judge can run on a host, not whether it
 * answers in time there (on a slow host a judgement of a held card took 2–3 s against a 3 s timeout, so nearly every
 * reading timed out and each added the timeout to its request: docs/benchmarks.md, "The judge on a slower machine").
 * So `auto` starts with the judge off, times a judgement of a fixed card once the model is loaded, and turns it on
 * only when a judgement of a card it holds takes at most PROBE_SHARE of the timeout (room for one more waiting).
 * A probe is tried up to PROBE_ATTEMPTS times, PROBE_RETRY_MS apart (the api's start, when the head trains, is the
 * busiest moment for the CPU); the fastest counts.
 */
import type { CapabilityCandidate } from '../candidates';
import type { JudgeProvider, JudgeQuestion } from './question';

/** A held card's judgement may take at most this share of the timeout. */
export const PROBE_SHARE = 0.5;
export const PROBE_ATTEMPTS = 3;
export const PROBE_RETRY_MS = 60_000;
/** One attempt (loading a card and judging it twice) gives up after this long. */
export const PROBE_LIMIT_MS = 60_000;

const PROBE_CANDIDATE: CapabilityCandidate = {
  key: 'agent-reach-probe/weather.forecast',
  agent_id: 'agent-reach-probe',
  agent_name: 'Weather',
  agent_description: 'Weather forecasts.',
  agent_tags: ['weather'],
  capability: {
    name: 'weather.forecast',
    description: 'Gives the weather forecast for a city for the next days. It does NOT report past weather.',
    tags: ['weather'],
    examples: ['明天上海会下雨吗', 'What is the weather in Berlin this weekend?', '北京后天多少度'],
  },
  instances: [],
};

export const PROBE_QUESTION: JudgeQuestion = { intent: '杭州周五天气怎么样？', candidate: PROBE_CANDIDATE };

export interface ProbeResult {
  fits: boolean;
  why: string;
  /** The fastest held-card judgement measured, if any answered. */
  ms?: number;
}

/** Whether a held card's judgement of `ms` leaves room within the timeout. Pure. */
export function probeFits(ms: number, timeoutMs: number): ProbeResult {
  const limit = Math.round(timeoutMs * PROBE_SHARE);
  const measured = `a judgement of a held card took ${Math.round(ms)} ms on this host`;
  return ms <= limit
    ? { fits: true, why: `${measured} (at most ${limit} ms fits ROUTER_JUDGE_TIMEOUT_MS ${timeoutMs})`, ms }
    : {
        fits: false,
        why: `${measured}; ROUTER_JUDGE_TIMEOUT_MS ${timeoutMs} needs at most ${limit} ms (ROUTER_JUDGE=local keeps it on)`,
        ms,
      };
}

/** One attempt: the card is read once (its prefix kept), then the held-card judgement is timed. */
async function timeHeldJudgement(provider: JudgeProvider, limitMs: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${limitMs} ms`)), limitMs);
  });
  try {
    return await Promise.race([
      (async () => {
        await provider.judge(PROBE_QUESTION);
        const started = performance.now();
        await provider.judge(PROBE_QUESTION);
        return performance.now() - started;
      })(),
      limit,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ProbeOptions {
  timeoutMs: number;
  attempts?: number;
  retryMs?: number;
  limitMs?: number;
  /** Called after each attempt that does not fit (for the log). */
  onAttempt?: (attempt: number, result: ProbeResult) => void;
}

/** Times the judge on this host until an attempt fits, at most `attempts` times; the fastest attempt decides. */
export async function probeJudge(provider: JudgeProvider, options: ProbeOptions): Promise<ProbeResult> {
  const attempts = options.attempts ?? PROBE_ATTEMPTS;
  let fastest: number | undefined;
  let lastError: string | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? PROBE_RETRY_MS));
    try {
      const ms = await timeHeldJudgement(provider, options.limitMs ?? PROBE_LIMIT_MS);
      fastest = fastest === undefined ? ms : Math.min(fastest, ms);
      const result = probeFits(fastest, options.timeoutMs);
      if (result.fits) return result;
      options.onAttempt?.(attempt, result);
    } catch (error) {
      lastError = (error as Error).message ?? String(error);
      options.onAttempt?.(attempt, { fits: false, why: `the probe judgement failed: ${lastError}` });
    }
  }
  if (fastest !== undefined) {
    const result = probeFits(fastest, options.timeoutMs);
    return { ...result, why: `${result.why}; fastest of ${attempts} probes` };
  }
  return { fits: false, why: `the probe judgement failed ${attempts} times (${lastError})` };
}
