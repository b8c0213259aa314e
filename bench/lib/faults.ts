/**
 * What the fault layer in front of each simulated agent does to one incoming request. Pure: the caller passes the
 * random source, so a schedule is reproducible and testable.
 *
 * - `drop`: the request is lost on the way; the connection is reset and the agent never sees it;
 * - `delay`: the request reaches the agent late (network jitter, a GC pause);
 * - `lose_receipt`: the agent does the work, but its answer is lost (direct HTTP: the response; Agent-Reach: the
 *   `/v1/callback` receipt);
 * - `error_5xx`: the agent answers 503 without doing the work.
 */
export const FAULT_KINDS = ['drop', 'delay', 'lose_receipt', 'error_5xx'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type Fault =
  | { kind: 'none' }
  | { kind: 'drop' }
  | { kind: 'delay'; ms: number }
  | { kind: 'lose_receipt' }
  | { kind: 'error_5xx' };

export interface FaultPlan {
  /** Share of requests that get a fault, 0–1. */
  rate: number;
  /** Kinds drawn from, uniformly. */
  kinds: readonly FaultKind[];
  /** Range of a `delay` fault, in ms. */
  delayMinMs: number;
  delayMaxMs: number;
}

export const NO_FAULTS: FaultPlan = { rate: 0, kinds: FAULT_KINDS, delayMinMs: 500, delayMaxMs: 4_000 };

/** Draws the fault for one request: none with probability 1 − rate, else one kind uniformly. */
export function decideFault(plan: FaultPlan, random: () => number): Fault {
  if (plan.rate <= 0 || plan.kinds.length === 0 || random() >= plan.rate) return { kind: 'none' };
  const kind = plan.kinds[Math.min(plan.kinds.length - 1, Math.floor(random() * plan.kinds.length))]!;
  if (kind === 'delay')
    return { kind, ms: Math.round(plan.delayMinMs + random() * (plan.delayMaxMs - plan.delayMinMs)) };
  return { kind };
}

/** Parses `--fault-kinds drop,delay` into kinds; throws on an unknown one. */
export function parseFaultKinds(text: string): FaultKind[] {
  const kinds = text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  for (const kind of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind))
      throw new Error(`unknown fault kind ${kind} (known: ${FAULT_KINDS.join(', ')})`);
  }
  return kinds as FaultKind[];
}
