/**
 * Liveness of A2A agents. They never send our heartbeats, so each api replica reads their card URL
 * (`/.well-known/agent-card.json`, or where the card was imported from) every A2A_PROBE_INTERVAL_MS; a card that
 * answers 2xx counts as a heartbeat. Which instances to probe comes from the replica's in-memory catalogue copy, so
 * a round reads nothing from the database. One that does not answer beats nothing, and the sweeper marks the instance
 * offline after the heartbeat TTL like any silent instance. Replicas probe the same cards; the heartbeats' write
 * coalescing keeps that to one write per instance per HEARTBEAT_WRITE_EVERY_MS.
 */
import type { Logger } from 'pino';
import { agentCardUrl } from './a2a';
import type { AgentWithInstances } from './agent-queries';
import type { CatalogueIndex } from './catalogue-index';
import type { Heartbeats } from './heartbeats';
import { startPeriodic } from '../platform/periodic';
import type { AgentDoc } from '../store/agents';
import type { InstanceDoc } from '../store/agent-instances';

/** Instances probed per round at most (the least recently confirmed first), and at once. */
const PROBES_PER_ROUND = 500;
const PROBES_AT_ONCE = 8;

export interface A2aProbeDeps {
  /** The replica's catalogue copy: the A2A instances and their agents. */
  catalogue: Pick<CatalogueIndex, 'allAgents'>;
  heartbeats: Pick<Heartbeats, 'beat'>;
  /** The endpoint policy's fetch: a card's host may resolve elsewhere than at import. */
  fetch: typeof fetch;
  timeoutMs: number;
}

/** Where an A2A instance's liveness is read: the URL its card was imported from, else the well-known card of its origin. */
export function probeUrlOf(
  agent: Pick<AgentDoc, 'source'>,
  instance: Pick<InstanceDoc, 'endpoint'>,
): string | undefined {
  if (agent.source?.url) return agent.source.url;
  if (!instance.endpoint) return undefined;
  return agentCardUrl(new URL(instance.endpoint).origin);
}

async function cardAnswers(url: string, deps: Pick<A2aProbeDeps, 'fetch' | 'timeoutMs'>): Promise<boolean> {
  try {
    const response = await deps.fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(deps.timeoutMs),
      redirect: 'manual',
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/** An A2A instance to probe, with its agent. */
type Probed = { agent: AgentDoc; instance: InstanceDoc };

function a2aInstancesOf(entries: readonly AgentWithInstances[]): Probed[] {
  return entries.flatMap(({ agent, instances }) =>
    instances.filter((i) => i.transport === 'a2a').map((instance) => ({ agent, instance })),
  );
}

/** Probes `probed`, PROBES_AT_ONCE at a time; beats for those whose card answered. */
async function probeInstances(
  deps: Pick<A2aProbeDeps, 'heartbeats' | 'fetch' | 'timeoutMs'>,
  probed: Probed[],
): Promise<{ alive: number; silent: number }> {
  let alive = 0;
  let silent = 0;
  const queue = [...probed];
  const probeNext = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const url = probeUrlOf(next.agent, next.instance);
      if (url && (await cardAnswers(url, deps))) {
        await deps.heartbeats.beat(next.agent, { instance_id: next.instance.instance_id });
        alive++;
      } else {
        silent++;
      }
    }
  };
  await Promise.all(Array.from({ length: PROBES_AT_ONCE }, probeNext));
  return { alive, silent };
}

/** One round: probes the A2A instances (the least recently confirmed first), beats for those whose card answered. */
export async function probeA2aOnce(deps: A2aProbeDeps): Promise<{ alive: number; silent: number }> {
  const probed = a2aInstancesOf(deps.catalogue.allAgents()).sort(
    (a, b) => a.instance.last_heartbeat_at.getTime() - b.instance.last_heartbeat_at.getTime(),
  );
  return probeInstances(deps, probed.slice(0, PROBES_PER_ROUND));
}

/** Probes one agent's A2A instances now (an import from an inline card: nobody has read its card yet). */
export async function probeA2aAgent(
  deps: Pick<A2aProbeDeps, 'heartbeats' | 'fetch' | 'timeoutMs'>,
  found: AgentWithInstances,
): Promise<{ alive: number; silent: number }> {
  return probeInstances(deps, a2aInstancesOf([found]));
}

/** Runs `probeA2aOnce` every `intervalMs`, skipping a tick while a round runs; returns a stop function. */
export function startA2aProbe(
  deps: A2aProbeDeps,
  intervalMs: number,
  logger: Pick<Logger, 'warn'>,
): () => Promise<void> {
  return startPeriodic(
    () => probeA2aOnce(deps).catch((error: unknown) => logger.warn({ err: error }, 'A2A probe failed; will retry')),
    intervalMs,
  );
}
