/**
 * Turns what was sent and what the agents wrote down into a scenario's figures. Pure.
 *
 * Definitions (the same for both modes):
 * - processed: the last hop's side effect was executed at least once;
 * - terminal: the sender of the last hop that was started knows how it ended — processed, or a definite failure.
 *   An open hop (still pending, or its outcome unknown after the last try) is not terminal; a processed hop whose
 *   next hop was never sent is not terminal either (the chain broke between two agents);
 * - duplicate effects: executions of a hop's side effect beyond the first, per logical message and role;
 * - duplicate deliveries: requests that reached an agent's handler beyond the first, per hop;
 * - latency: from the driver's first send of a logical message to the first execution of its last hop's effect.
 */
import { latencyPercentiles } from './stats';
import type { AgentEvent } from './ledger';
import { PIPELINE, type Role } from './pipeline';

/** How one hop ended as its sender sees it; undefined when the hop was never sent. */
export type HopState = 'processed' | 'failed' | 'open' | undefined;

export type ChainState = 'processed' | 'failed' | 'open';

/** The state of a whole chain from its hops' states, in pipeline order. */
export function chainState(hops: readonly HopState[]): ChainState {
  let last = -1;
  hops.forEach((hop, index) => {
    if (hop !== undefined) last = index;
  });
  if (last < 0) return 'open';
  const state = hops[last];
  if (state === 'failed') return 'failed';
  if (state === 'processed') return last === hops.length - 1 ? 'processed' : 'open';
  return 'open';
}

export interface ScenarioFigures {
  messages: number;
  terminal: number;
  processed: number;
  failed: number;
  terminal_rate: number;
  processed_rate: number;
  duplicate_effects: number;
  duplicate_deliveries: number;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
}

export interface ScenarioInput {
  /** Logical message key → when the driver first sent it (epoch ms). */
  sentAt: ReadonlyMap<string, number>;
  events: readonly AgentEvent[];
  /** Logical message key → its chain's state as the senders see it. */
  chains: ReadonlyMap<string, ChainState>;
}

/** Extra executions beyond the first of each key. */
export function duplicatesOf(keys: readonly string[]): number {
  return keys.length - new Set(keys).size;
}

/** First execution time of the last hop's effect, per logical key. */
export function completionTimes(events: readonly AgentEvent[]): Map<string, number> {
  const last: Role = PIPELINE[PIPELINE.length - 1]!;
  const done = new Map<string, number>();
  for (const event of events) {
    if (event.type !== 'effect' || event.role !== last) continue;
    const seen = done.get(event.key);
    if (seen === undefined || event.at < seen) done.set(event.key, event.at);
  }
  return done;
}

export function scenarioFigures(input: ScenarioInput): ScenarioFigures {
  const keys = [...input.sentAt.keys()];
  const done = completionTimes(input.events);
  const processed = keys.filter((key) => done.has(key)).length;
  const states = keys.map((key) => input.chains.get(key) ?? 'open');
  const terminal = states.filter((s) => s !== 'open').length;
  const effects = input.events.filter((e) => e.type === 'effect').map((e) => `${e.role}/${e.key}`);
  const deliveries = input.events.filter((e) => e.type === 'delivery').map((e) => `${e.role}/${e.id}`);
  const latencies = keys.filter((key) => done.has(key)).map((key) => done.get(key)! - input.sentAt.get(key)!);
  const rate = (n: number) => (keys.length === 0 ? 0 : Math.round((n / keys.length) * 10_000) / 10_000);
  return {
    messages: keys.length,
    terminal,
    processed,
    failed: states.filter((s) => s === 'failed').length,
    terminal_rate: rate(terminal),
    processed_rate: rate(processed),
    duplicate_effects: duplicatesOf(effects),
    duplicate_deliveries: duplicatesOf(deliveries),
    ...latencyPercentiles(latencies),
  };
}
