/**
 * Circuit breaker of one agent instance, in the spirit of Envoy's outlier detection. Pure functions.
 *
 * - closed → open after `consecutiveFailures` failures in a row, or when at least `minRequests` outcomes in the
 *   current window (`windowMs`) show a failure rate of `failureRate` or more. A sporadic failure between successes
 *   resets the streak and barely moves the rate, so it never opens the circuit.
 * - open for `openMs × times opened` (capped at `maxOpenMs`, like Envoy's growing ejection time), then half-open.
 * - half-open lets probes through: the next success closes it, the next failure opens it again for longer.
 * Failures are what the gateway cannot blame on the message: transient errors (timeouts, connection errors, 429/5xx)
 * and missing receipts; a business refusal (4xx) is a success of the link.
 */
export interface CircuitPolicy {
  consecutiveFailures: number;
  failureRate: number;
  minRequests: number;
  windowMs: number;
  openMs: number;
  maxOpenMs: number;
}

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface Circuit {
  state: CircuitState;
  consecutive_failures: number;
  window_started_at: number;
  window_total: number;
  window_failures: number;
  opened_at?: number;
  /** How many times it opened since it was last closed by a success; lengthens the next opening. */
  times_opened: number;
}

export function closedCircuit(now: number): Circuit {
  return {
    state: 'closed',
    consecutive_failures: 0,
    window_started_at: now,
    window_total: 0,
    window_failures: 0,
    times_opened: 0,
  };
}

/** Open circuits become half-open once their open time is over. */
export function effectiveState(circuit: Circuit, now: number, policy: CircuitPolicy): CircuitState {
  if (circuit.state !== 'open') return circuit.state;
  const openFor = Math.min(policy.maxOpenMs, policy.openMs * Math.max(1, circuit.times_opened));
  return now - (circuit.opened_at ?? 0) >= openFor ? 'half_open' : 'open';
}

function open(circuit: Circuit, now: number): Circuit {
  return { ...circuit, state: 'open', opened_at: now, times_opened: circuit.times_opened + 1 };
}

export function recordOutcome(circuit: Circuit, ok: boolean, now: number, policy: CircuitPolicy): Circuit {
  const state = effectiveState(circuit, now, policy);
  const windowExpired = now - circuit.window_started_at >= policy.windowMs;
  const window = windowExpired
    ? { window_started_at: now, window_total: 0, window_failures: 0 }
    : {
        window_started_at: circuit.window_started_at,
        window_total: circuit.window_total,
        window_failures: circuit.window_failures,
      };
  const next: Circuit = {
    ...circuit,
    ...window,
    state,
    window_total: window.window_total + 1,
    window_failures: window.window_failures + (ok ? 0 : 1),
    consecutive_failures: ok ? 0 : circuit.consecutive_failures + 1,
  };
  if (ok) return state === 'half_open' ? { ...closedCircuit(now), times_opened: 0 } : next;
  if (state === 'half_open') return open(next, now);
  if (state === 'open') return next;
  const tooMany = next.consecutive_failures >= policy.consecutiveFailures;
  const tooOften =
    next.window_total >= policy.minRequests && next.window_failures / next.window_total >= policy.failureRate;
  return tooMany || tooOften ? open(next, now) : next;
}
